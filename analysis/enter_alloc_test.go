package analysis

import (
	"context"
	"runtime"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
)

// TestEnterAllocations bounds what an Enter at line 50,000 of 100,000
// (enterFixture: a finding on most lines) allocates, read and checked
// from its line: at most 600 bytes and 1.25 allocations for each
// definition it moves. An Enter copies what it moves once (pvec.Map),
// and the copies of a whole chunk of the list are one array
// (pvec.Fresh); with a moved copy of the tail given to a splice, and an
// allocation for each moved definition and metric, it took 740 bytes and
// 2.9 allocations (950 bytes when the report's map of every name was
// made again on each Enter and each moved finding was copied three
// times). The arrays keep no older version alive
// (TestEntersHoldNoOldVersions).
func TestEnterAllocations(t *testing.T) {
	if testsize.Race {
		t.Skip("the race detector allocates beside the code measured; the plain pass runs this")
	}
	ctx := context.Background()
	cfg, opts, text, parsed, checked := enterFixture(t, 100_000)
	at := text.LineStart(50_000) + 5
	next := text.Replace(at, at, []byte("\n"))
	opts.Change = &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}
	moved := parsed.Files[0].File.Definitions.Len() / 2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 4
	allocs := testing.AllocsPerRun(runs, func() {
		p, _ := Reparse(parsed, "t.conf", next, cfg, opts)
		c := Recheck(ctx, checked, p)
		if c.Report == nil || c.Report.CheckedMetrics() > 2 {
			t.Fatalf("the Enter was not checked from its line")
		}
	})
	runtime.ReadMemStats(&after)
	t.Logf("an Enter moving %d definitions: %.0f allocations, %.1f MB", moved, allocs, float64(after.TotalAlloc-before.TotalAlloc)/(runs+1)/1e6)
	if perMoved := float64(after.TotalAlloc-before.TotalAlloc) / (runs + 1) / float64(moved); perMoved > 600 {
		t.Errorf("an Enter allocated %.0f bytes for each definition it moves, want at most 600", perMoved)
	}
	if perMoved := allocs / float64(moved); perMoved > 1.25 {
		t.Errorf("an Enter made %.2f allocations for each definition it moves, want at most 1.25", perMoved)
	}
}
