package lsp

import (
	"context"
	"path/filepath"
	"reflect"
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

// receivedPublication is one publishDiagnostics a publicationRecorder
// received.
type receivedPublication struct {
	version int32
	diags   []protocol.Diagnostic
}

// publicationRecorder is an editor that keeps each publication and its
// version.
type publicationRecorder struct {
	protocol.UnimplementedClient
	published chan receivedPublication
}

func (r *publicationRecorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	v, _ := p.Version.Get()
	r.published <- receivedPublication{version: v, diags: p.Diagnostics}
	return nil
}

// TestUnchangedFindingsPublishedAgain: a keystroke that leaves the
// findings byte for byte as they were (typing in a comment) is published
// again with its version, not skipped: a client that pairs diagnostics
// with the document's version waits for the one it sent, and some clear
// what they show when an edit starts a check (early eglot reported no
// diagnostics to flymake at each check, "we don't have them yet") until
// the server publishes (docs/limits.md).
func TestUnchangedFindingsPublishedAgain(t *testing.T) {
	rec := &publicationRecorder{published: make(chan receivedPublication, 10)}
	srv, ctx := sessionAs(t, Options{}, rec, &protocol.InitializeParams{InitializationOptions: []byte(`{"source": {"metadata": "embedded"}, "debounce": 0}`)})
	u := uri.File("/tmp/same.conf")
	if err := srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: "# a comment\nm.a = 1 +\n"}}); err != nil {
		t.Fatal(err)
	}
	next := func(want int32) receivedPublication {
		t.Helper()
		for {
			select {
			case p := <-rec.published:
				if p.version == want {
					return p
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("version %d not published", want)
			}
		}
	}
	opened := next(1)
	if len(opened.diags) != 1 {
		t.Fatalf("opened: %+v, want the one syntax error", opened.diags)
	}
	for v := int32(2); v <= 4; v++ {
		if err := srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
				Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 3}, End: protocol.Position{Line: 0, Character: 3}}, Text: "x"}},
		}); err != nil {
			t.Fatal(err)
		}
		if got := next(v); !reflect.DeepEqual(got.diags, opened.diags) {
			t.Fatalf("version %d: %+v, want the same finding as before %+v", v, got.diags, opened.diags)
		}
	}
}
