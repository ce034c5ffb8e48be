package pmcd

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestFetchAllocations: a fetch on a warm connection allocates the result
// and its values, nothing per metric or per value (issue #18: 89
// allocations for 50 metrics, a map of value blocks among them). Against
// the test pmcd, as bench/pmcd.sh measures.
func TestFetchAllocations(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	src, err := os.ReadFile("../../bench/testdata/fetch50.names")
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(src))
	ctx := context.Background()
	c, err := New("127.0.0.1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pmids, _, err := c.LookupNames(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	values := 0
	allocs := testing.AllocsPerRun(50, func() {
		res, err := c.Fetch(ctx, pmids)
		if err != nil {
			t.Fatal(err)
		}
		values = 0
		for _, m := range res.Metrics {
			values += len(m.Values)
		}
	})
	// The Result, its metrics, one slab of values.
	if values < len(names) || allocs > 3 {
		t.Errorf("a fetch of %d metrics (%d values) cost %.1f allocations, want at most 3", len(pmids), values, allocs)
	}
}
