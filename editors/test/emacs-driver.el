;;; emacs-driver.el --- drives eglot in `emacs --batch' after the documented snippet  -*- lexical-binding: t -*-
;; emacs --batch -l SNIPPET -l emacs-driver.el: opens $PCP_EDITOR_CONF and
;; goes through what a user does, writing "key value" lines to
;; $PCP_EDITOR_OUT for editors/test (Go). Every step records what it saw
;; (or the error), and the Go test judges.
(load (expand-file-name "emacs-lib.el" (file-name-directory load-file-name)) nil t)

(condition-case err
    (progn
      (pcp-put "version" (format "%s eglot %s" emacs-version
                                 (or (and (fboundp 'package-get-version) (ignore-errors (package-get-version))) "built-in")))
      (find-file (getenv "PCP_EDITOR_CONF"))
      (pcp-put "mode" major-mode)
      ;; eglot-ensure connects from post-command-hook, which the batch
      ;; mode's missing command loop never runs: pcp-wait runs it.
      (pcp-attach-and-diagnose)
      (let ((server (eglot-current-server)))
        ;; Hover on kernel.all.load (line 2).
        (goto-char (point-min)) (forward-line 1) (forward-char 12)
        (let ((h (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
          (pcp-put "hover" (plist-get (plist-get h :contents) :value)))
        ;; Explain this metric (m.load, line 2): the command's markdown.
        (goto-char (point-min)) (forward-line 1) (forward-char 2)
        (let ((res (jsonrpc-request server :workspace/executeCommand
                                    (list :command "pcp-derive.explain"
                                          :arguments (vector (eglot--TextDocumentPositionParams))))))
          (pcp-put "explain" (plist-get res :markdown)))
        ;; The quick fix for the unknown metric on line 3, applied by eglot.
        (goto-char (point-min)) (forward-line 2) (forward-char 8)
        (let* ((diags (flymake-diagnostics (point)))
               (actions (jsonrpc-request
                         server :textDocument/codeAction
                         (list :textDocument (eglot--TextDocumentIdentifier)
                               :range (list :start (eglot--pos-to-lsp-position (point))
                                            :end (eglot--pos-to-lsp-position (point)))
                               :context (list :diagnostics
                                              (vconcat (mapcar (lambda (d) (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d))))
                                                               diags)))))))
          (seq-doseq (a actions)
            (pcp-put "codeaction" (plist-get a :title)))
          (let ((fix (seq-find (lambda (a) (equal (plist-get a :title) "Change to sample.long.one")) actions)))
            (when fix
              (eglot-execute server fix)
              (pcp-put "applied" (plist-get fix :title)))))
        (goto-char (point-min)) (forward-line 2)
        (pcp-put "line3" (buffer-substring (line-beginning-position) (line-end-position)))
        ;; Formatting.
        (eglot-format-buffer)
        (goto-char (point-min)) (forward-line 3)
        (pcp-put "line4" (buffer-substring (line-beginning-position) (line-end-position)))
        ;; Completion after "sample." on a new line, through
        ;; completion-at-point's table.
        (pcp-complete-after "m.new = sample.")))
  (error (pcp-put "error" (error-message-string err))))
(pcp-finish)
