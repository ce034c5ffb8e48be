-- Headless smoke test with Neovim's built-in LSP client (0.7+): open a
-- config, wait for diagnostics, ask for hover and completion, and write
-- what came back to $PCP_DERIVE_LSP_OUT. Run by lsp/neovim_test.go.
local out = assert(os.getenv("PCP_DERIVE_LSP_OUT"))
local bin = assert(os.getenv("PCP_DERIVE_LSP_BIN"))
local conf = assert(os.getenv("PCP_DERIVE_LSP_CONF"))
local results = {}
local function finish()
  local f = assert(io.open(out, "w"))
  f:write(table.concat(results, "\n"), "\n")
  f:close()
  vim.cmd("qa!")
end

vim.cmd("edit " .. conf)
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "pcp_derive_lsp",
  cmd = { bin, "serve", "--stdio" },
  root_dir = vim.fn.getcwd(),
  init_options = { source = { metadata = "embedded" } },
})
vim.lsp.buf_attach_client(buf, client_id)

local ok = vim.wait(15000, function()
  return #vim.diagnostic.get(buf) > 0
end, 100)
table.insert(results, "diagnostics " .. tostring(ok) .. " " .. #vim.diagnostic.get(buf))
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(results, "diag " .. (d.code or "") .. " " .. d.message)
end

local client = vim.lsp.get_client_by_id(client_id)
local hover = client.request_sync("textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = 0, character = 20 },
}, 10000, buf)
if hover and hover.result and hover.result.contents then
  table.insert(results, "hover " .. (hover.result.contents.value or ""):gsub("\n", " "))
else
  table.insert(results, "hover none")
end
local comp = client.request_sync("textDocument/completion", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = 2, character = 13 },
}, 10000, buf)
if comp and comp.result then
  for _, item in ipairs(comp.result.items or comp.result) do
    table.insert(results, "complete " .. item.label)
  end
end
finish()
