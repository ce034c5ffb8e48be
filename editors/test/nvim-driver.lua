-- Drives Neovim's own LSP client headless (0.7 to 0.12) through what a user
-- does in a derived-metric config, after the documented init.lua snippet
-- (nvim --headless -u SNIPPET). Writes "key value" lines to
-- $PCP_EDITOR_OUT for editors/test (Go). Never errors out: every step
-- records what it saw, and the Go test judges.
local out = assert(os.getenv('PCP_EDITOR_OUT'))
local conf = assert(os.getenv('PCP_EDITOR_CONF'))
local lines = {}
local function put(k, v) table.insert(lines, k .. ' ' .. tostring(v):gsub('\n', '\\n')) end
local function finish()
  local f = assert(io.open(out, 'w'))
  f:write(table.concat(lines, '\n'), '\n')
  f:close()
  vim.cmd('qa!')
end

local lib = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/nvim-lib.lua')
local clients = lib.clients

local ok, err = pcall(function()
  put('version', vim.version().major .. '.' .. vim.version().minor .. '.' .. vim.version().patch)
  if vim.lsp.config then
    -- Which lsp/pcp_derive_lsp.lua vim.lsp.enable loaded, and what it set.
    for _, f in ipairs(vim.api.nvim_get_runtime_file('lsp/pcp_derive_lsp.lua', true)) do put('lspconfig', f) end
    put('rootmarkers', table.concat(vim.lsp.config.pcp_derive_lsp.root_markers or {}, ' '))
  end
  vim.cmd('edit ' .. conf)
  local buf = vim.api.nvim_get_current_buf()
  put('filetype', vim.bo[buf].filetype)
  local ready = vim.wait(30000, function() return #clients(buf) > 0 and #vim.diagnostic.get(buf) > 0 end, 50)
  put('attached', ready)
  local client = clients(buf)[1]
  if not client then return end
  local enc = client.offset_encoding or 'utf-16'
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    put('diagnostic', (d.lnum + 1) .. ':' .. (d.col + 1) .. ' ' .. tostring(d.code) .. ' ' .. d.message)
  end
  local uri = vim.uri_from_bufnr(buf)

  -- Hover on kernel.all.load (line 2).
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover',
    { textDocument = { uri = uri }, position = { line = 1, character = 12 } }, 10000)
  for _, r in pairs(res or {}) do
    if r.result and r.result.contents then put('hover', r.result.contents.value or r.result.contents) end
  end

  -- Explain this metric (m.load, line 2): the command's markdown.
  res = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', {
    command = 'pcp-derive.explain',
    arguments = { { textDocument = { uri = uri }, position = { line = 1, character = 2 } } },
  }, 15000)
  for _, r in pairs(res or {}) do
    if r.result then put('explain', r.result.markdown) end
    if r.err or r.error then put('explain', 'error ' .. tostring((r.err or r.error).message)) end
  end

  -- The quick fix for the unknown metric on line 3, applied.
  local diags = {}
  for _, d in ipairs(vim.diagnostic.get(buf, { lnum = 2 })) do
    table.insert(diags, (d.user_data and d.user_data.lsp) or {
      range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
      message = d.message, code = d.code, severity = d.severity, source = d.source,
    })
  end
  res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri },
    range = { start = { line = 2, character = 8 }, ['end'] = { line = 2, character = 8 } },
    context = { diagnostics = diags },
  }, 10000)
  for _, r in pairs(res or {}) do
    for _, a in ipairs(r.result or {}) do
      put('codeaction', a.title)
      if a.edit and a.title:find('sample.long.one', 1, true) and not a.title:find('ulong', 1, true) then
        vim.lsp.util.apply_workspace_edit(a.edit, enc)
        put('applied', a.title)
      end
    end
  end
  put('line3', vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1])

  -- Formatting.
  if vim.lsp.buf.format then
    vim.lsp.buf.format({ timeout_ms = 10000 })
  else
    vim.lsp.buf.formatting_sync(nil, 10000)
  end
  put('line4', vim.api.nvim_buf_get_lines(buf, 3, 4, false)[1])

  -- Completion after "sample." on a new line.
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'm.new = sample.' })
  put('completion', lib.completion_labels(buf, uri, vim.api.nvim_buf_line_count(buf) - 1, 15))

  -- Which model the diagnostics came by: a client that declares pull
  -- diagnostics (0.10+) gets none pushed.
  -- The edits above start new pulls: wait for the answer to the last one.
  local okns, pull_ns = pcall(vim.lsp.diagnostic.get_namespace, client.id, true)
  local pulled = okns and pull_ns and vim.wait(10000, function()
    return #vim.diagnostic.get(buf, { namespace = pull_ns }) > 0
  end, 50)
  local okpush, push_ns = pcall(vim.lsp.diagnostic.get_namespace, client.id, false)
  local pushed = okpush and push_ns and #vim.diagnostic.get(buf, { namespace = push_ns }) > 0
  if pulled and not pushed then
    put('diagmodel', 'pull')
  else
    put('diagmodel', 'push')
  end

  -- A metric using m.load, then m.load's highlights and call hierarchy.
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'm.twice = m.load * 2' })
  local at = { textDocument = { uri = uri }, position = { line = 1, character = 2 } }
  res = vim.lsp.buf_request_sync(buf, 'textDocument/documentHighlight', at, 10000)
  for _, r in pairs(res or {}) do
    for _, h in ipairs(r.result or {}) do
      put('highlight', (h.range.start.line + 1) .. ':' .. h.range.start.character .. '-' ..
        (h.range['end'].line + 1) .. ':' .. h.range['end'].character .. ' ' .. tostring(h.kind))
    end
  end
  res = vim.lsp.buf_request_sync(buf, 'textDocument/prepareCallHierarchy', at, 10000)
  for _, r in pairs(res or {}) do
    for _, item in ipairs(r.result or {}) do
      put('callitem', item.name)
      local inc = vim.lsp.buf_request_sync(buf, 'callHierarchy/incomingCalls', { item = item }, 10000)
      for _, ri in pairs(inc or {}) do
        for _, c in ipairs(ri.result or {}) do put('incoming', c.from.name) end
      end
      local outg = vim.lsp.buf_request_sync(buf, 'callHierarchy/outgoingCalls', { item = item }, 10000)
      for _, ro in pairs(outg or {}) do
        for _, c in ipairs(ro.result or {}) do put('outgoing', c.to.name) end
      end
    end
  end
end)
if not ok then put('error', err) end
finish()
