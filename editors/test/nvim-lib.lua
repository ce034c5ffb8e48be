-- What the Neovim drivers share: the clients of a buffer and the labels
-- of a completion request, across Neovim 0.7 to 0.12.
-- local lib = dofile(<this directory> .. '/nvim-lib.lua')
local M = {}

function M.clients(buf)
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = buf }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(buf))
end

-- completion_labels asks for completion at 0-based line and character
-- after a typed ".", and returns the items' labels, sorted, joined by ",".
function M.completion_labels(buf, uri, line, character)
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/completion', {
    textDocument = { uri = uri }, position = { line = line, character = character },
    context = { triggerKind = 2, triggerCharacter = '.' },
  }, 10000)
  local labels = {}
  for _, r in pairs(res or {}) do
    local items = r.result and (r.result.items or r.result) or {}
    for _, it in ipairs(items) do table.insert(labels, it.label) end
  end
  table.sort(labels)
  return table.concat(labels, ',')
end

return M
