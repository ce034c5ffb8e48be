package slab

import "testing"

// TestNewIsFreshAndBatched: every value is a distinct zero value, and
// 1,000 of them take a few allocations, no more than asked for.
func TestNewIsFreshAndBatched(t *testing.T) {
	seen := map[*int]bool{}
	s := For[int](1000)
	for i := range 1000 {
		p := s.New()
		if seen[p] || *p != 0 {
			t.Fatalf("value %d: reused or not zero", i)
		}
		seen[p] = true
		*p = i + 1
	}
	allocs := testing.AllocsPerRun(10, func() {
		s := For[[4]int](1000)
		for range 1000 {
			s.New()
		}
	})
	if want := float64((1000 + runLen - 1) / runLen); allocs > want {
		t.Errorf("%.0f allocations for 1,000 values, want at most %.0f", allocs, want)
	}
	// A short last run: of 130 values, the 129th starts a run of 2.
	s = For[int](130)
	for range 129 {
		s.New()
	}
	if len(s.run) != 1 || cap(s.run) != 1 {
		t.Errorf("last run: %d left of capacity %d, want 1 of 1", len(s.run), cap(s.run))
	}
	var zero Slab[int] // without a count: full runs
	if p := zero.New(); *p != 0 || len(zero.run) != runLen-1 {
		t.Errorf("zero Slab: %d left in its run, want %d", len(zero.run), runLen-1)
	}
}

// TestMake: short slices come from shared runs without overlapping, each
// of its own capacity; a long one is allocated alone.
func TestMake(t *testing.T) {
	var s Slab[int]
	var all [][]int
	for i := range 200 {
		sl := s.Make(i%5 + 1)
		if cap(sl) != len(sl) {
			t.Fatalf("slice %d: capacity %d, length %d", i, cap(sl), len(sl))
		}
		for k := range sl {
			if sl[k] != 0 {
				t.Fatalf("slice %d not zero", i)
			}
			sl[k] = i
		}
		all = append(all, sl)
	}
	for i, sl := range all {
		for _, x := range sl {
			if x != i {
				t.Fatalf("slice %d overwritten by %d", i, x)
			}
		}
	}
	allocs := testing.AllocsPerRun(10, func() {
		var s Slab[[2]int]
		for range 1000 {
			s.Make(3)
		}
	})
	if allocs > 1000*3/runLen+1 {
		t.Errorf("%.0f allocations for 1,000 slices of 3", allocs)
	}
	if long := s.Make(runLen); len(long) != runLen || cap(long) != runLen {
		t.Errorf("a long slice: length %d", len(long))
	}
}
