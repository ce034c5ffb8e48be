-- pcp-derive-lsp for Neovim: starts the language server for PCP derived
-- metric configs (filetype "pcpderived").
--
--   require('pcp_derive').setup({
--     cmd = { 'pcp-derive-lsp', 'serve' },      -- the server binary
--     settings = { dialect = 'auto',            -- pcp6, pcp7 or auto
--                  source = { host = '' } },     -- host, socket, archive, metadata
--   })
--
-- Works from Neovim 0.7 (vim.lsp.start_client) and uses vim.lsp.start
-- where it exists (0.8+). Users of 0.11+ may prefer lsp/pcp_derive_ls.lua.
local M = {}

local defaults = {
  cmd = { 'pcp-derive-lsp', 'serve' },
  filetypes = { 'pcpderived' },
  settings = {},
}

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  return vim.fn.fnamemodify(name, ':p:h')
end

function M.setup(opts)
  local config = vim.tbl_deep_extend('force', defaults, opts or {})
  local group = vim.api.nvim_create_augroup('pcp_derive_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      local client_config = {
        name = 'pcp_derive_ls',
        cmd = config.cmd,
        root_dir = root_dir(args.buf),
        init_options = config.settings,
        settings = { pcpDerive = config.settings },
      }
      if vim.lsp.start then
        vim.lsp.start(client_config, { bufnr = args.buf })
      else
        local id = vim.lsp.start_client(client_config)
        if id then
          vim.lsp.buf_attach_client(args.buf, id)
        end
      end
    end,
  })
end

return M
