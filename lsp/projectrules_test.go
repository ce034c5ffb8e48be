package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

func diagSummary(diags []protocol.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%d:%v:%d", d.Range.Start.Line+1, d.Code, d.Severity))
	}
	return strings.Join(out, " ")
}

// TestProjectRulesFollowTheFile: a document follows the nearest
// .pcp-derive-lsp.yaml above it, as check does, and its suppression
// comments; when the rules file changes, the next analysis reads it
// again (after a save, with no notification), and a
// workspace/didChangeWatchedFiles re-analyses the open documents at once.
// A misspelt code is reported, and the rest of the file applies.
func TestProjectRulesFollowTheFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "derived", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(dir, rules.FileName)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(rulesPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("severity:\n  unknown-metric: warning\n")
	srv, rec, ctx := sessionIn(t, `{"source": {"metadata": "embedded"}, "pcpVersion": "7.2"}`, dir)
	u := uri.File(filepath.Join(sub, "a.conf"))
	text := "x = disk.dev.reda\n# pcp-derive-lsp: ignore[syntax]\ny = 1 +\n"
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "pcp-derived", Version: 1, Text: text}})
	if got, want := diagSummary(rec.wait(t, u)), "1:unknown-metric:2"; got != want {
		t.Errorf("with the rules file: %s, want %s (the syntax error suppressed, unknown-metric a warning)", got, want)
	}

	write("disable: [unknown-metric]\n")
	srv.DidSave(ctx, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if got := diagSummary(rec.wait(t, u)); got != "" {
		t.Errorf("after the rules file disabled unknown-metric: %s, want nothing", got)
	}

	write("severity:\n  unknown-metric: hint\n")
	changed := &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: uri.File(rulesPath), Type: protocol.FileChangeTypeChanged}}}
	srv.DidChangeWatchedFiles(ctx, changed)
	if got, want := diagSummary(rec.wait(t, u)), "1:unknown-metric:4"; got != want {
		t.Errorf("after didChangeWatchedFiles: %s, want %s", got, want)
	}

	write("disable: [unknown-metirc]\nseverity:\n  unknown-metric: info\n")
	srv.DidChangeWatchedFiles(ctx, changed)
	if got, want := diagSummary(rec.wait(t, u)), "1:unknown-metric:3"; got != want {
		t.Errorf("with a misspelt code in the rules file: %s, want %s (the valid settings apply)", got, want)
	}
	// The message comes before the diagnostics, but the test client may
	// record the two in either order.
	if !rec.messageContaining(`unknown finding code "unknown-metirc"; did you mean unknown-metric?`) {
		rec.mu.Lock()
		t.Errorf("the misspelt code was not reported; messages:\n%s", strings.Join(rec.messages, "\n"))
		rec.mu.Unlock()
	}

	os.Remove(rulesPath)
	srv.DidChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{{URI: uri.File(rulesPath), Type: protocol.FileChangeTypeDeleted}}})
	if got, want := diagSummary(rec.wait(t, u)), "1:unknown-metric:1"; got != want {
		t.Errorf("after the rules file went away: %s, want %s", got, want)
	}
}

// TestRulesFileWatched: a client that allows dynamic registration is
// asked to watch the project rules files.
func TestRulesFileWatched(t *testing.T) {
	c := rawSession(t)
	c.send(1, "initialize", map[string]any{"capabilities": map[string]any{"workspace": map[string]any{
		"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}})
	c.reply(1)
	c.send(nil, "initialized", map[string]any{})
	m := c.notification("client/registerCapability")
	if !strings.Contains(string(m.Params), `"method":"workspace/didChangeWatchedFiles"`) || !strings.Contains(string(m.Params), `"**/`+rules.FileName+`"`) {
		t.Errorf("registration %s", m.Params)
	}
}
