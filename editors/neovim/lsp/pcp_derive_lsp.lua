---@brief
---
--- https://github.com/pcp-derive-lsp/pcp-derive-lsp
---
--- Language server for Performance Co-Pilot (PCP) derived metric configs: libpcp's own verdicts
--- for each PCP release, checked against a pmcd, pmproxy or archive, with hover values, quick
--- fixes and formatting.
---
--- Install `pcp-derive-lsp` with Mason (`:MasonInstall pcp-derive-lsp`), a release archive or
--- the `.deb`/`.rpm` package. Neovim does not know the `pcpderived` filetype: add it, e.g.
--- ```lua
--- vim.filetype.add({
---   extension = { derived = 'pcpderived' },
---   pattern = { ['.*/pcp/derived/.*%.conf'] = 'pcpderived', ['.*/config/derived/.*%.conf'] = 'pcpderived' },
--- })
--- ```
--- pmrep, pcp-dstat and pcp-htop files use the `pcptoolconf` filetype, e.g.
--- `pattern = { ['.*/pmrep/.*%.conf'] = 'pcptoolconf', ['.*/htop/meters/.*'] = 'pcptoolconf' }`.
--- Settings (`pcpDerive.*`) are described in the project's docs/editors.md.

---@type vim.lsp.Config
return {
  cmd = { 'pcp-derive-lsp', 'serve' },
  filetypes = { 'pcpderived', 'pcptoolconf' },
  root_markers = { '.pcp-derive-lsp.yaml', '.git' },
}
