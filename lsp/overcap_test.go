package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestOverCapDocument: a document with more findings of a code than a
// file lists (analysis.DefaultMaxPerCode) publishes the first 1,000 and
// one finding for the rest, and keeps doing so, counted right, as edits
// take listed findings away and add them (each edit analysed from the
// lines it touches: analysis.Options.Incremental).
func TestOverCapDocument(t *testing.T) {
	srv, rec, ctx := session(t, `{"source": {"metadata": "embedded"}, "debounce": 0}`)
	u := uri.File("/tmp/overcap.conf")
	var b strings.Builder
	for i := range 1003 {
		fmt.Fprintf(&b, "m%d = no.such.x%d\n", i, i)
	}
	// waitFor waits for a publish of n diagnostics whose last says more
	// more findings are not listed.
	waitFor := func(step string, n, more int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		var d []protocol.Diagnostic
		for time.Now().Before(deadline) {
			d = rec.wait(t, u)
			if len(d) == n && strings.HasPrefix(fmt.Sprint(d[n-1].Message), fmt.Sprintf("%d more unknown-metric findings", more)) {
				if first := d[0]; first.Range.Start.Line != 0 || !strings.Contains(fmt.Sprint(first.Message), "no.such.x") {
					t.Fatalf("%s: first diagnostic %+v, want line 1's", step, first)
				}
				return
			}
		}
		last := ""
		if len(d) > 0 {
			last = fmt.Sprint(d[len(d)-1].Message)
		}
		t.Fatalf("%s: %d diagnostics, the last %q; want %d, the last saying %d more", step, len(d), last, n, more)
	}
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: b.String()}})
	waitFor("open", 1001, 3)
	edit := func(version int32, line uint32, from, to uint32, text string) {
		srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
				Range: protocol.Range{Start: protocol.Position{Line: line, Character: from}, End: protocol.Position{Line: line, Character: to}}, Text: text}},
		})
	}
	// Line 6 ("m5 = no.such.x5") made known: a listed finding goes, and
	// the first of the rest takes its place.
	edit(2, 5, 5, 15, "hinv.ncpu")
	waitFor("a listed finding fixed", 1001, 2)
	// And broken again.
	edit(3, 5, 5, 14, "no.such.y")
	waitFor("broken again", 1001, 3)
}
