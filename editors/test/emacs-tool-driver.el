;;; emacs-tool-driver.el --- drives eglot through a pmrep or pcp-htop file  -*- lexical-binding: t -*-
;; emacs --batch -l SNIPPET -l emacs-tool-driver.el: opens $PCP_EDITOR_CONF
;; (issue #38) and records the major mode, the diagnostics (at their
;; columns in the INI file), hover at $PCP_EDITOR_HOVER ("LINE,CHARACTER",
;; 0-based) and completion at the end of the line $PCP_EDITOR_APPEND
;; appended, as "key value" lines in $PCP_EDITOR_OUT for editors/test (Go).
(load (expand-file-name "emacs-lib.el" (file-name-directory load-file-name)) nil t)

(condition-case err
    (let* ((at (mapcar #'string-to-number (split-string (getenv "PCP_EDITOR_HOVER") ",")))
           (append-line (getenv "PCP_EDITOR_APPEND")))
      (find-file (getenv "PCP_EDITOR_CONF"))
      (pcp-put "mode" major-mode)
      (pcp-attach-and-diagnose)
      (let ((server (eglot-current-server)))
        (goto-char (point-min)) (forward-line (nth 0 at)) (forward-char (nth 1 at))
        (let ((h (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
          (pcp-put "hover" (plist-get (plist-get h :contents) :value)))
        (pcp-complete-after append-line)))
  (error (pcp-put "error" (error-message-string err))))
(pcp-finish)
