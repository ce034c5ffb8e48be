package evaluator

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// BenchmarkEvalArchive evaluates every definition of a config over every
// record of an archive, as bench/eval.sh has libpcp do it (pmLoadDerivedConfig,
// then pmFetch of every derived metric record after record): open the
// archive, parse, check and bind the config, then one Next (Sample into
// reused memory) per record. B/value is everything allocated (open,
// parse, check, replay) over the values evaluated.
// $PCP_DERIVE_LSP_BENCH_ARCHIVE is the archive (its base name) and
// $PCP_DERIVE_LSP_BENCH_CONFIG the config (default
// bench/testdata/eval1000.conf).
func BenchmarkEvalArchive(b *testing.B) {
	base := os.Getenv("PCP_DERIVE_LSP_BENCH_ARCHIVE")
	if base == "" {
		b.Skip("set PCP_DERIVE_LSP_BENCH_ARCHIVE to an archive (bench/eval.sh does)")
	}
	confPath := os.Getenv("PCP_DERIVE_LSP_BENCH_CONFIG")
	if confPath == "" {
		confPath = "../bench/testdata/eval1000.conf"
	}
	text, err := os.ReadFile(confPath)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	records, metrics, values := 0, 0, 0
	var replay time.Duration
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		a, err := archive.Open(base)
		if err != nil {
			b.Fatal(err)
		}
		f := grammar.ParseConfig(confPath, text, grammar.Options{Version: pcpver.V6_0_3})
		rep, err := checker.Check(ctx, []*grammar.File{f}, a, checker.Options{Version: pcpver.V6_0_3})
		if err != nil {
			b.Fatal(err)
		}
		ev, err := New(ctx, a, rep)
		if err != nil {
			b.Fatal(err)
		}
		metrics = len(ev.Metrics())
		records, values = 0, 0
		start := time.Now()
		for {
			s, err := ev.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			records++
			for _, r := range s.Results {
				values += len(r.Values)
			}
		}
		replay += time.Since(start)
	}
	b.ReportMetric(float64(replay.Nanoseconds())/float64(b.N), "replay-ns/op")
	b.ReportMetric(float64(metrics), "metrics")
	b.ReportMetric(float64(records), "records")
	b.ReportMetric(float64(values), "values")
	runtime.ReadMemStats(&after)
	if values > 0 {
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(values), "B/value")
	}
}
