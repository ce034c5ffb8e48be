package pvec

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
	"unsafe"
	"weak"
)

// check compares every query of v with want, the same list as a slice.
func check(t *testing.T, v Vec[int], want []int) {
	t.Helper()
	if v.Len() != len(want) {
		t.Fatalf("Len %d, want %d", v.Len(), len(want))
	}
	if len(v.ends) != len(v.groups) {
		t.Fatalf("%d groups, %d ends", len(v.groups), len(v.ends))
	}
	n := 0
	for g, grp := range v.groups {
		if len(grp.chunks) == 0 || len(grp.chunks) > 2*groupLen || len(grp.ends) != len(grp.chunks) {
			t.Fatalf("group %d: %d chunks, %d ends", g, len(grp.chunks), len(grp.ends))
		}
		size := 0
		for k, c := range grp.chunks {
			if len(c) == 0 || len(c) > 2*chunkLen || cap(c) != len(c) {
				t.Fatalf("group %d chunk %d: length %d, capacity %d", g, k, len(c), cap(c))
			}
			if size += len(c); grp.ends[k] != size {
				t.Fatalf("group %d chunk %d ends at %d, want %d", g, k, grp.ends[k], size)
			}
		}
		if n += size; v.ends[g] != n {
			t.Fatalf("group %d ends at %d, want %d", g, v.ends[g], n)
		}
	}
	stride := 1 // every element of a small list, a sample of a big one
	if len(want) > 4096 {
		stride = 5
	}
	for i := 0; i < len(want); i += stride {
		if got := v.At(i); got != want[i] {
			t.Fatalf("At(%d) = %d, want %d", i, got, want[i])
		}
	}
	if got := slices.Collect(v.Values()); !slices.Equal(got, want) && len(want) > 0 {
		t.Fatalf("Values differ")
	}
	n = 0
	for i, x := range v.All() {
		if i != n || x != want[i] {
			t.Fatalf("All yields %d, %d at %d", i, x, n)
		}
		n++
	}
	if !slices.Equal(v.Collect(), want) {
		t.Fatalf("Collect differs")
	}
	for _, i := range []int{0, len(want) / 3, len(want) - 1, len(want)} {
		if i < 0 {
			continue
		}
		var from []int
		for c := range v.ChunksFrom(i) {
			from = append(from, c...)
		}
		if !slices.Equal(from, want[i:]) && len(want) > i {
			t.Fatalf("ChunksFrom(%d) differs", i)
		}
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
		// Every sixth list is of several groups (chunkLen × groupLen
		// elements each).
		size, steps := 3000, 200
		if round%6 == 0 {
			size, steps = 5*chunkLen*groupLen, 25
		}
		want := make([]int, rng.IntN(size))
		for i := range want {
			want[i] = i
		}
		v := Of(slices.Clone(want))
		check(t, v, want)
		next := 100000
		for step := range steps {
			from := rng.IntN(len(want) + 1)
			// Big lists have big changes too, across groups.
			to := from + rng.IntN(min(len(want)-from, []int{0, 1, 3, 2000, size / 2}[rng.IntN(5)])+1)
			if rng.IntN(4) == 0 {
				to = len(want) // a new tail (Splice keeps it)
			}
			with := make([]int, []int{0, 1, 1, 2, 700, size / 5}[rng.IntN(6)])
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
	}
}

// TestSpliceLetsReplacedGo: after splices that keep some of a version's
// chunks, the elements they replaced are not kept alive through an array
// the kept chunks share (an Enter's moved tail, cut into chunks of one
// array, kept every older version's moved definitions alive).
func TestSpliceLetsReplacedGo(t *testing.T) {
	elems := func(n int) []*[64]byte {
		s := make([]*[64]byte, n)
		for i := range s {
			s[i] = new([64]byte)
		}
		return s
	}
	v := Of(elems(5000))
	v = v.Splice(10, v.Len(), elems(4990)) // a new tail
	gone := weak.Make(v.At(3000))
	v = v.Splice(1000, v.Len(), elems(4000)) // replaces it, keeps the tail's first chunks
	runtime.GC()
	if gone.Value() != nil {
		t.Errorf("an element a splice replaced is still alive")
	}
	runtime.KeepAlive(v)

	// Over several groups: the last one a list's run makes must not hold
	// the run's array with the earlier groups' chunks in it.
	v = Of(elems(3 * chunkLen * groupLen)) // a group of 32 chunks, then one of 64
	gone = weak.Make(v.At(5))
	v = v.Splice(0, chunkLen, elems(chunkLen)) // the first chunk replaced
	runtime.GC()
	if gone.Value() != nil {
		t.Errorf("an element a splice replaced is still alive through the last group's array")
	}
	runtime.KeepAlive(v)
}

// TestSpliceCopiesWith: a Vec keeps copies of what it is given, so the
// caller's slice may change.
func TestSpliceCopiesWith(t *testing.T) {
	v := Of(make([]int, 100000))
	tail := make([]int, 50000)
	w := v.Splice(50003, v.Len(), tail)
	tail[7] = 42
	if w.At(50010) != 0 {
		t.Errorf("the Vec shares the slice it was given")
	}
	check(t, w, make([]int, 100003))
}

func TestSearch(t *testing.T) {
	s := make([]int, 5*chunkLen*groupLen) // several groups
	for i := range s {
		s[i] = 2 * i
	}
	v := Of(s).Splice(100, 100, []int{199, 200, 201}) // still sorted
	all := v.Collect()
	for x := -1; x <= 2*len(s)+2; x += 7 {
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
// allocates: its chunk, its group's index and the per-group index, not
// the list.
func TestSpliceCopiesAChunk(t *testing.T) {
	s := make([]*int, 100000)
	v := Of(s)
	x := 1
	allocs := testing.AllocsPerRun(20, func() { v.Splice(50000, 50001, []*int{&x}) })
	// The chunk, its group's chunks, the group and its index (twice when
	// the group is cut in two), the groups and their index.
	if allocs > 8 {
		t.Errorf("%.0f allocations a splice, want at most 8", allocs)
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			v.Splice(50000, 50001, []*int{&x})
		}
	})
	if limit := int64(3*chunkLen*8 + 2*groupLen*(24+8) + len(v.groups)*(8+8) + 512); res.AllocedBytesPerOp() > limit {
		t.Errorf("%d bytes a splice of %d elements, want at most %d", res.AllocedBytesPerOp(), v.Len(), limit)
	}
}

// TestSplicesKeepShape: a long run of small splices that deletes most of
// a list (an editing session deleting lines one by one) leaves it in at
// most about twice the groups and chunks Of makes of the same elements,
// not in the chunks it started with, a few elements each.
func TestSplicesKeepShape(t *testing.T) {
	for _, keep := range []int{8500, 1700, 200} {
		rnd := rand.New(rand.NewPCG(39, uint64(keep)))
		want := make([]int, 17000)
		for i := range want {
			want[i] = i
		}
		v := Of(want)
		for next := len(want); len(want) > keep; next++ {
			from := rnd.IntN(len(want))
			to := min(len(want), from+1+rnd.IntN(3))
			with := []int{}
			if rnd.IntN(4) == 0 {
				with = append(with, next)
			}
			v = v.Splice(from, to, with)
			want = slices.Concat(want[:from], with, want[to:])
		}
		check(t, v, want)
		g, c := v.Shape()
		fg, fc := Of(want).Shape()
		if g > 2*fg+1 || c > 2*fc+1 {
			t.Errorf("%d elements left: %d groups and %d chunks, Of makes %d and %d", keep, g, c, fg, fc)
		}
	}
}

// TestSharedEnds: the elements outside a splice's chunks are found
// shared, at both ends, and what SharedEnds says is shared is old's.
func TestSharedEnds(t *testing.T) {
	s := make([]int, 5*chunkLen*groupLen) // several groups
	for i := range s {
		s[i] = i
	}
	old := Of(s)
	for _, c := range []struct{ from, to, ins int }{
		{0, 0, 1}, {0, 1, 0}, {100, 101, 1}, {len(s) / 2, len(s)/2 + 3, 1}, {len(s) - 1, len(s), 0}, {len(s), len(s), 2}, {10, len(s) - 10, 0},
	} {
		v := old.Splice(c.from, c.to, make([]int, c.ins))
		head, tail := v.SharedEnds(old)
		if head > c.from || tail > len(s)-c.to {
			t.Fatalf("splice [%d, %d) of %d: head %d, tail %d overlap it", c.from, c.to, c.ins, head, tail)
		}
		// Only the splice's own chunks (and their group, cut again) are
		// not shared.
		if unshared := v.Len() - head - tail; unshared > 2*chunkLen*groupLen+c.ins {
			t.Errorf("splice [%d, %d) of %d: %d elements not found shared", c.from, c.to, c.ins, unshared)
		}
		if !slices.Equal(v.Slice(0, head), s[:head]) || !slices.Equal(v.Slice(v.Len()-tail, v.Len()), s[len(s)-tail:]) {
			t.Fatalf("splice [%d, %d): the ends said shared differ", c.from, c.to)
		}
	}
	if head, tail := old.SharedEnds(old); head != len(s) || tail != 0 {
		t.Errorf("a list and itself: head %d tail %d, want %d and 0", head, tail, len(s))
	}
	if head, tail := old.SharedEnds(Of(s)); head != 0 || tail != 0 {
		t.Errorf("two lists of the same elements: head %d tail %d, want 0 and 0", head, tail)
	}
	if allocs := testing.AllocsPerRun(10, func() { old.Splice(500, 501, nil).SharedEnds(old) }) - testing.AllocsPerRun(10, func() { old.Splice(500, 501, nil) }); allocs > 0 {
		t.Errorf("SharedEnds allocated %.0f times", allocs)
	}
}

// TestSpliceCopiesAChunkOfLargeElements: a list of large elements (a
// finding is 136 bytes) is cut into chunks of about chunkBytes, so that a
// splice copies that much, not chunkLen of them.
func TestSpliceCopiesAChunkOfLargeElements(t *testing.T) {
	type finding [17]int64 // 136 bytes
	v := Of(make([]finding, 2500))
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			v.Splice(1250, 1251, []finding{{1}})
		}
	})
	if limit := int64(3*chunkBytes + 2*groupLen*(24+8) + len(v.groups)*(8+8) + 512); res.AllocedBytesPerOp() > limit {
		t.Errorf("%d bytes a splice of one %d-byte element in %d, want at most %d", res.AllocedBytesPerOp(), unsafe.Sizeof(finding{}), v.Len(), limit)
	}
	check := slices.Collect(v.Splice(1250, 1251, []finding{{1}}).Values())
	if len(check) != 2500 || check[1250][0] != 1 || check[1249][0] != 0 {
		t.Errorf("the splice's list is wrong")
	}
}

