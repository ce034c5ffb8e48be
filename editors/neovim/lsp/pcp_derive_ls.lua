-- nvim-lspconfig style configuration for Neovim 0.11+ (vim.lsp.config):
--   vim.lsp.enable('pcp_derive_ls')
return {
  cmd = { 'pcp-derive-lsp', 'serve' },
  filetypes = { 'pcpderived', 'pcptoolconf' },
  root_markers = { '.git' },
  init_options = { dialect = 'auto' },
}
