(define-derived-mode pcp-derived-mode prog-mode "PCP-derived"
  "Major mode for PCP derived metric configs."
  (setq-local comment-start "# "))
(add-to-list 'auto-mode-alist '("/\\(pcp\\|config\\)/derived/[^/]+\\.conf\\'" . pcp-derived-mode))
(add-to-list 'auto-mode-alist '("\\.derived\\'" . pcp-derived-mode))
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               '(pcp-derived-mode . ("pcp-derive-lsp" "serve" "--stdio"
                                     :initializationOptions
                                     (:pcpVersion "auto" :source (:host "localhost"))))))
(add-hook 'pcp-derived-mode-hook #'eglot-ensure)
