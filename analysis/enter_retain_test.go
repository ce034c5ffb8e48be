package analysis

import (
	"context"
	"runtime"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
)

// TestEntersHoldNoOldVersions types Enters down a document, each a few
// lines below the last, as the server analyses them (Reparse, then
// Recheck of the last version), and holds what the last version keeps
// alive to about what a fresh analysis of the same text does. An edit
// shares what it did not change with the version before; sharing an
// array or a run of values with replaced ones kept every older version's
// moved definitions, metrics and findings alive (seven to ten times a
// fresh analysis after 1,500 Enters).
func TestEntersHoldNoOldVersions(t *testing.T) {
	if testsize.Race {
		t.Skip("the race detector's shadow memory is beside the heap measured; the plain pass runs this")
	}
	// After 40 Enters, fewer than a compaction of the names (64), names
	// that pointed at the metrics they were set to kept the first
	// version's moved metrics and definitions: 34.1 MB against 30.8
	// (1.11 times). After 800, what is left over is the arrays of whole
	// chunks' moved values that a later edit cut (pvec.Map: one a chunk),
	// 34.3 MB against 30.8 (34.9 with those names).
	for _, c := range []struct {
		enters  int
		maxOver float64 // the last version's heap against a fresh one's
	}{{40, 1.04}, {800, 1.15}} {
		edited, fresh := entersAndFresh(t, c.enters)
		t.Logf("after %d Enters the last version holds %.1f MB, a fresh analysis of its text %.1f MB", c.enters, float64(edited)/1e6, float64(fresh)/1e6)
		if float64(edited) > c.maxOver*float64(fresh) {
			t.Errorf("after %d Enters the last version holds %.1f MB, over %.2f times a fresh analysis's %.1f MB", c.enters, float64(edited)/1e6, c.maxOver, float64(fresh)/1e6)
		}
	}
}

// entersAndFresh types n Enters into a document of 20,000 definitions
// and returns the live heap of the last version and of a fresh analysis
// of its text.
func entersAndFresh(t *testing.T, n int) (edited, fresh uint64) {
	ctx := context.Background()
	cfg, opts, text, parsed, checked := enterFixture(t, 20_000)
	line := 100
	for range n {
		at := text.LineStart(line)
		text = text.Replace(at, at, []byte("\n"))
		opts.Change = &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}
		parsed, _ = Reparse(parsed, "t.conf", text, cfg, opts)
		checked = Recheck(ctx, checked, parsed)
		line += 23
	}
	edited = liveHeap()
	runtime.KeepAlive(checked)
	parsed, checked = nil, nil

	again := Check(ctx, Parse([]Input{BufferText("t.conf", grammar.NewText(text.Bytes()))}, cfg, Options{Memo: grammar.NewMemo(), Incremental: true}))
	again.Prepare()
	fresh = liveHeap()
	runtime.KeepAlive(again)
	return edited, fresh
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
