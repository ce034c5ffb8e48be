package checker

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// TestMetricNamesLayers: a chain of layered copies, each changed by
// random sets and removals and compacted now and then, answers as a plain
// map changed the same way, and no copy changes the one it was made from.
func TestMetricNamesLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// The names, made once: formatting them in every check was most of
	// this test's time under -race. The metric of names[i] is at index i
	// of the list.
	names := make([]string, 2000)
	metrics := make([]*Metric, len(names))
	for i := range names {
		names[i] = fmt.Sprint("m", i)
		metrics[i] = &Metric{Def: &grammar.Definition{Name: names[i]}}
	}
	x, want := newMetricNames(), map[string]*Metric{}
	x.listed(pvec.Of(metrics))
	for i := range 300 {
		x.set(names[i], i)
		want[names[i]] = metrics[i]
	}
	check := func(x MetricNames, want map[string]*Metric, step int) {
		t.Helper()
		if x.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, x.Len(), len(want))
		}
		got := map[string]*Metric{}
		for name, m := range x.All() {
			got[name] = m
		}
		if !maps.Equal(got, want) {
			t.Fatalf("step %d: All gives %d names, want %d", step, len(got), len(want))
		}
		for _, name := range names {
			m, ok := x.Lookup(name)
			if w, wok := want[name]; m != w || ok != wok {
				t.Fatalf("step %d: Lookup(%s) = %p %v, want %p %v", step, name, m, ok, w, wok)
			}
		}
	}
	compacted := 0
	for step := range 3000 {
		prev, prevWant := x, maps.Clone(want)
		x = x.layered()
		for range 1 + rng.IntN(3) {
			k := rng.IntN(len(names))
			if rng.IntN(3) == 0 {
				x.remove(names[k])
				delete(want, names[k])
			} else {
				x.set(names[k], k)
				want[names[k]] = metrics[k]
			}
		}
		if x = x.compact(); x.over == nil {
			compacted++
		}
		check(x, want, step)
		check(prev, prevWant, step) // unchanged by the copy's changes
	}
	if compacted == 0 {
		t.Error("the layer never grew past maxNameLayer: compact was not exercised")
	}
}
