-- init.lua, Neovim 0.11+: editors/neovim on the runtimepath.
vim.lsp.config('pcp_derive_lsp', {
  settings = { pcpDerive = { pcpVersion = 'auto', source = { host = 'localhost' } } },
})
vim.lsp.enable('pcp_derive_lsp')
