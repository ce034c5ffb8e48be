package web

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// BenchmarkWindow: a definition's trace over the archive in
// $PCP_DERIVE_LSP_BENCH_ARCHIVE (bench/web.sh records 10,000 records),
// read whole, and its view with every series written as JSON: what the
// server does for the page's first answer.
func BenchmarkWindow(b *testing.B) {
	base := os.Getenv("PCP_DERIVE_LSP_BENCH_ARCHIVE")
	if base == "" {
		b.Skip("PCP_DERIVE_LSP_BENCH_ARCHIVE is not set (bench/web.sh sets it)")
	}
	a, err := archive.Open(base)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	in := analysis.Buffer("bench.conf", []byte("bench.window = sample.bin * 2 + rate(sample.seconds) + matchinst(/bin-[1-3]00/, sample.bin)\n"))
	res := analysis.Run(ctx, []analysis.Input{in}, analysis.Config{Version: analysis.VersionChoice{Version: pcpver.V7_2_2}, Source: a}, analysis.Options{})
	m, ok := res.Report.ByName.Lookup("bench.window")
	if !ok {
		b.Fatal("bench.window is not registered")
	}
	t := explain.Target{Report: res.Report, Metric: m, Replayed: true}
	for b.Loop() {
		tr, err := recordArchive(ctx, a, t, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		v, err := tr.view(ctx, -1, true)
		if err != nil {
			b.Fatal(err)
		}
		if err := v.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(tr.Window().Samples), "samples")
	}
}