// TestMap: Map changes exactly the elements in its range, in order, a
// chunk's part at a time, and shares the chunks outside it.
func TestMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	s := make([]int, 3*chunkLen*groupLen+77)
	for i := range s {
		s[i] = i
	}
	v := Of(s).Splice(1000, 1003, []int{-1, -2, -3, -4, -5}) // uneven chunks
	want := v.Collect()
	chunkAt := map[int]int{} // the length of the chunk starting at each index
	start := 0
	for c := range v.Chunks() {
		chunkAt[start], start = len(c), start+len(c)
	}
	for range 50 {
		from := rng.IntN(v.Len() + 1)
		to := from + rng.IntN(v.Len()-from+1)
		next := from
		w := v.Map(from, to, func(run []int, whole bool) {
			if len(run) == 0 || len(run) > 2*chunkLen || whole != (chunkAt[next] == len(run)) {
				t.Fatalf("Map(%d, %d) gave a run of %d at %d, whole %v", from, to, len(run), next, whole)
			}
			for i, x := range run {
				if x != want[next] {
					t.Fatalf("Map(%d, %d) gave %d at %d, want %d", from, to, x, next, want[next])
				}
				run[i] += 1_000_000
				next++
			}
		})
		if next != to {
			t.Fatalf("Map(%d, %d) called f %d times", from, to, next-from)
		}
		moved := slices.Clone(want)
		for i := from; i < to; i++ {
			moved[i] += 1_000_000
		}
		check(t, w, moved)
		check(t, v, want) // v is unchanged
		start = 0
		for g, grp := range v.groups {
			for c, chunk := range grp.chunks {
				end := start + len(chunk)
				copied := &chunk[0] != &w.groups[g].chunks[c][0]
				if inside := end > from && start < to; copied != inside {
					t.Fatalf("Map(%d, %d): chunk [%d, %d) copied %v", from, to, start, end, copied)
				}
				start = end
			}
		}
	}
}

