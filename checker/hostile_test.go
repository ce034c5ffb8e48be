package checker

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// TestManyUnknownNamesOneLine: the check of one definition naming
// thousands of unknown metrics allocates in proportion to its text under
// every release's rules. Each unknown name of a PCP 6.2.2+ config gets a
// "Guard it" fix that rewrites the whole expression: one for each of
// 10,000 names allocated 7 GB (the fixes are now bounded per definition).
func TestManyUnknownNamesOneLine(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprintf("no.such.m%d", i)
	}
	text := []byte("m = " + strings.Join(names, " + ") + "\n")
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		f := grammar.ParseConfig("hostile.conf", text, grammar.Options{Version: v})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: v, FindingsOnly: true})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rep.Diagnostics[f]); got < len(names) {
			t.Errorf("%s: %d findings, want one per unknown name (%d)", v, got, len(names))
		}
		// About 2 KB a name today (its finding, message, tree nodes,
		// suggestions); the bound leaves room and still fails the
		// quadratic (~300 KB a name at this size).
		allocated := after.TotalAlloc - before.TotalAlloc
		if bound := uint64(len(names)) * 16 << 10; allocated > bound {
			t.Errorf("%s: the check of %d unknown names in %d bytes allocated %d MB, over %d MB", v, len(names), len(text), allocated>>20, bound>>20)
		}
		t.Logf("%s: %d unknown names, %d bytes: %d findings, %.1f MB allocated", v, len(names), len(text), len(rep.Diagnostics[f]), float64(allocated)/(1<<20))
	}
}
