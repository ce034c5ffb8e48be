package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
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

// TestCodeLensesAroundTheUser: a document of up to maxCodeLenses
// definitions has a lens on every valid one; a bigger one has them on the
// maxCodeLenses definitions around where the user is (the top until the
// client says), and when that moves far from the lenses the client has,
// a client that supports it is asked, once, to ask for them again.
func TestCodeLensesAroundTheUser(t *testing.T) {
	rec := &lensRefreshRecorder{recorder: newRecorder(), refreshes: make(chan struct{}, 10)}
	yes := true
	srv, cctx := sessionAs(t, Options{}, rec, &protocol.InitializeParams{
		InitializationOptions: []byte(`{"source": {"metadata": "embedded"}, "debounce": 0, "preview": {"enabled": false}}`),
		Capabilities:          protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &yes}}},
	})

	// Documents of one-line definitions after a header of comments; every
	// tenth, at i%10 == 4, names no metric and has no lens.
	const header = 20
	line := func(def int) uint32 { return uint32(header + def) }
	open := func(name string, defs int) protocol.TextDocumentIdentifier {
		var b strings.Builder
		for range header {
			b.WriteString("# generated: one definition per disk\n")
		}
		for i := range defs {
			if i%10 == 4 {
				fmt.Fprintf(&b, "bad.m%d = no.such.metric\n", i)
			} else {
				fmt.Fprintf(&b, "m%d = kernel.all.load * %d\n", i, i)
			}
		}
		u := uri.File("/tmp/" + name)
		srv.DidOpen(cctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: b.String()}})
		rec.wait(t, u)
		return protocol.TextDocumentIdentifier{URI: u}
	}
	// wantLenses checks that a document's lenses are those of the valid
	// definitions [first, end), each with its own preview argument.
	wantLenses := func(doc protocol.TextDocumentIdentifier, first, end int) {
		t.Helper()
		got, err := srv.CodeLens(cctx, &protocol.CodeLensParams{TextDocument: doc})
		if err != nil {
			t.Fatal(err)
		}
		var want []uint32
		for i := first; i < end; i++ {
			if i%10 != 4 {
				want = append(want, line(i))
			}
		}
		var lines []uint32
		for _, l := range got {
			var p previewParams
			if len(l.Command.Arguments) != 1 || json.Unmarshal(l.Command.Arguments[0], &p) != nil || p.TextDocument.URI != doc.URI || p.Position != l.Range.Start {
				t.Fatalf("lens at %v: arguments %s", l.Range, l.Command.Arguments)
			}
			lines = append(lines, l.Range.Start.Line)
		}
		if !slices.Equal(lines, want) {
			t.Errorf("%d lenses on lines %d to %d, want %d on lines %d to %d (definitions %d to %d)",
				len(lines), lines[0], lines[len(lines)-1], len(want), want[0], want[len(want)-1], first, end-1)
		}
	}
	show := func(doc protocol.TextDocumentIdentifier, from, to uint32) {
		t.Helper()
		if _, err := srv.InlayHint(cctx, &protocol.InlayHintParams{TextDocument: doc, Range: protocol.Range{Start: protocol.Position{Line: from}, End: protocol.Position{Line: to}}}); err != nil {
			t.Fatal(err)
		}
	}
	hoverAt := func(doc protocol.TextDocumentIdentifier, l uint32) {
		t.Helper()
		if _, err := srv.Hover(cctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: l, Character: 8}}}); err != nil {
			t.Fatal(err)
		}
	}
	refreshed := func(t *testing.T, want bool, what string) {
		t.Helper()
		select {
		case <-rec.refreshes:
			if !want {
				t.Errorf("%s: a refresh asked", what)
			}
		case <-time.After(200 * time.Millisecond):
			if want {
				t.Errorf("%s: no refresh asked", what)
			}
		}
	}

	small := open("small.conf", maxCodeLenses)
	wantLenses(small, 0, maxCodeLenses)
	show(small, line(900), line(960))
	hoverAt(small, line(10))
	refreshed(t, false, "a document with every lens")

	const n = 10 * maxCodeLenses
	big := open("big.conf", n)
	wantLenses(big, 0, maxCodeLenses) // nothing said yet: the top
	for range 3 {
		show(big, 0, 60) // the header and the first definitions
		refreshed(t, false, "the top of the file shown")
		wantLenses(big, 0, maxCodeLenses)
	}
	show(big, 0, uint32(header+n)) // a whole document's hints, as Neovim asks
	refreshed(t, false, "a whole document's inlay hints")
	wantLenses(big, 0, maxCodeLenses)

	at := 6 * maxCodeLenses
	hoverAt(big, line(at))
	refreshed(t, true, "a hover far from the lenses")
	hoverAt(big, line(at+maxCodeLenses/10))
	refreshed(t, false, "a second move before the client asked again")
	wantLenses(big, at+maxCodeLenses/10-maxCodeLenses/2, at+maxCodeLenses/10+maxCodeLenses/2)

	at += maxCodeLenses / 10
	show(big, line(at+maxCodeLenses/4-30), line(at+maxCodeLenses/4+30)) // a quarter of the window on
	refreshed(t, false, "a screen a quarter of the window away")
	show(big, line(at+maxCodeLenses/4+20), line(at+maxCodeLenses/4+80))
	refreshed(t, true, "a screen over a quarter of the window away")
	wantLenses(big, at+maxCodeLenses/4+50-maxCodeLenses/2, at+maxCodeLenses/4+50+maxCodeLenses/2)

	for range 2 {
		show(big, line(n-60), line(n)+5) // the end, and the blank lines after it
		wantLenses(big, n-maxCodeLenses, n)
	}
	refreshed(t, true, "the end shown") // once: then the lenses are the end's
	refreshed(t, false, "the end shown again")

	// An edit moves the lenses to where it is, for the client's next ask.
	srv.DidChange(cctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: big, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: protocol.Position{Line: line(3000)}, End: protocol.Position{Line: line(3000)}}, Text: "# a note\n"}},
	})
	rec.wait(t, big.URI)
	got, err := srv.CodeLens(cctx, &protocol.CodeLensParams{TextDocument: big})
	if err != nil || len(got) != maxCodeLenses*9/10 || got[0].Range.Start.Line != line(2500) {
		t.Errorf("after an edit at line %d: %d lenses from line %d, want %d from line %d (%v)", line(3000), len(got), got[0].Range.Start.Line, maxCodeLenses*9/10, line(2500), err)
	}

	// Closed and opened again: its lenses start at the top again.
	srv.DidClose(cctx, &protocol.DidCloseTextDocumentParams{TextDocument: big})
	rec.wait(t, big.URI)
	again := open("big.conf", n)
	wantLenses(again, 0, maxCodeLenses)
	show(again, 0, 60)
	refreshed(t, false, "a document opened again, at its top")
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
