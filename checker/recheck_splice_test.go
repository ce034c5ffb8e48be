package checker

import (
	"math/rand/v2"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// TestReplaceMetrics: replacements put in place by runs of splices, few
// or many, near or far apart, across chunks, equal replacements made in
// a copy of the list, and leave the list they were made from as it was.
func TestReplaceMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{1, 10, 600, 5000} {
		for _, count := range []int{0, 1, 2, 7, 100} {
			if count > n {
				continue
			}
			orig := make([]*Metric, n)
			for i := range orig {
				orig[i] = &Metric{}
			}
			v := pvec.Of(orig)
			want := append([]*Metric(nil), orig...)
			var repl []metricAt
			for _, k := range rng.Perm(n)[:count] {
				m := &Metric{}
				want[k] = m
				repl = append(repl, metricAt{k, m})
			}
			got := replaceMetrics(v, repl).Collect()
			if len(got) != n {
				t.Fatalf("n=%d count=%d: %d metrics after", n, count, len(got))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("n=%d count=%d: metric %d not the one put there", n, count, i)
				}
			}
			for i, m := range v.All() {
				if m != orig[i] {
					t.Fatalf("n=%d count=%d: the earlier list changed at %d", n, count, i)
				}
			}
		}
	}
}
