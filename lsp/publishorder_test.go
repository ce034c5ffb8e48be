package lsp

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestSlowSyntaxPublishAfterCheck: the syntax findings a slow check
// publishes first are not sent once the generation's complete analysis
// is stored (sent after the checked findings, they hid them until the
// next edit); before that they are.
func TestSlowSyntaxPublishAfterCheck(t *testing.T) {
	s, rec, u, gen, snap := analysingSyntaxError(t, "/tmp/p.conf")

	s.publishSyntax(u, gen, snap) // the check is slow: sent
	select {
	case <-rec.ch:
	case <-time.After(5 * time.Second):
		t.Fatal("the syntax findings of a slow check were not published")
	}
	if !s.docs.storeChecked(u, gen, snap) {
		t.Fatal("storeChecked refused the current generation")
	}
	s.publish(u, gen, snap)
	<-rec.ch
	s.publishSyntax(u, gen, snap) // late: the check is stored
	select {
	case <-rec.ch:
		t.Error("the syntax-only findings were published after the generation's complete analysis")
	case <-time.After(200 * time.Millisecond):
	}
}

// TestClosedDocumentPublicationReleased: a document's last publication
// (diagnosticJSON.last, its findings' JSON and messages) is let go when
// the document is closed, not kept until lastPublications other
// documents have been published.
func TestClosedDocumentPublicationReleased(t *testing.T) {
	s, _, u, gen, snap := analysingSyntaxError(t, "/tmp/c.conf")
	s.sendFrame = func(context.Context, [][]byte) error { return nil }
	if snap.findings.Len() == 0 {
		t.Fatal("no findings to publish")
	}
	s.publish(u, gen, snap)
	if s.diagJSON.last[u] == nil {
		t.Fatal("the publication was not kept")
	}
	if err := s.DidClose(context.Background(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
	if s.diagJSON.last[u] != nil {
		t.Error("the closed document's last publication is still kept")
	}
}

// analysingSyntaxError is a server with a document open at path, "a = 1
// +", whose analysis has begun (its generation gen), and the snapshot of
// its syntax findings; rec records what the server publishes.
func analysingSyntaxError(t *testing.T, path string) (s *server, rec *recorder, u uri.URI, gen int, snap *snapshot) {
	t.Helper()
	rec = &recorder{diags: map[uri.URI][]protocol.Diagnostic{}, ch: make(chan uri.URI, 10)}
	s = newServer(context.Background(), rec, Options{})
	u = uri.File(path)
	s.docs.open(u, 1, "a = 1 +\n")
	started := make(chan int, 2)
	s.docs.schedule(u, 0, func(gen int) { started <- gen })
	gen = <-started
	text := grammar.NewText([]byte("a = 1 +\n"))
	cfg := &config{pcp: analysis.VersionChoice{Version: pcpver.Latest, Reason: "test"}}
	res := analysis.Parse([]analysis.Input{analysis.BufferText(filepath.Base(path), text)}, analysis.Config{Version: cfg.pcp}, analysis.Options{})
	return s, rec, u, gen, newSnapshot(cfg, u, 1, 0, text, res)
}
