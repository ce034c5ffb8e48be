package pmcd

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Benchmarks against the real pmcd; bench/pmcd.sh runs them next to libpcp
// doing the same work. $PCP_DERIVE_LSP_BENCH_HOST names the pmcd
// (default 127.0.0.1, over TCP as pminfo -h 127.0.0.1 talks to it).

func benchHost(b *testing.B) string {
	b.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		b.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if h := os.Getenv("PCP_DERIVE_LSP_BENCH_HOST"); h != "" {
		return h
	}
	return "127.0.0.1"
}

// wholePMNSMetadata is pminfo -d's work: every name pmcd serves, its PMID
// and its descriptor, on a fresh connection.
func wholePMNSMetadata(ctx context.Context, host string) (names int, descs []pmapi.Desc, err error) {
	c, err := New(host, Options{})
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	all, err := c.AllNames(ctx)
	if err != nil {
		return 0, nil, err
	}
	pmids, errs, err := c.LookupNames(ctx, all)
	if err != nil {
		return 0, nil, err
	}
	found := pmids[:0]
	for i, id := range pmids {
		if errs[i] == nil {
			found = append(found, id)
		}
	}
	descs, _, err = c.Descs(ctx, found)
	return len(all), descs, err
}

// BenchmarkWholePMNSMetadata: connect, one PMNS traverse, the names'
// PMIDs and every descriptor (bench/pmcd.sh: against pminfo -d).
func BenchmarkWholePMNSMetadata(b *testing.B) {
	host := benchHost(b)
	ctx := context.Background()
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		names, descs, err := wholePMNSMetadata(ctx, host)
		if err != nil {
			b.Fatal(err)
		}
		if len(descs) < 1000 {
			b.Fatalf("only %d descriptors for %d names", len(descs), names)
		}
		n = names
	}
	b.ReportMetric(float64(n), "names")
}

// BenchmarkFetch50: one fetch round trip of the 50 metrics in
// bench/testdata/fetch50.names on a warm connection, values decoded. The
// comparison with libpcp's pmFetch of the same PMIDs is bench/fetchpair's
// (bench/pmcd.sh); this is the quick figure, and its allocations.
func BenchmarkFetch50(b *testing.B) {
	host := benchHost(b)
	src, err := os.ReadFile("../../bench/testdata/fetch50.names")
	if err != nil {
		b.Fatal(err)
	}
	names := strings.Fields(string(src))
	ctx := context.Background()
	c, err := New(host, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	pmids, errs, err := c.LookupNames(ctx, names)
	if err != nil {
		b.Fatal(err)
	}
	for i, e := range errs {
		if e != nil {
			b.Fatalf("%s: %v", names[i], e)
		}
	}
	// The first fetch also looks the descriptors up, and the first few
	// after it run cold: bench/lib/pmfetch.py fetches 20 times before it
	// starts its clock, and so do we.
	for range 20 {
		if _, err := c.Fetch(ctx, pmids); err != nil {
			b.Fatal(err)
		}
	}
	values := 0
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Fetch(ctx, pmids)
		if err != nil {
			b.Fatal(err)
		}
		values = 0
		for _, m := range res.Metrics {
			values += len(m.Values)
		}
	}
	b.ReportMetric(float64(len(pmids)), "metrics")
	b.ReportMetric(float64(values), "values")
}
