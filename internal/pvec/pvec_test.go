package pvec

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// check compares every query of v with want, the same list as a slice.
func check(t *testing.T, v Vec[int], want []int) {
	t.Helper()
	if v.Len() != len(want) {
		t.Fatalf("Len %d, want %d", v.Len(), len(want))
	}
	for k, c := range v.chunks {
		if len(c) == 0 || len(c) > 2*chunkLen || cap(c) != len(c) {
			t.Fatalf("chunk %d: length %d, capacity %d", k, len(c), cap(c))
		}
	}
	for i, x := range want {
		if got := v.At(i); got != x {
			t.Fatalf("At(%d) = %d, want %d", i, got, x)
		}
	}
	if got := slices.Collect(v.Values()); !slices.Equal(got, want) && len(want) > 0 {
		t.Fatalf("Values differ")
	}
	n := 0
	for i, x := range v.All() {
		if i != n || x != want[i] {
			t.Fatalf("All yields %d, %d at %d", i, x, n)
		}
		n++
	}
	if !slices.Equal(v.Collect(), want) {
		t.Fatalf("Collect differs")
	}
	if len(want) > 0 {
		a := rand.IntN(len(want))
		b := a + rand.IntN(len(want)-a+1)
		if !slices.Equal(v.Slice(a, b), want[a:b]) {
			t.Fatalf("Slice(%d, %d) differs", a, b)
		}
	}
}

func TestSpliceEqualsSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 30 {
		want := make([]int, rng.IntN(3000))
		for i := range want {
			want[i] = i
		}
		v := Of(slices.Clone(want))
		check(t, v, want)
		next := 100000
		for step := range 200 {
			from := rng.IntN(len(want) + 1)
			to := from + rng.IntN(min(len(want)-from, []int{0, 1, 3, 2000}[rng.IntN(4)])+1)
			with := make([]int, []int{0, 1, 1, 2, 700}[rng.IntN(5)])
			for i := range with {
				with[i] = next
				next++
			}
			before, old := slices.Clone(want), v
			v = v.Splice(from, to, slices.Clone(with))
			want = slices.Concat(want[:from], with, want[to:])
			check(t, v, want)
			if step%20 == 0 {
				check(t, old, before) // the version before is unchanged
			}
		}
		_ = round
	}
}

func TestSearch(t *testing.T) {
	s := make([]int, 5000)
	for i := range s {
		s[i] = 2 * i
	}
	v := Of(s).Splice(100, 100, []int{199, 200, 201}) // still sorted
	all := v.Collect()
	for x := -1; x <= 10002; x += 7 {
		want := sort.SearchInts(all, x)
		if got := v.Search(func(y int) bool { return y >= x }); got != want {
			t.Fatalf("Search(>= %d) = %d, want %d", x, got, want)
		}
	}
	if got := (Vec[int]{}).Search(func(int) bool { return true }); got != 0 {
		t.Fatalf("empty: %d", got)
	}
}

// TestSpliceCopiesAChunk bounds what replacing one element of 100,000
// allocates: its chunk and the per-chunk index, not the list.
func TestSpliceCopiesAChunk(t *testing.T) {
	s := make([]*int, 100000)
	v := Of(s)
	x := 1
	allocs := testing.AllocsPerRun(20, func() { v.Splice(50000, 50001, []*int{&x}) })
	if allocs > 4 {
		t.Errorf("%.0f allocations a splice, want at most 4", allocs)
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			v.Splice(50000, 50001, []*int{&x})
		}
	})
	chunks := len(v.chunks)
	if limit := int64(3*chunkLen*8 + chunks*(24+8) + 512); res.AllocedBytesPerOp() > limit {
		t.Errorf("%d bytes a splice of %d elements, want at most %d", res.AllocedBytesPerOp(), v.Len(), limit)
	}
}
