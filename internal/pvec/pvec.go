// Package pvec is an immutable list that an edit copies in part: a
// document's definitions and metrics, of which a keystroke replaces one
// or two out of a hundred thousand.
package pvec

import (
	"iter"
	"slices"
	"sort"
	"unsafe"
)

// chunkLen is the length chunks of word-sized elements (pointers) are
// cut to, and groupLen the number of chunks groups are cut to: a splice
// copies the chunks it touches, the index of their group and the
// per-group index, so about 2×chunkLen + 2×groupLen +
// n/(chunkLen×groupLen) words for n elements. With one level of
// 512-element chunks, a splice of 100,000 copied 10 KB, most of it the
// per-chunk index, twice a keystroke.
const (
	chunkLen = 128
	groupLen = 32
)

// chunkBytes is the size chunks are cut to (chunkLen words), and
// fewestChunkLen the fewest elements a chunk of large ones is cut to: a
// splice copies its chunk, and 128 elements of a large type (a finding
// is 136 bytes) would be most of what a keystroke allocates, and the
// collector's work with it.
const (
	chunkBytes     = chunkLen * 8
	fewestChunkLen = 8
)

// chunkLenOf is the length chunks of T are cut to: chunkBytes of them,
// within fewestChunkLen and chunkLen elements.
func chunkLenOf[T any]() int {
	var zero T
	return max(fewestChunkLen, min(chunkLen, chunkBytes/max(1, int(unsafe.Sizeof(zero)))))
}

// minChunkLenOf and minGroupLen are the sizes below which a splice cuts a
// chunk, or makes a group, again with a neighbour: a quarter of what
// they are cut to.
func minChunkLenOf[T any]() int { return chunkLenOf[T]() / 4 }

const minGroupLen = groupLen / 4

// Vec is an immutable list of T held as chunks, in groups, which versions
// share: Splice makes a new Vec copying only the chunks the change
// touches and their groups' index. The zero Vec is empty. The elements
// themselves are not copied: a Vec of pointers shares what they point
// to. No chunk and no group is empty.
type Vec[T any] struct {
	groups []*group[T]
	ends   []int // ends[g]: the number of elements in groups[:g+1]
}

// group is a run of chunks, immutable: Vecs share it.
type group[T any] struct {
	chunks [][]T
	ends   []int // ends[c]: the number of elements in chunks[:c+1]
}

// Of holds s's elements as a Vec (copied: s may change afterwards).
func Of[T any](s []T) Vec[T] {
	var v Vec[T]
	v.appendGroups(appendChunks(nil, s), 0)
	return v
}

// appendChunks appends the elements of parts, in order, to chunks, in
// new chunks: every chunk has an array of its own. Chunks cut from one
// array would keep all of it alive while any of them is, and with it the
// elements a later splice replaced in the others (after a few thousand
// Enters, every version's moved definitions).
func appendChunks[T any](chunks [][]T, parts ...[]T) [][]T {
	n, size := 0, chunkLenOf[T]()
	for _, p := range parts {
		n += len(p)
	}
	for n > 0 {
		k := n
		if k > 2*size {
			k = size
		}
		chunk := make([]T, 0, k)
		for len(chunk) < k {
			take := min(k-len(chunk), len(parts[0]))
			chunk = append(chunk, parts[0][:take]...)
			if parts[0] = parts[0][take:]; len(parts[0]) == 0 {
				parts = parts[1:]
			}
		}
		chunks, n = append(chunks, chunk), n-k
	}
	return chunks
}

// appendGroups groups chunks, which start at element n of the list, and
// appends the groups to v's.
func (v *Vec[T]) appendGroups(chunks [][]T, n int) {
	for first := true; len(chunks) > 0; first = false {
		k := len(chunks)
		if k > 2*groupLen {
			k = groupLen
		}
		// A group's chunks are an array of its own: a group sharing one
		// with others would keep their chunks alive with it, the last
		// group too, whose part of the run's array is held with the
		// earlier groups' part before it. Only a group that is the whole
		// run takes the run's array.
		own := chunks[:k:k]
		if k < len(chunks) || !first {
			own = slices.Clone(own)
		}
		g := &group[T]{chunks: own, ends: make([]int, k)}
		size := 0
		for c, chunk := range g.chunks {
			size += len(chunk)
			g.ends[c] = size
		}
		n += size
		v.groups, v.ends, chunks = append(v.groups, g), append(v.ends, n), chunks[k:]
	}
}

// Len is the number of elements.
func (v Vec[T]) Len() int {
	if len(v.ends) == 0 {
		return 0
	}
	return v.ends[len(v.ends)-1]
}

