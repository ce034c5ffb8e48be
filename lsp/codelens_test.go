package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// lensRefreshRecorder counts the client's codeLens/refresh requests,
// answering the first fail of them with an error.
type lensRefreshRecorder struct {
	*recorder
	refreshes chan struct{}
	fail      atomic.Int32
}

func (r *lensRefreshRecorder) CodeLensRefresh(context.Context) error {
	r.refreshes <- struct{}{}
	if r.fail.Add(-1) >= 0 {
		return errors.New("the client failed")
	}
	return nil
}

// lensClient is a session whose client may support codeLens/refresh,
// with documents of one-line definitions after a header of comments;
// every tenth definition, at i%10 == 4, names no metric and has no lens.
type lensClient struct {
	t   *testing.T
	srv protocol.Server
	ctx context.Context
	rec *lensRefreshRecorder
}

// lensHeader is the comment lines above the definitions.
const lensHeader = 20

// defLine is the line (0-based) of definition i.
func defLine(i int) uint32 { return uint32(lensHeader + i) }

func newLensClient(t *testing.T, refresh bool) *lensClient {
	rec := &lensRefreshRecorder{recorder: newRecorder(), refreshes: make(chan struct{}, 10)}
	caps := protocol.ClientCapabilities{}
	if refresh {
		yes := true
		caps.Workspace = &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &yes}}
	}
	srv, ctx := sessionAs(t, Options{}, rec, &protocol.InitializeParams{
		InitializationOptions: []byte(`{"source": {"metadata": "embedded"}, "debounce": 0, "preview": {"enabled": false}}`),
		Capabilities:          caps,
	})
	return &lensClient{t: t, srv: srv, ctx: ctx, rec: rec}
}

func lensText(defs int) string {
	var b strings.Builder
	for range lensHeader {
		b.WriteString("# generated: one definition per disk\n")
	}
	for i := range defs {
		if i%10 == 4 {
			fmt.Fprintf(&b, "bad.m%d = no.such.metric\n", i)
		} else {
			fmt.Fprintf(&b, "m%d = kernel.all.load * %d\n", i, i)
		}
	}
	return b.String()
}

func (c *lensClient) open(name string, defs int) protocol.TextDocumentIdentifier {
	u := uri.File("/tmp/" + name)
	c.srv.DidOpen(c.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: lensText(defs)}})
	c.rec.wait(c.t, u)
	return protocol.TextDocumentIdentifier{URI: u}
}

// wantLenses checks that a document's lenses are those of the valid
// definitions [first, end), each with its own preview argument.
func (c *lensClient) wantLenses(doc protocol.TextDocumentIdentifier, first, end int) {
	c.t.Helper()
	got, err := c.srv.CodeLens(c.ctx, &protocol.CodeLensParams{TextDocument: doc})
	if err != nil {
		c.t.Fatal(err)
	}
	var want []uint32
	for i := first; i < end; i++ {
		if i%10 != 4 {
			want = append(want, defLine(i))
		}
	}
	var lines []uint32
	for _, l := range got {
		var p previewParams
		if len(l.Command.Arguments) != 1 || json.Unmarshal(l.Command.Arguments[0], &p) != nil || p.TextDocument.URI != doc.URI || p.Position != l.Range.Start {
			c.t.Fatalf("lens at %v: arguments %s", l.Range, l.Command.Arguments)
		}
		lines = append(lines, l.Range.Start.Line)
	}
	if !slices.Equal(lines, want) {
		c.t.Errorf("%d lenses on lines %v…%v, want %d on lines %d to %d (definitions %d to %d)",
			len(lines), lines[:min(1, len(lines))], lines[max(0, len(lines)-1):], len(want), want[0], want[len(want)-1], first, end-1)
	}
}

