-- init.lua, Neovim 0.7 to 0.10: editors/neovim on the runtimepath.
require('pcp_derive').setup({
  settings = { pcpVersion = 'auto', source = { host = 'localhost' } },
})
