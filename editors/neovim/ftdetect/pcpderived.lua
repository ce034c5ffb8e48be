-- PCP derived metric configs: pmLoadDerivedConfig files in the usual
-- places, and *.derived anywhere; pmrep, pcp-dstat and pcp-htop files
-- (whose formulas are derived metrics) by their directories.
vim.cmd([[
  augroup pcpderived_ftdetect
    autocmd!
    autocmd BufRead,BufNewFile */pcp/derived/*.conf,*/config/derived/*.conf,*.derived setfiletype pcpderived
    autocmd BufRead,BufNewFile */pmrep/*.conf,pmrep.conf,.pmrep.conf,*/dstat/*,*/htop/meters/*,*/htop/columns/*,*/htop/screens/* setfiletype pcptoolconf
  augroup END
]])
