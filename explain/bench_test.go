package explain

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// BenchmarkExplain explains one expression from a live pmcd: parse and
// check the definition, bind its operands (metadata cached after the
// first round), fetch once (twice for delta and rate), and analyse every
// node (explain-ns/op: all but the parse and check). bench/explain.sh sets the expression
// ($PCP_DERIVE_LSP_BENCH_EXPR, 50 nodes) and compares with libpcp
// fetching the same 50 subexpressions as derived metrics of their own.
// fetches/op is the fetches per explanation.
func BenchmarkExplain(b *testing.B) {
	expr := os.Getenv("PCP_DERIVE_LSP_BENCH_EXPR")
	if expr == "" {
		b.Skip("set PCP_DERIVE_LSP_BENCH_EXPR (bench/explain.sh does)")
	}
	host := os.Getenv("PCP_DERIVE_LSP_BENCH_HOST")
	if host == "" {
		host = "127.0.0.1"
	}
	client, err := pmcd.New(host, pmcd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	// Metadata from memory after the first round, as the language server
	// keeps it and as libpcp binds its derived metrics once.
	src := pmclient.NewCache(client)
	config := "bench.m = " + expr + "\n"
	fetches, nodes := 0, 0
	var explaining time.Duration
	b.ReportAllocs()
	for b.Loop() {
		rep := check(b, src, config, pcpver.V6_0_3)
		start := time.Now()
		x, err := Explain(context.Background(), src, Target{Report: rep, Metric: rep.ByName.Metric("bench.m")}, Options{})
		explaining += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if x.Root.Empty() {
			b.Fatalf("no values: %s", x.Root.Explanation())
		}
		fetches += x.Fetches
		nodes = 0
		walk(x.Root, func(*Node) { nodes++ })
	}
	b.ReportMetric(float64(fetches)/float64(b.N), "fetches/op")
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(explaining.Nanoseconds())/float64(b.N), "explain-ns/op")
}