func (c *lensClient) show(doc protocol.TextDocumentIdentifier, from, to uint32) {
	c.t.Helper()
	if _, err := c.srv.InlayHint(c.ctx, &protocol.InlayHintParams{TextDocument: doc, Range: protocol.Range{Start: protocol.Position{Line: from}, End: protocol.Position{Line: to}}}); err != nil {
		c.t.Fatal(err)
	}
}

func at(doc protocol.TextDocumentIdentifier, line uint32) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: line, Character: 8}}
}

// refreshed checks whether the client was asked to refresh its lenses:
// it waits up to 5 s for one it wants, 200 ms for one it does not.
func (c *lensClient) refreshed(want bool, what string) {
	c.t.Helper()
	wait := 200 * time.Millisecond
	if want {
		wait = 5 * time.Second
	}
	select {
	case <-c.rec.refreshes:
		if !want {
			c.t.Errorf("%s: a refresh asked", what)
		}
	case <-time.After(wait):
		if want {
			c.t.Errorf("%s: no refresh asked", what)
		}
	}
}

// TestCodeLensesAroundTheUser: a document of up to maxCodeLenses
// definitions has a lens on every valid one; a bigger one has them on the
// maxCodeLenses definitions around where the user is (the top until the
// client says), and when that moves far from the lenses the client has,
// a client that supports it is asked, once, to ask for them again.
func TestCodeLensesAroundTheUser(t *testing.T) {
	c := newLensClient(t, true)
	small := c.open("small.conf", maxCodeLenses)
	c.wantLenses(small, 0, maxCodeLenses)
	c.show(small, defLine(900), defLine(960))
	c.srv.Hover(c.ctx, &protocol.HoverParams{TextDocumentPositionParams: at(small, defLine(10))})
	c.refreshed(false, "a document with every lens")

	const n = 10 * maxCodeLenses
	big := c.open("big.conf", n)
	c.wantLenses(big, 0, maxCodeLenses) // nothing said yet: the top
	for range 3 {
		c.show(big, 0, 60) // the header and the first definitions
		c.refreshed(false, "the top of the file shown")
		c.wantLenses(big, 0, maxCodeLenses)
	}
	c.show(big, 0, defLine(n)) // a whole document's hints, as Neovim asks
	c.refreshed(false, "a whole document's inlay hints")
	c.wantLenses(big, 0, maxCodeLenses)

	// Where the user is, by each request that says so.
	k := 6 * maxCodeLenses
	c.srv.Hover(c.ctx, &protocol.HoverParams{TextDocumentPositionParams: at(big, defLine(k))})
	c.refreshed(true, "a hover far from the lenses")
	c.srv.Hover(c.ctx, &protocol.HoverParams{TextDocumentPositionParams: at(big, defLine(k+100))})
	c.refreshed(false, "a second move before the client asked again")
	c.wantLenses(big, k+100-maxCodeLenses/2, k+100+maxCodeLenses/2)
	c.srv.CodeAction(c.ctx, &protocol.CodeActionParams{TextDocument: big, Range: protocol.Range{End: protocol.Position{Line: defLine(n)}}})
	c.refreshed(false, "a whole document's code actions (on save)")
	c.wantLenses(big, k+100-maxCodeLenses/2, k+100+maxCodeLenses/2)
	for _, move := range []struct {
		what string
		to   int
		ask  func(line uint32)
	}{
		{"completion", k - 2000, func(l uint32) {
			c.srv.Completion(c.ctx, &protocol.CompletionParams{TextDocumentPositionParams: at(big, l)})
		}},
		{"signature help", k - 4000, func(l uint32) {
			c.srv.SignatureHelp(c.ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: at(big, l)})
		}},
		{"a code action at the cursor", k + 1000, func(l uint32) {
			c.srv.CodeAction(c.ctx, &protocol.CodeActionParams{TextDocument: big, Range: protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l, Character: 3}}})
		}},
		{"VS Code's inlay range on a tall screen (270 lines)", k + 2000, func(l uint32) { c.show(big, l-135, l+135) }},
	} {
		move.ask(defLine(move.to))
		c.refreshed(true, move.what)
		c.wantLenses(big, move.to-maxCodeLenses/2, move.to+maxCodeLenses/2)
	}

	k += 2000
	c.show(big, defLine(k+maxCodeLenses/4-30), defLine(k+maxCodeLenses/4+30)) // a quarter of the window on
	c.refreshed(false, "a screen a quarter of the window away")
	c.show(big, defLine(k+maxCodeLenses/4+20), defLine(k+maxCodeLenses/4+80))
	c.refreshed(true, "a screen over a quarter of the window away")
	c.wantLenses(big, k+maxCodeLenses/4+50-maxCodeLenses/2, k+maxCodeLenses/4+50+maxCodeLenses/2)

	for range 2 {
		c.show(big, defLine(n-60), defLine(n)+5) // the end, and the blank lines after it
		c.wantLenses(big, n-maxCodeLenses, n)
	}
	c.refreshed(true, "the end shown") // once: then the lenses are the end's
	c.refreshed(false, "the end shown again")

	// An edit, sent as the whole document, moves the lenses to where it
	// is, for the client's next ask.
	lines := strings.SplitAfter(lensText(n), "\n")
	lines[defLine(3000)] = "# a note\n" + lines[defLine(3000)]
	c.srv.DidChange(c.ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: big, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: strings.Join(lines, "")}},
	})
	c.rec.wait(t, big.URI)
	got, err := c.srv.CodeLens(c.ctx, &protocol.CodeLensParams{TextDocument: big})
	if err != nil || len(got) != maxCodeLenses*9/10 || got[0].Range.Start.Line != defLine(2500) {
		t.Errorf("after an edit at line %d: %d lenses from line %d, want %d from line %d (%v)", defLine(3000), len(got), got[0].Range.Start.Line, maxCodeLenses*9/10, defLine(2500), err)
	}

	// Closed and opened again: its lenses start at the top again.
	c.srv.DidClose(c.ctx, &protocol.DidCloseTextDocumentParams{TextDocument: big})
	c.rec.wait(t, big.URI)
	again := c.open("big.conf", n)
	c.wantLenses(again, 0, maxCodeLenses)
	c.show(again, 0, 60)
	c.refreshed(false, "a document opened again, at its top")
}

