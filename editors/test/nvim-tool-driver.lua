-- Drives Neovim's own LSP client headless through a pmrep, pcp-dstat or
-- pcp-htop file (issue #38), after the documented init.lua snippet:
-- filetype detection, the diagnostics (at their columns in the INI file),
-- hover at $PCP_EDITOR_HOVER ("LINE,CHARACTER", 0-based) and completion at
-- the end of the line $PCP_EDITOR_APPEND appended. Writes "key value"
-- lines to $PCP_EDITOR_OUT for editors/test (Go), which judges.
local out = assert(os.getenv('PCP_EDITOR_OUT'))
local conf = assert(os.getenv('PCP_EDITOR_CONF'))
local hover_at = assert(os.getenv('PCP_EDITOR_HOVER'))
local append = assert(os.getenv('PCP_EDITOR_APPEND'))
local lines = {}
local function put(k, v) table.insert(lines, k .. ' ' .. tostring(v):gsub('\n', '\\n')) end

local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/nvim-lib.lua')
local clients = lib.clients

local ok, err = pcall(function()
  vim.cmd('edit ' .. conf)
  local buf = vim.api.nvim_get_current_buf()
  put('filetype', vim.bo[buf].filetype)
  local ready = vim.wait(30000, function() return #clients(buf) > 0 and #vim.diagnostic.get(buf) > 0 end, 50)
  put('attached', ready)
  if not clients(buf)[1] then return end
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    put('diagnostic', (d.lnum + 1) .. ':' .. (d.col + 1) .. ' ' .. tostring(d.code) .. ' ' .. d.message)
  end
  local uri = vim.uri_from_bufnr(buf)
  local line, char = hover_at:match('^(%d+),(%d+)$')
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover',
    { textDocument = { uri = uri }, position = { line = tonumber(line), character = tonumber(char) } }, 10000)
  for _, r in pairs(res or {}) do
    if r.result and r.result.contents then put('hover', r.result.contents.value or r.result.contents) end
  end
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { append })
  put('completion', lib.completion_labels(buf, uri, vim.api.nvim_buf_line_count(buf) - 1, #append))
end)
if not ok then put('error', err) end
local f = assert(io.open(out, 'w'))
f:write(table.concat(lines, '\n'), '\n')
f:close()
vim.cmd('qa!')