// Shape is how v is held: the number of its groups and of its chunks.
// Tests hold a list made by many splices to about the shape Of gives the
// same elements: a long editing session must not leave it in crumbs.
func (v Vec[T]) Shape() (groups, chunks int) {
	for _, g := range v.groups {
		chunks += len(g.chunks)
	}
	return len(v.groups), chunks
}

// place names a chunk: group g's chunk c, whose first element is the
// list's element start.
type place struct{ g, c, start int }

// locate is the chunk holding element i (0 <= i < Len).
func (v Vec[T]) locate(i int) place {
	g := sort.SearchInts(v.ends, i+1)
	base := 0
	if g > 0 {
		base = v.ends[g-1]
	}
	grp := v.groups[g]
	c := sort.SearchInts(grp.ends, i-base+1)
	if c > 0 {
		base += grp.ends[c-1]
	}
	return place{g, c, base}
}

// chunk is the chunk p names.
func (v Vec[T]) chunk(p place) []T { return v.groups[p.g].chunks[p.c] }

// At is element i; it panics when i is out of range, as a slice does.
func (v Vec[T]) At(i int) T {
	if i < 0 || i >= v.Len() {
		panic("pvec: index out of range")
	}
	p := v.locate(i)
	return v.chunk(p)[i-p.start]
}

// All yields each index and element in order.
func (v Vec[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		i := 0
		for c := range v.Chunks() {
			for _, x := range c {
				if !yield(i, x) {
					return
				}
				i++
			}
		}
	}
}

// Values yields each element in order.
func (v Vec[T]) Values() iter.Seq[T] {
	return func(yield func(T) bool) {
		for c := range v.Chunks() {
			for _, x := range c {
				if !yield(x) {
					return
				}
			}
		}
	}
}

