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
-- where it exists (0.8+). Users of 0.11+ may prefer lsp/pcp_derive_lsp.lua.
--
-- :PcpExplain (require('pcp_derive').explain()) shows the definition under
-- the cursor as a tree, every subexpression with its values and where
-- values vanish the reason, in a split (the server's pcp-derive.explain).
local M = {}

-- explain asks the server attached to the buffer for the explanation of
-- the definition under the cursor and shows its markdown in a new split.
function M.explain()
  local buf = vim.api.nvim_get_current_buf()
  local pos = vim.api.nvim_win_get_cursor(0)
  local params = {
    command = 'pcp-derive.explain',
    arguments = { { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = pos[1] - 1, character = pos[2] } } },
  }
  vim.lsp.buf_request(buf, 'workspace/executeCommand', params, function(err, result)
    if err or not result then
      vim.notify('PcpExplain: ' .. (err and err.message or 'no answer'), vim.log.levels.ERROR)
      return
    end
    vim.cmd('vnew')
    vim.bo.buftype, vim.bo.bufhidden, vim.bo.swapfile, vim.bo.filetype = 'nofile', 'wipe', false, 'markdown'
    vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(result.markdown, '\n', { plain = true }))
    vim.bo.modifiable = false
  end)
end

local defaults = {
  cmd = { 'pcp-derive-lsp', 'serve' },
  filetypes = { 'pcpderived', 'pcptoolconf' },
  settings = {},
}

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  return vim.fn.fnamemodify(name, ':p:h')
end

function M.setup(opts)
  local config = vim.tbl_deep_extend('force', defaults, opts or {})
  vim.api.nvim_create_user_command('PcpExplain', M.explain, { desc = 'pcp-derive-lsp: explain the metric under the cursor' })
  local group = vim.api.nvim_create_augroup('pcp_derive_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      local client_config = {
        name = 'pcp_derive_lsp',
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
