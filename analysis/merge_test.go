package analysis

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// TestMergedFindings: the findings of two lists, read one by one or as
// one list, are what a stable sort of one after the other gives, for
// sorted lists (merged as they are read, ties included, over several of
// the checker list's chunks) and unsorted ones (a capped read's
// stand-ins come last).
func TestMergedFindings(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	list := func(n int, sorted bool, tag string) []grammar.Diagnostic {
		out := make([]grammar.Diagnostic, n)
		for i := range out {
			out[i] = grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(rng.IntN(6) + 1), Col: int32(rng.IntN(3) + 1)}}, Code: tag, Message: string(rune('a' + i%26))}
		}
		if sorted {
			sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Before(out[j].Range.Start) })
		}
		return out
	}
	for trial := range 2000 {
		sortedA, sortedB := trial%4 != 0, trial%5 != 0
		size := 8
		if trial%50 == 0 {
			size = 3000 // the checker's list in several chunks
		}
		a, b := list(rng.IntN(size), sortedA, "a"), list(rng.IntN(size), sortedB, "b")
		want := append(append([]grammar.Diagnostic{}, a...), b...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].Range.Start.Before(want[j].Range.Start) })
		f := mergedFindings(a, pvec.Of(b), Findings{})
		var read []grammar.Diagnostic
		for d := range f.All() {
			read = append(read, *d)
		}
		for _, got := range [][]grammar.Diagnostic{f.Slice(), read} {
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("trial %d:\na    %v\nb    %v\ngot  %v\nwant %v", trial, a, b, got, want)
			}
		}
		if f.Len() != len(want) {
			t.Fatalf("trial %d: Len %d, want %d", trial, f.Len(), len(want))
		}
	}
}

// TestMergedFindingsAfterSplice: a checked list spliced from a sorted one
// (an edit's) is compared only where it differs from it, and is still
// found out of order when the splice put a finding before its
// neighbour's position, at either side of it.
func TestMergedFindingsAfterSplice(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	at := func(line int) grammar.Diagnostic {
		return grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(line), Col: 1}}, Code: "b"}
	}
	base := make([]grammar.Diagnostic, 3000) // in several chunks and groups
	for i := range base {
		base[i] = at(2*i + 2)
	}
	sorted := pvec.Of(base)
	for trial := range 500 {
		from := rng.IntN(len(base))
		to := min(len(base), from+rng.IntN(3))
		line := 2*from + 1 + rng.IntN(3) // in order between its neighbours
		if trial%3 == 0 {
			line = 2*from + 2 + 2*(to-from) + rng.IntN(6) + 1 // past the next one: out of order
		}
		if trial%5 == 0 {
			line = 2*from - rng.IntN(6) - 1 // before the one before
		}
		b := sorted.Splice(from, to, []grammar.Diagnostic{at(line)})
		want := b.Collect()
		inOrder := sort.SliceIsSorted(want, func(i, j int) bool { return want[i].Range.Start.Before(want[j].Range.Start) })
		sort.SliceStable(want, func(i, j int) bool { return want[i].Range.Start.Before(want[j].Range.Start) })
		f := mergedFindings(nil, b, Findings{b: sorted})
		if got := f.Slice(); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (splice [%d, %d) of line %d): the findings are not in order", trial, from, to, line)
		}
		if held := f.b.Len() > 0; held != inOrder {
			t.Fatalf("trial %d (splice [%d, %d) of line %d): held as it is %v, in order %v", trial, from, to, line, held, inOrder)
		}
	}
}