// Chunks yields the elements in order, a run at a time, as the Vec holds
// them: a loop over a long list indexes each run, where Values makes a
// call and a copy of each element. The runs are shared: the caller must
// not change them.
func (v Vec[T]) Chunks() iter.Seq[[]T] {
	return func(yield func([]T) bool) {
		for _, g := range v.groups {
			for _, c := range g.chunks {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// ChunksFrom is Chunks from element i on (0 <= i <= Len): the first run
// starts at i.
func (v Vec[T]) ChunksFrom(i int) iter.Seq[[]T] {
	return func(yield func([]T) bool) {
		if i < 0 || i > v.Len() {
			panic("pvec: index out of range")
		}
		if i == v.Len() {
			return
		}
		p := v.locate(i)
		for g := p.g; g < len(v.groups); g++ {
			chunks := v.groups[g].chunks
			if g == p.g {
				if !yield(chunks[p.c][i-p.start:]) {
					return
				}
				chunks = chunks[p.c+1:]
			}
			for _, c := range chunks {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// Slice is a copy of elements [from, to).
func (v Vec[T]) Slice(from, to int) []T {
	if from < 0 || to > v.Len() || from > to {
		panic("pvec: slice bounds out of range")
	}
	out := make([]T, 0, to-from)
	if from == to {
		return out
	}
	p := v.locate(from)
	for g := p.g; g < len(v.groups) && len(out) < to-from; g++ {
		chunks := v.groups[g].chunks
		if g == p.g {
			chunks = chunks[p.c:]
		}
		for _, c := range chunks {
			lo := max(0, from-p.start)
			hi := min(len(c), to-p.start)
			out = append(out, c[lo:hi]...)
			if p.start += len(c); len(out) == to-from {
				break
			}
		}
	}
	return out
}

// Collect is a copy of every element, in one slice.
func (v Vec[T]) Collect() []T { return v.Slice(0, v.Len()) }

// Search is the smallest index whose element satisfies f, or Len when
// none does, for an f false and then true along the list (as
// sort.Search).
func (v Vec[T]) Search(f func(T) bool) int {
	last := func(c []T) T { return c[len(c)-1] }
	g := sort.Search(len(v.groups), func(g int) bool { cs := v.groups[g].chunks; return f(last(cs[len(cs)-1])) })
	if g == len(v.groups) {
		return v.Len()
	}
	start := 0
	if g > 0 {
		start = v.ends[g-1]
	}
	grp := v.groups[g]
	c := sort.Search(len(grp.chunks), func(c int) bool { return f(last(grp.chunks[c])) })
	if c > 0 {
		start += grp.ends[c-1]
	}
	chunk := grp.chunks[c]
	return start + sort.Search(len(chunk), func(i int) bool { return f(chunk[i]) })
}

// SharedEnds is how many elements at v's start (head) and at its end
// (tail) are in chunks v shares with old, in the same places: for v made
// of old by Splices, the elements outside [head, Len-tail) are old's
// first head and last tail elements, as they were. It compares groups and
// chunks by identity, never elements, so that what an edit left alone is
// not read again: O(groups + chunks of a group). head+tail is at most
// both lists' lengths.
func (v Vec[T]) SharedEnds(old Vec[T]) (head, tail int) {
	n := min(v.Len(), old.Len())
	g, og := v.groups, old.groups
	for len(g) > 0 && len(og) > 0 && g[0] == og[0] {
		head += g[0].ends[len(g[0].ends)-1]
		g, og = g[1:], og[1:]
	}
	for len(g) > 0 && len(og) > 0 && g[len(g)-1] == og[len(og)-1] && head+tail < n {
		last := g[len(g)-1]
		tail += last.ends[len(last.ends)-1]
		g, og = g[:len(g)-1], og[:len(og)-1]
	}
	// The chunks of the groups left, from either end (an edit's one or
	// two groups: on the stack).
	var cs, ocs [4 * groupLen][]T
	c, oc := cs[:0], ocs[:0]
	for _, grp := range g {
		c = append(c, grp.chunks...)
	}
	for _, grp := range og {
		oc = append(oc, grp.chunks...)
	}
	same := func(a, b []T) bool { return len(a) == len(b) && &a[0] == &b[0] }
	for len(c) > 0 && len(oc) > 0 && same(c[0], oc[0]) {
		head += len(c[0])
		c, oc = c[1:], oc[1:]
	}
	for len(c) > 0 && len(oc) > 0 && same(c[len(c)-1], oc[len(oc)-1]) {
		tail += len(c[len(c)-1])
		c, oc = c[:len(c)-1], oc[:len(oc)-1]
	}
	head = min(head, n)
	return head, min(tail, n-head)
}

// Splice is the list with elements [from, to) replaced by with's (copied:
// with may change afterwards). It copies the chunks holding
// from and to, the index of their groups, and the per-group index; every
// other chunk and group is shared. What is left of those chunks, when
// small, is cut again with a neighbour chunk, and a group left with few
// chunks made again with a neighbour group, so that no run of splices
// leaves a chunk under a quarter of its length next to another: at most
// about four times the chunks and groups Of makes of the list (deleting
// three quarters of each chunk), about twice for random deletions
// (TestSplicesKeepShape).
func (v Vec[T]) Splice(from, to int, with []T) Vec[T] {
	n := v.Len()
	if from < 0 || to > n || from > to {
		panic("pvec: splice bounds out of range")
	}
	if from == to && len(with) == 0 {
		return v
	}
	if n == 0 {
		return Of(with)
	}
	// Chunks k..m hold [from, to): for an insertion, the chunk of from
	// (or the last chunk, at the end).
	var k place
	if from < n {
		k = v.locate(from)
	} else {
		k = v.locate(n - 1)
	}
	m := k
	if to > from {
		m = v.locate(to - 1)
	}
	kc, mc := v.chunk(k), v.chunk(m)
	gk, gm := v.groups[k.g], v.groups[m.g]
	// What is left of the chunks small (a deletion), a neighbour in
	// their group is cut again with it: else the deletions of a long
	// session leave the list in crumbs, chunks of a few elements each.
	var before, after []T
	if from-k.start+len(with)+m.start+len(mc)-to < minChunkLenOf[T]() {
		switch {
		case k.c > 0:
			before = gk.chunks[k.c-1]
		case m.c+1 < len(gm.chunks):
			after = gm.chunks[m.c+1]
		}
	}
	kFirst, mLast := k.c-min(1, len(before)), m.c+min(1, len(after))
	// Groups k.g to m.g are made again: the chunks of k's group before
	// it, the new ones, and those of m's group after it.
	run := make([][]T, 0, kFirst+(len(before)+from-k.start+len(with)+m.start+len(mc)-to+len(after))/chunkLenOf[T]()+2+len(gm.chunks)-mLast-1)
	run = append(run, gk.chunks[:kFirst]...)
	run = appendChunks(run, before, kc[:from-k.start], with, mc[to-m.start:], after)
	run = append(run, gm.chunks[mLast+1:]...)
	// So are groups left with few chunks, with a neighbour.
	gFirst, gLast := k.g, m.g
	if len(run) < minGroupLen {
		switch {
		case gFirst > 0:
			gFirst--
			run = append(slices.Clone(v.groups[gFirst].chunks), run...)
		case gLast+1 < len(v.groups):
			gLast++
			run = append(run, v.groups[gLast].chunks...)
		}
	}
	var out Vec[T]
	tail := len(v.groups) - gLast - 1
	out.groups = make([]*group[T], gFirst, gFirst+len(run)/groupLen+1+tail)
	out.ends = make([]int, gFirst, cap(out.groups))
	copy(out.groups, v.groups[:gFirst])
	copy(out.ends, v.ends[:gFirst])
	base := 0
	if gFirst > 0 {
		base = v.ends[gFirst-1]
	}
	out.appendGroups(run, base)
	shift := len(with) - (to - from)
	for g := gLast + 1; g < len(v.groups); g++ {
		out.groups, out.ends = append(out.groups, v.groups[g]), append(out.ends, v.ends[g]+shift)
	}
	return out
}

// Map is the list with the elements of [from, to) changed by f, which is
// given them a run at a time, in order: each run the part of one chunk in
// the range, in the new list's own copy of the chunk, to change in place
// (whole: the run is all of it). Map copies those chunks, once, each to an
// array of its own, and their groups' lists of chunks; every other chunk,
// and every index (the lengths do not change), is shared. An edit that
// moves the elements after it (an Enter moving the definitions below it a
// line) is a Splice of what it changed and a Map of what it moved, rather
// than a Splice given a moved copy of the tail, which copied the tail
// twice.
//
// A caller that makes new values for a whole chunk may make them in one
// array: the chunk, and the versions that share it, hold all of them;
// a later edit inside the chunk replaces some and keeps the others, and
// with them the array, but only the one (it makes its own values for the
// chunk it cuts, as a run that is not whole, one allocation each, and
// the chunks after it anew). So the arrays kept alive by values a later
// edit replaced are at most one a chunk, not one per edit.
func (v Vec[T]) Map(from, to int, f func(run []T, whole bool)) Vec[T] {
	if from < 0 || to > v.Len() || from > to {
		panic("pvec: map bounds out of range")
	}
	if from == to {
		return v
	}
	out := Vec[T]{groups: make([]*group[T], len(v.groups)), ends: v.ends}
	copy(out.groups, v.groups)
	g := sort.SearchInts(v.ends, from+1) // the group of from
	start := 0                           // its first element
	if g > 0 {
		start = v.ends[g-1]
	}
	for ; start < to; g++ {
		grp := v.groups[g]
		chunks := make([][]T, len(grp.chunks))
		copy(chunks, grp.chunks)
		for c, chunk := range grp.chunks {
			end := start + len(chunk)
			if end > from && start < to {
				own := make([]T, len(chunk))
				copy(own, chunk)
				lo, hi := max(from, start)-start, min(to, end)-start
				f(own[lo:hi], hi-lo == len(own))
				chunks[c] = own
			}
			start = end
		}
		out.groups[g] = &group[T]{chunks: chunks, ends: grp.ends}
	}
	return out
}

// Fresh hands out new values for a run that Map gives: taken from one
// array of the run's length when the run is a whole chunk, one allocation
// each when it is not (Map says why that bounds what replaced values keep
// alive).
type Fresh[T any] struct {
	array []T
}

// NewFresh is a Fresh for a run of n elements, whole or not.
func NewFresh[T any](n int, whole bool) Fresh[T] {
	if !whole {
		return Fresh[T]{}
	}
	return Fresh[T]{array: make([]T, 0, n)}
}

// New is a new zero value: the array's next, or an allocation of its own
// once the array is used up (or for a run that is not whole).
func (f *Fresh[T]) New() *T {
	if n := len(f.array); n < cap(f.array) {
		f.array = f.array[:n+1]
		return &f.array[n]
	}
	return new(T)
}

// Cursor reads a Vec's elements in order, one at a time, as a loop over
// Chunks does, for a walk along two lists at once: a Slice of each would
// copy them first.
type Cursor[T any] struct {
	v       Vec[T]
	g, c, k int // the next element: groups[g].chunks[c][k]
}

// From is a Cursor at element i (0 <= i <= Len).
func (v Vec[T]) From(i int) Cursor[T] {
	if i < 0 || i > v.Len() {
		panic("pvec: index out of range")
	}
	if i == v.Len() {
		return Cursor[T]{v: v, g: len(v.groups)}
	}
	p := v.locate(i)
	return Cursor[T]{v: v, g: p.g, c: p.c, k: i - p.start}
}

// More says whether an element is left to read.
func (cur *Cursor[T]) More() bool { return cur.g < len(cur.v.groups) }

// Next is the element at the cursor, which then moves to the one after
// it; it panics past the end, as a slice does.
func (cur *Cursor[T]) Next() T {
	if cur.g >= len(cur.v.groups) {
		panic("pvec: cursor past the end")
	}
	chunks := cur.v.groups[cur.g].chunks
	x := chunks[cur.c][cur.k]
	if cur.k++; cur.k == len(chunks[cur.c]) {
		cur.k = 0
		if cur.c++; cur.c == len(chunks) {
			cur.c, cur.g = 0, cur.g+1
		}
	}
	return x
}
