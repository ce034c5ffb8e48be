;;; emacs-lib.el --- what the Emacs drivers share  -*- lexical-binding: t -*-
;; Loaded by emacs-driver.el and emacs-tool-driver.el: the "key value"
;; lines they record, waiting for eglot in `emacs --batch', and writing
;; the lines to $PCP_EDITOR_OUT.
(require 'eglot)
(require 'flymake)
(defvar pcp-test-lines nil)
(defun pcp-put (key value)
  (push (concat key " " (replace-regexp-in-string "\n" "\\\\n" (format "%s" value))) pcp-test-lines))
(defun pcp-wait (pred seconds)
  "Run timers and process output until PRED holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (run-hooks 'post-command-hook))
    (funcall pred)))
(defun pcp-attach-and-diagnose ()
  "Record whether eglot attached, then the diagnostics as LINE:COLUMN TEXT."
  (pcp-put "attached" (if (pcp-wait (lambda () (eglot-current-server)) 30) "t" "nil"))
  (pcp-wait (lambda () (flymake-diagnostics)) 30)
  (dolist (d (sort (flymake-diagnostics) (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b)))))
    (save-excursion
      (goto-char (flymake-diagnostic-beg d))
      (pcp-put "diagnostic" (format "%d:%d %s" (line-number-at-pos) (1+ (current-column))
                                    (flymake-diagnostic-text d))))))
(defun pcp-complete-after (line)
  "Append LINE to the buffer and record the completions at its end, through
completion-at-point's table, sorted and joined by commas."
  (goto-char (point-max))
  (unless (bolp) (insert "\n"))
  (insert line)
  (let* ((capf (eglot-completion-at-point))
         (table (nth 2 capf))
         (prefix (buffer-substring (nth 0 capf) (point))))
    (pcp-put "completion" (mapconcat #'identity (sort (all-completions prefix table) #'string<) ","))))
(defun pcp-finish ()
  (with-temp-file (getenv "PCP_EDITOR_OUT")
    (insert (mapconcat #'identity (reverse pcp-test-lines) "\n") "\n"))
  (kill-emacs 0))
