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
// from its line: at most 800 bytes for each definition it moves (950
// when the report's map of every name was made again on each Enter and
// each moved finding was copied three times). The moved definitions,
// metrics and findings are copies on other lines, one allocation each:
// taken from shared runs instead, a run kept every value of it alive
// while any one was (TestEntersHoldNoOldVersions).
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
	if perMoved := float64(after.TotalAlloc-before.TotalAlloc) / (runs + 1) / float64(moved); perMoved > 800 {
		t.Errorf("an Enter allocated %.0f bytes for each definition it moves, want at most 800", perMoved)
	}
}