// TestCodeLensesWithoutRefresh: a client that cannot be asked to refresh
// its lenses is not asked; the lenses it asks for follow the user.
func TestCodeLensesWithoutRefresh(t *testing.T) {
	c := newLensClient(t, false)
	big := c.open("big.conf", 10*maxCodeLenses)
	c.wantLenses(big, 0, maxCodeLenses)
	c.srv.Hover(c.ctx, &protocol.HoverParams{TextDocumentPositionParams: at(big, defLine(5000))})
	c.refreshed(false, "a client without refresh support")
	c.wantLenses(big, 5000-maxCodeLenses/2, 5000+maxCodeLenses/2)
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

// TestCodeLensRefreshFailed: a refresh the client failed leaves the
// lenses it has as sent, so that the next move asks again.
func TestCodeLensRefreshFailed(t *testing.T) {
	c := newLensClient(t, true)
	c.rec.fail.Store(1)
	big := c.open("big.conf", 10*maxCodeLenses)
	c.wantLenses(big, 0, maxCodeLenses)
	c.srv.Hover(c.ctx, &protocol.HoverParams{TextDocumentPositionParams: at(big, defLine(5000))})
	c.refreshed(true, "a move, its refresh failed")
	// The failure reaches the server after the client's answer: moves
	// until one asks again, for 10 s at most.
	for deadline := time.Now().Add(10 * time.Second); ; {
		c.srv.Hover(c.ctx, &protocol.HoverParams{TextDocumentPositionParams: at(big, defLine(5100))})
		select {
		case <-c.rec.refreshes:
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no refresh asked after the client failed one")
		}
	}
}
