package lsp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// answerBound is how long any request may take in TestNoWedge: far more
// than one takes here even under -race on a loaded machine; a request
// past it is a server (or client) that stopped answering.
const answerBound = 30 * time.Second

// TestNoWedge (issue 39: no sequence of messages may leave the server
// unresponsive): four readers ask for hovers, completions, inlay hints
// and code lenses in the middle of a document, some of them cancelled
// after a random moment ($/cancelRequest), while an editor types and
// deletes in bursts, with and without a debounce. Every request is
// answered (or cancelled) within answerBound, and at the end a hover
// answers from the last version. A request past the bound fails the
// test with every goroutine's stack.
func TestNoWedge(t *testing.T) {
	for _, debounce := range []int{0, 5} {
		t.Run(fmt.Sprintf("debounce %d ms", debounce), func(t *testing.T) { noWedge(t, debounce) })
	}
}

func noWedge(t *testing.T, debounce int) {
	lines, readers, asks, bursts := 2000, 4, 60, 30
	if raceDetector || testing.Short() {
		lines, asks, bursts = 400, 25, 12
	}
	rec := newVersionRecorder(8) // never read: it must not matter
	srv, ctx, _ := benchSessionWith(t, fmt.Sprintf(`{"source": {"metadata": "embedded"}, "debounce": %d, "preview": {"enabled": false}}`, debounce), rec)
	doc := protocol.TextDocumentIdentifier{URI: uri.File("/tmp/nowedge.conf")}
	all := strings.SplitAfter(realisticConfig(lines), "\n")
	mid := lines / 2
	all[mid] = "bench.reading = kernel.all.load + disk.dev.\n"
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: doc.URI, Version: 1, Text: strings.Join(all, "")}})

	at := func(ch uint32) protocol.TextDocumentPositionParams {
		return protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: uint32(mid), Character: ch}}
	}
	screen := protocol.Range{Start: protocol.Position{Line: uint32(mid - 30)}, End: protocol.Position{Line: uint32(mid + 30)}}
	requests := []struct {
		name string
		ask  func(context.Context) error
	}{
		{"hover", func(ctx context.Context) error {
			_, err := srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: at(len32("bench.reading = kernel.all."))})
			return err
		}},
		{"completion", func(ctx context.Context) error {
			_, err := srv.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: at(len32("bench.reading = kernel.all.load + disk.dev."))})
			return err
		}},
		{"inlayHint", func(ctx context.Context) error {
			_, err := srv.InlayHint(ctx, &protocol.InlayHintParams{TextDocument: doc, Range: screen})
			return err
		}},
		{"codeLens", func(ctx context.Context) error {
			_, err := srv.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: doc})
			return err
		}},
	}

	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(r), uint64(debounce)))
			for range asks {
				req := requests[rnd.IntN(len(requests))]
				rctx, cancel := context.WithCancel(ctx)
				if rnd.IntN(3) == 0 { // a third are cancelled, at 0-3 ms
					time.AfterFunc(time.Duration(rnd.IntN(3000))*time.Microsecond, cancel)
				}
				ok := answered(t, req.name, func() error { return req.ask(rctx) })
				cancel()
				if !ok {
					return
				}
			}
		})
	}
	// The editor: bursts of keystrokes at the end of a comment line, each
	// burst then deleted, a pause of 0-2 ms between.
	comment := uint32(lines / 4 / 50 * 50) // realisticConfig's "# section N" lines
	end := len32(strings.TrimSuffix(all[comment], "\n"))
	version := int32(1)
	edit := func(from, to uint32, text string) {
		version++
		srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: doc, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
				Range: protocol.Range{Start: protocol.Position{Line: comment, Character: from}, End: protocol.Position{Line: comment, Character: to}}, Text: text}},
		})
	}
	rnd := rand.New(rand.NewPCG(99, uint64(debounce)))
	for range bursts {
		n := 1 + rnd.IntN(8)
		for i := range uint32(n) {
			edit(end+i, end+i, "x")
			time.Sleep(time.Duration(rnd.IntN(2000)) * time.Microsecond)
		}
		edit(end, end+uint32(n), "")
	}
	wg.Wait()

	// The last version, typed after everything above: a hover answers
	// from it (at once, unless its analysis takes over the 5 s a request
	// waits for one: then from the one before, and again until it ends).
	edit(0, 0, "# last\n")
	answered(t, "a hover answered from the last edit", func() error {
		last := at(len32("bench.reading = kernel.all."))
		last.Position.Line++ // moved down by the last edit
		for {
			h, err := srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: last})
			if err != nil {
				return err
			}
			if h != nil {
				if m, ok := h.Contents.(*protocol.MarkupContent); ok && strings.Contains(m.Value, "kernel.all.load") {
					return nil
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// answered runs ask, failing t if it returns an error other than a
// cancellation, or, with every goroutine's stack, if it has not returned
// within answerBound; it reports whether ask returned in time.
func answered(t *testing.T, what string, ask func() error) bool {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- ask() }()
	select {
	case err := <-done:
		if err != nil && !cancelled(err) {
			t.Errorf("%s: %v", what, err)
		}
		return true
	case <-time.After(answerBound):
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		t.Errorf("%s: no answer in %v (every goroutine's stack is above)", what, answerBound)
		return false
	}
}

// cancelled reports an error of a request the client cancelled: its own
// context's, or the server's RequestCancelled.
func cancelled(err error) bool {
	return strings.Contains(err.Error(), context.Canceled.Error()) || strings.Contains(err.Error(), "cancel")
}