// TestFresh: a whole run's values are one array, of the run's length; a
// part's are allocations of their own, as are any past the length.
func TestFresh(t *testing.T) {
	whole := NewFresh[[4]int](3, true)
	a, b, c := whole.New(), whole.New(), whole.New()
	if &whole.array[0] != a || &whole.array[2] != c || b == a || b == c {
		t.Errorf("a whole run's values are not its array's elements")
	}
	if d := whole.New(); d == &whole.array[0] || d == &whole.array[1] || d == &whole.array[2] {
		t.Errorf("a value past the run's length reuses its array")
	}
	part := NewFresh[[4]int](3, false)
	if part.New() == part.New() || part.array != nil {
		t.Errorf("a part's values share an array")
	}
}

// TestCursor: a Cursor from any index reads the elements from there in
// order, across chunks and groups, and panics past the end.
func TestCursor(t *testing.T) {
	s := make([]int, 3*chunkLen*groupLen+5)
	for i := range s {
		s[i] = i
	}
	v := Of(s).Splice(700, 705, []int{-1}) // uneven chunks
	want := v.Collect()
	for _, from := range []int{0, 1, chunkLen - 1, chunkLen, 699, 700, chunkLen * groupLen, v.Len() - 1, v.Len()} {
		cur := v.From(from)
		for i := from; i < v.Len(); i++ {
			if !cur.More() {
				t.Fatalf("From(%d): no more at %d", from, i)
			}
			if got := cur.Next(); got != want[i] {
				t.Fatalf("From(%d): element %d is %d, want %d", from, i, got, want[i])
			}
		}
		if cur.More() {
			t.Errorf("From(%d): more past the end", from)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("From(%d): no panic past the end", from)
				}
			}()
			cur.Next()
		}()
	}
}
