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
	ctx := context.Background()
	cfg, opts, text, parsed, checked := enterFixture(t, 20_000)
	line := 100
	for range 800 {
		at := text.LineStart(line)
		text = text.Replace(at, at, []byte("\n"))
		opts.Change = &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}
		parsed, _ = Reparse(parsed, "t.conf", text, cfg, opts)
		checked = Recheck(ctx, checked, parsed)
		line += 23
	}
	edited := liveHeap()
	runtime.KeepAlive(checked)
	parsed, checked = nil, nil

	fresh := Check(ctx, Parse([]Input{BufferText("t.conf", grammar.NewText(text.Bytes()))}, cfg, Options{Memo: grammar.NewMemo(), Incremental: true}))
	fresh.Prepare()
	base := liveHeap()
	runtime.KeepAlive(fresh)
	t.Logf("after 800 Enters the last version holds %.1f MB, a fresh analysis of its text %.1f MB", float64(edited)/1e6, float64(base)/1e6)
	if edited > 2*base {
		t.Errorf("after 800 Enters the last version holds %.1f MB, over twice a fresh analysis's %.1f MB", float64(edited)/1e6, float64(base)/1e6)
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
