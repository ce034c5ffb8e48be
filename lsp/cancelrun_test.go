package lsp

import (
	"context"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// TestNewerEditCancelsAnalysis: the context an analysis runs under is
// cancelled when a newer edit schedules the next one, when the document
// is opened again, and when it closes; the newest one's is not.
func TestNewerEditCancelsAnalysis(t *testing.T) {
	ds := newDocuments(nil)
	u := uri.File("/tmp/c.conf")
	ds.open(u, 1, "a = 1\n")
	started := make(chan int, 4)
	run := func(gen int) { started <- gen }
	ds.schedule(u, 0, run)
	gen := <-started
	first, _, _, _, _, _, _, _, ok := ds.begin(context.Background(), u, gen)
	if !ok || first.Err() != nil {
		t.Fatalf("begin of the current generation: ok %v, err %v", ok, first.Err())
	}
	ds.schedule(u, time.Hour, run) // an edit
	if first.Err() == nil {
		t.Error("a newer edit left the older analysis running")
	}
	ds.schedule(u, 0, run)
	gen = <-started
	second, _, _, _, _, _, _, _, ok := ds.begin(context.Background(), u, gen)
	if !ok || second.Err() != nil {
		t.Fatalf("begin of the newest generation: ok %v, err %v", ok, second.Err())
	}
	// Opened again (a client may): the old text's analysis is cancelled
	// and its generation matches nothing of the new document's.
	ds.open(u, 5, "b = 2\n")
	if second.Err() == nil {
		t.Error("opening the document again left the old text's analysis running")
	}
	if _, _, _, _, _, _, _, _, ok := ds.begin(context.Background(), u, gen); ok {
		t.Error("the old text's generation began an analysis of the new text")
	}
	ds.schedule(u, 0, run)
	third, _, _, _, _, _, _, _, ok := ds.begin(context.Background(), u, <-started)
	if !ok {
		t.Fatal("no analysis of the reopened document")
	}
	ds.close(u)
	if third.Err() == nil {
		t.Error("closing the document left its analysis running")
	}
}
