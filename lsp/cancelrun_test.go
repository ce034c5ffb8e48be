package lsp

import (
	"context"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// TestNewerEditCancelsAnalysis: the context an analysis runs under is
// cancelled when a newer edit schedules the next one, and when the
// document closes; the newest one's is not.
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
	ds.close(u)
	if second.Err() == nil {
		t.Error("closing the document left its analysis running")
	}
}
