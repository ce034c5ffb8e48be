package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ownedstream"
)

// lensRefreshRecorder counts the client's codeLens/refresh requests.
type lensRefreshRecorder struct {
	*recorder
	refreshes chan struct{}
}

func (r *lensRefreshRecorder) CodeLensRefresh(context.Context) error {
	r.refreshes <- struct{}{}
	return nil
}

// TestCodeLensesAroundTheScreen: a document of up to maxCodeLenses
// definitions has a lens on every valid one; a bigger one has them on
// the maxCodeLenses definitions around what the client last showed
// (the range it asked inlay hints for; the top before it asked), and a
// screen that leaves those lines asks the client, once, to ask again.
func TestCodeLensesAroundTheScreen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	go Serve(ctx, serverEnd, Options{Getenv: func(string) string { return "" }, Version: "test"})
	rec := &lensRefreshRecorder{recorder: &recorder{diags: map[uri.URI][]protocol.Diagnostic{}, ch: make(chan uri.URI, 100)}, refreshes: make(chan struct{}, 10)}
	cctx, conn, srv := protocol.NewClient(ctx, rec, ownedstream.New(clientEnd))
	t.Cleanup(func() { conn.Close(); cancel() })
	yes := true
	if _, err := srv.Initialize(cctx, &protocol.InitializeParams{
		InitializationOptions: []byte(`{"source": {"metadata": "embedded"}, "debounce": 0, "preview": {"enabled": false}}`),
		Capabilities:          protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &yes}}},
	}); err != nil {
		t.Fatal(err)
	}
	srv.Initialized(cctx, &protocol.InitializedParams{})

	open := func(name string, defs int) protocol.TextDocumentIdentifier {
		var b strings.Builder
		for i := range defs {
			if i%10 == 9 {
				fmt.Fprintf(&b, "bad.m%d = no.such.metric\n", i) // no lens
			} else {
				fmt.Fprintf(&b, "m%d = kernel.all.load * %d\n", i, i)
			}
		}
		u := uri.File("/tmp/" + name)
		srv.DidOpen(cctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: b.String()}})
		rec.wait(t, u)
		return protocol.TextDocumentIdentifier{URI: u}
	}
	// lenses returns the lines of a document's lenses, checking that each
	// one's argument names its own definition.
	lenses := func(doc protocol.TextDocumentIdentifier) []uint32 {
		t.Helper()
		got, err := srv.CodeLens(cctx, &protocol.CodeLensParams{TextDocument: doc})
		if err != nil {
			t.Fatal(err)
		}
		var lines []uint32
		for _, l := range got {
			var p previewParams
			if len(l.Command.Arguments) != 1 || json.Unmarshal(l.Command.Arguments[0], &p) != nil || p.TextDocument.URI != doc.URI || p.Position != l.Range.Start {
				t.Fatalf("lens at %v: arguments %s", l.Range, l.Command.Arguments)
			}
			lines = append(lines, l.Range.Start.Line)
		}
		return lines
	}
	show := func(doc protocol.TextDocumentIdentifier, from, to uint32) {
		t.Helper()
		if _, err := srv.InlayHint(cctx, &protocol.InlayHintParams{TextDocument: doc, Range: protocol.Range{Start: protocol.Position{Line: from}, End: protocol.Position{Line: to}}}); err != nil {
			t.Fatal(err)
		}
	}
	refreshed := func() bool {
		select {
		case <-rec.refreshes:
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	}

	small := open("small.conf", maxCodeLenses)
	if got := lenses(small); len(got) != maxCodeLenses*9/10 || got[0] != 0 || got[len(got)-1] != maxCodeLenses-2 {
		t.Errorf("%d definitions: %d lenses from line %d to %d, want %d from 0 to %d", maxCodeLenses, len(got), got[0], got[len(got)-1], maxCodeLenses*9/10, maxCodeLenses-2)
	}
	show(small, 900, 960)
	if refreshed() {
		t.Error("a document with every lens was asked to refresh them")
	}

	const n = 10 * maxCodeLenses
	big := open("big.conf", n)
	if got := lenses(big); len(got) != maxCodeLenses*9/10 || got[0] != 0 || got[len(got)-1] != maxCodeLenses-2 {
		t.Errorf("%d definitions, nothing shown yet: %d lenses from line %d, want %d from line 0", n, len(got), got[0], maxCodeLenses*9/10)
	}
	show(big, 100, 160) // within the lensed lines
	if refreshed() {
		t.Error("refresh asked for a screen within the lensed lines")
	}
	at := uint32(n * 6 / 10)
	show(big, at, at+60)
	if !refreshed() {
		t.Fatal("no refresh asked when the screen left the lensed lines")
	}
	at += 500
	show(big, at, at+60)
	if refreshed() {
		t.Error("a second refresh asked before the client asked for lenses again")
	}
	got := lenses(big)
	if len(got) != maxCodeLenses*9/10 || got[0] > at+30-maxCodeLenses/2 || got[len(got)-1] < at+30+maxCodeLenses/2-2 {
		t.Errorf("screen at %d-%d: %d lenses from line %d to %d, want %d around it", at, at+60, len(got), got[0], got[len(got)-1], maxCodeLenses*9/10)
	}
	show(big, n-60, n) // the end: a window that stops at the last definition
	if !refreshed() {
		t.Fatal("no refresh asked when the screen moved to the end")
	}
	if got := lenses(big); len(got) != maxCodeLenses*9/10 || got[len(got)-1] != n-2 {
		t.Errorf("screen at the end: %d lenses, the last on line %d, want %d ending on line %d", len(got), got[len(got)-1], maxCodeLenses*9/10, n-2)
	}
}

// TestPreviewArgument: the preview command's argument, written by hand,
// reads back as json.Marshal's of previewParams does, for any URI.
func TestPreviewArgument(t *testing.T) {
	for _, u := range []uri.URI{uri.File("/tmp/a.conf"), uri.File(`/tmp/quote"back\slash/ünï cödé.conf`), "untitled:Untitled-1", "untitled:\x00\x7f\u2028<&>"} {
		quoted, err := json.Marshal(string(u))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []protocol.Position{{}, {Line: 4294967295, Character: 17}} {
			arg := previewArgument(quoted, p)
			var got previewParams
			if err := json.Unmarshal(arg, &got); err != nil {
				t.Fatalf("%s: %v", arg, err)
			}
			// What json.Marshal would have sent, as the server reads it.
			marshalled, err := json.Marshal(previewParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: p})
			if err != nil {
				t.Fatal(err)
			}
			var want previewParams
			if err := json.Unmarshal(marshalled, &want); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: got %+v, want %+v (from %s)", arg, got, want, marshalled)
			}
		}
	}
}
