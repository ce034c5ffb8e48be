package analysis

import (
	"math/rand/v2"
	"reflect"
	"slices"
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

// TestFindingsSharedAndRange: what Shared says two versions' findings
// share at either end is theirs, alike, in order (the grammar's list
// edited or not, the checker's spliced, findings of both at the same
// positions); it finds all but the chunks an edit copied; and Range
// yields what All does from any index.
func TestFindingsSharedAndRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	at := func(line int, code string) grammar.Diagnostic {
		return grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(line), Col: 1}}, Code: code}
	}
	sorted := func(s []grammar.Diagnostic) []grammar.Diagnostic {
		sort.SliceStable(s, func(i, j int) bool { return s[i].Range.Start.Before(s[j].Range.Start) })
		return s
	}
	same := func(a, b *grammar.Diagnostic) bool { return a.Range == b.Range && a.Code == b.Code }
	all := func(f Findings) []*grammar.Diagnostic { return slices.Collect(f.All()) }
	for trial := range 300 {
		lines := 50 + rng.IntN(3000)
		var a, b []grammar.Diagnostic
		for range rng.IntN(lines / 4) {
			a = append(a, at(rng.IntN(lines), "a"))
		}
		for range rng.IntN(lines) {
			b = append(b, at(rng.IntN(lines), "b"))
		}
		old := Findings{a: sorted(a), b: pvec.Of(sorted(b))}
		// An edit of line l: the checker's findings of it replaced, and
		// (every other trial) the grammar's list made again with one
		// finding more there.
		l := rng.IntN(lines)
		from := old.b.Search(func(d grammar.Diagnostic) bool { return d.Range.Start.Line >= int32(l) })
		to := old.b.Search(func(d grammar.Diagnostic) bool { return d.Range.Start.Line > int32(l) })
		nb := old.b.Splice(from, to, []grammar.Diagnostic{at(l, "b"), at(l, "b2")}[:rng.IntN(3)])
		na := old.a
		if trial%2 == 0 {
			na = sorted(append(slices.Clone(old.a), at(l, "a2")))
		}
		f := Findings{a: na, b: nb}
		head, tail := f.Shared(old, same)
		got, was := all(f), all(old)
		if head+tail > min(len(got), len(was)) {
			t.Fatalf("trial %d: head %d + tail %d over %d and %d findings", trial, head, tail, len(got), len(was))
		}
		for k := range head {
			if !same(got[k], was[k]) {
				t.Fatalf("trial %d: finding %d of the head differs", trial, k)
			}
		}
		for k := range tail {
			if !same(got[len(got)-1-k], was[len(was)-1-k]) {
				t.Fatalf("trial %d: finding %d from the end differs", trial, k)
			}
		}
		// All but the edit's chunks (of 8 to 16 findings) and the
		// grammar's findings among them are found, in a long list.
		if unshared := len(got) - head - tail; old.b.Len() >= 1000 && unshared > len(got)/20 {
			t.Errorf("trial %d: %d of %d findings not found shared (edit of %d)", trial, unshared, len(got), to-from)
		}
		for range 5 {
			i := rng.IntN(len(got) + 1)
			k := i + rng.IntN(len(got)-i+1)
			if r := slices.Collect(f.Range(i, k)); !slices.Equal(r, got[i:k]) {
				t.Fatalf("trial %d: Range(%d, %d) differs from All's", trial, i, k)
			}
		}
	}
}
