package evaluator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive/interp"
)

// reuseArchive records a short archive of the logged metrics (20 samples
// 100 ms apart) and returns its base name and a config of 300 generated
// definitions over them.
func reuseArchive(t *testing.T) (base string, config []byte) {
	t.Helper()
	requirePCP(t)
	dir := t.TempDir()
	cfg := "log mandatory on default { " + strings.Join(logged, " ") + " }\n"
	os.WriteFile(filepath.Join(dir, "cfg"), []byte(cfg), 0o644)
	rec := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "100msec", "-s", "20", "-V3", "reuse")
	rec.Dir = dir
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("pmlogger: %v\n%s", err, out)
	}
	g := exprgen.New(11, logged)
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "reuse.m%d = %s\n", i, g.Next())
	}
	return filepath.Join(dir, "reuse"), []byte(b.String())
}

// newReuseEvaluator opens the archive (interpolated every 150 ms when
// interpolate is set) and binds the config.
func newReuseEvaluator(t testing.TB, base string, config []byte, interpolate bool) *Evaluator {
	t.Helper()
	ctx := context.Background()
	a, err := archive.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	var src pmclient.Source = a
	if interpolate {
		if src, err = interp.New(ctx, a, interp.Options{Origin: a.Start(), Interval: 150 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	f := grammar.ParseConfig("reuse.conf", config, grammar.Options{Version: pcpver.V6_0_3})
	rep, err := checker.Check(ctx, []*grammar.File{f}, src, checker.Options{Version: pcpver.V6_0_3})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := New(ctx, src, rep)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestNextEqualsSample: Next, which reuses every buffer from sample to
// sample, gives the same samples as Sample, which allocates them afresh,
// over every record of an archive; and its allocations per value stay
// within the bound bench/eval.sh measures (32 bytes), whatever the config.
func TestNextEqualsSample(t *testing.T) {
	base, config := reuseArchive(t)
	ctx := context.Background()
	fresh := newReuseEvaluator(t, base, config, false)
	reused := newReuseEvaluator(t, base, config, false)
	var want []string
	for {
		s, err := fresh.Sample(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, canonical(s))
	}
	if len(want) < 10 {
		t.Fatalf("only %d samples", len(want))
	}
	// The first samples size the buffers; after them, count each Next's
	// allocation (ReadMemStats around it alone: comparing allocates).
	// The bound is on a typical sample (the median): an instance domain
	// that grows later in a recorded archive resizes buffers once, which
	// a short archive cannot amortise; the total has a looser bound.
	values, total := 0, uint64(0)
	var perSample []float64
	for i := 0; ; i++ {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		s, err := reused.Next(ctx)
		runtime.ReadMemStats(&m1)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Fatalf("Next gave more samples than Sample's %d", len(want))
		}
		n := 0
		for _, r := range s.Results {
			n += len(r.Values)
		}
		if i >= 3 && n > 0 {
			values += n
			total += m1.TotalAlloc - m0.TotalAlloc
			perSample = append(perSample, float64(m1.TotalAlloc-m0.TotalAlloc)/float64(n))
		}
		if got := canonical(s); got != want[i] {
			t.Fatalf("sample %d: Next gave\n%s\nSample gave\n%s", i, got, want[i])
		}
	}
	if values == 0 {
		t.Fatal("no values evaluated")
	}
	sort.Float64s(perSample)
	median := perSample[len(perSample)/2]
	perValue := float64(total) / float64(values)
	t.Logf("%d values, %.1f bytes allocated per value (median sample %.1f)", values, perValue, median)
	if median > 32 {
		t.Errorf("Next allocated %.1f bytes per value in a typical sample, over 32", median)
	}
	if perValue > 64 {
		t.Errorf("Next allocated %.1f bytes per value over the archive, over 64", perValue)
	}
}

// TestNextEqualsSampleInterpolated: the same over an archive read by
// interpolation (interp.Source embeds the Archive, whose FetchReused
// replays raw records: the Source must answer it with interpolation).
func TestNextEqualsSampleInterpolated(t *testing.T) {
	base, config := reuseArchive(t)
	ctx := context.Background()
	fresh := newReuseEvaluator(t, base, config, true)
	reused := newReuseEvaluator(t, base, config, true)
	for i := 0; ; i++ {
		want, werr := fresh.Sample(ctx)
		got, err := reused.Next(ctx)
		if (werr == nil) != (err == nil) {
			t.Fatalf("sample %d: Sample %v, Next %v", i, werr, err)
		}
		if err != nil {
			if i < 10 {
				t.Fatalf("only %d samples: %v", i, err)
			}
			return
		}
		if g, w := canonical(got), canonical(want); g != w {
			t.Fatalf("sample %d: Next gave\n%s\nSample gave\n%s", i, g, w)
		}
	}
}
