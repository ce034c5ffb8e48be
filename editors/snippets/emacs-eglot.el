(define-derived-mode pcp-derived-mode prog-mode "PCP-derived"
  "Major mode for PCP derived metric configs."
  (setq-local comment-start "# "))
(add-to-list 'auto-mode-alist '("/\\(pcp\\|config\\)/derived/[^/]+\\.conf\\'" . pcp-derived-mode))
(add-to-list 'auto-mode-alist '("\\.derived\\'" . pcp-derived-mode))
;; pmrep, pcp-dstat and pcp-htop files: INI, whose formulas are derived metrics.
(define-derived-mode pcp-toolconf-mode conf-unix-mode "PCP-tool"
  "Major mode for pmrep, pcp-dstat and pcp-htop config files.")
(add-to-list 'auto-mode-alist '("/pmrep/[^/]+\\.conf\\'" . pcp-toolconf-mode))
(add-to-list 'auto-mode-alist '("/\\.?pmrep\\.conf\\'" . pcp-toolconf-mode))
(add-to-list 'auto-mode-alist '("/dstat/[^/]+\\'" . pcp-toolconf-mode))
(add-to-list 'auto-mode-alist '("/htop/\\(meters\\|columns\\|screens\\)/[^/]+\\'" . pcp-toolconf-mode))
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '((pcp-derived-mode pcp-toolconf-mode) . ("pcp-derive-lsp" "serve" "--stdio"
                                     :initializationOptions
                                     (:pcpVersion "auto" :source (:host "localhost"))))))
(add-hook 'pcp-derived-mode-hook #'eglot-ensure)
(add-hook 'pcp-toolconf-mode-hook #'eglot-ensure)
