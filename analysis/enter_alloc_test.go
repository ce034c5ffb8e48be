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
// from its line: fewer allocations than one for every two definitions it
// moves. The moved definitions, metrics and findings are copies on other
// lines; one allocation each (125,000 an Enter) was most of the edit's
// cost to the allocator and the collector, and a map of every name made
// again the largest part of its recheck. They now come a run at a time
// (internal/slab) and the names follow the move (checker.MetricNames).
func TestEnterAllocations(t *testing.T) {
	if testsize.Race {
		t.Skip("the race detector allocates beside the code measured; the plain pass runs this")
	}
	ctx := context.Background()
	cfg, opts, text, parsed, checked := enterFixture(t)
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
	if allocs > float64(moved/2) {
		t.Errorf("an Enter allocated %.0f times, want at most %d (half the definitions it moves)", allocs, moved/2)
	}
}
