-- PCP derived metric configs: pmLoadDerivedConfig files in the usual
-- places, and *.derived anywhere.
vim.cmd([[
  augroup pcpderived_ftdetect
    autocmd!
    autocmd BufRead,BufNewFile */pcp/derived/*.conf,*/config/derived/*.conf,*.derived setfiletype pcpderived
  augroup END
]])
