// Package pvec is an immutable list that an edit copies in part: a
// document's definitions and metrics, of which a keystroke replaces one
// or two out of a hundred thousand.
package pvec

import (
	"iter"
	"sort"
)

// chunkLen is the length chunks are cut to: a splice copies the chunks
// it touches and one entry a chunk, so about 2×chunkLen + n/chunkLen
// words for n elements (a slice copy was n).
const chunkLen = 512

// Vec is an immutable list of T held as chunks, which versions share:
// Splice makes a new Vec copying only the chunks the change touches. The
// zero Vec is empty. The elements themselves are not copied: a Vec of
// pointers shares what they point to.
type Vec[T any] struct {
	chunks [][]T
	ends   []int // ends[k]: the number of elements in chunks[:k+1]
}

// Of holds s as a Vec without a copy: s must not change afterwards.
func Of[T any](s []T) Vec[T] {
	var v Vec[T]
	v.chunks, v.ends = appendChunks(nil, nil, s, 0)
	return v
}

// appendChunks cuts s into chunks after n elements (sharing s's array,
// each chunk's capacity its length so no append reaches a neighbour).
func appendChunks[T any](chunks [][]T, ends []int, s []T, n int) ([][]T, []int) {
	for len(s) > 0 {
		k := len(s)
		if k > 2*chunkLen {
			k = chunkLen
		}
		chunks, ends = append(chunks, s[:k:k]), append(ends, n+k)
		n, s = n+k, s[k:]
	}
	return chunks, ends
}

// Len is the number of elements.
func (v Vec[T]) Len() int {
	if len(v.ends) == 0 {
		return 0
	}
	return v.ends[len(v.ends)-1]
}

// chunkOf is the chunk holding element i and the index of its first
// element.
func (v Vec[T]) chunkOf(i int) (k, start int) {
	k = sort.SearchInts(v.ends, i+1)
	if k > 0 {
		start = v.ends[k-1]
	}
	return k, start
}

// At is element i; it panics when i is out of range, as a slice does.
func (v Vec[T]) At(i int) T {
	if i < 0 || i >= v.Len() {
		panic("pvec: index out of range")
	}
	k, start := v.chunkOf(i)
	return v.chunks[k][i-start]
}

// All yields each index and element in order.
func (v Vec[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		i := 0
		for _, c := range v.chunks {
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
		for _, c := range v.chunks {
			for _, x := range c {
				if !yield(x) {
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
	k, start := v.chunkOf(from)
	for ; len(out) < to-from; k++ {
		c := v.chunks[k]
		lo := max(0, from-start)
		hi := min(len(c), to-start)
		out = append(out, c[lo:hi]...)
		start += len(c)
	}
	return out
}

// Collect is a copy of every element, in one slice.
func (v Vec[T]) Collect() []T { return v.Slice(0, v.Len()) }

// Search is the smallest index whose element satisfies f, or Len when
// none does, for an f false and then true along the list (as
// sort.Search).
func (v Vec[T]) Search(f func(T) bool) int {
	k := sort.Search(len(v.chunks), func(k int) bool { c := v.chunks[k]; return f(c[len(c)-1]) })
	if k == len(v.chunks) {
		return v.Len()
	}
	start := 0
	if k > 0 {
		start = v.ends[k-1]
	}
	c := v.chunks[k]
	return start + sort.Search(len(c), func(i int) bool { return f(c[i]) })
}

// Splice is the list with elements [from, to) replaced by with (which it
// keeps: with must not change afterwards). It copies the chunks holding
// from and to and the per-chunk index; every other chunk is shared.
func (v Vec[T]) Splice(from, to int, with []T) Vec[T] {
	n := v.Len()
	if from < 0 || to > n || from > to {
		panic("pvec: splice bounds out of range")
	}
	if from == to && len(with) == 0 {
		return v
	}
	// Chunks k..m hold [from, to): for an insertion, the chunk of from
	// (or the last chunk, at the end).
	k, kStart := v.chunkOf(from)
	if from == n && k > 0 {
		k--
		kStart -= len(v.chunks[k])
	}
	m, mStart := k, kStart
	if to > from {
		m, mStart = v.chunkOf(to - 1)
	}
	var joined []T
	if k < len(v.chunks) {
		joined = make([]T, 0, from-kStart+len(with)+mStart+len(v.chunks[m])-to)
		joined = append(joined, v.chunks[k][:from-kStart]...)
		joined = append(joined, with...)
		joined = append(joined, v.chunks[m][to-mStart:]...)
	} else {
		joined, m = with, k-1 // an empty list
	}
	var out Vec[T]
	tail := len(v.chunks) - m - 1
	out.chunks = make([][]T, k, k+len(joined)/chunkLen+1+tail)
	out.ends = make([]int, k, cap(out.chunks))
	copy(out.chunks, v.chunks[:k])
	copy(out.ends, v.ends[:k])
	out.chunks, out.ends = appendChunks(out.chunks, out.ends, joined, kStart)
	shift := len(with) - (to - from)
	for i := m + 1; i < len(v.chunks); i++ {
		out.chunks, out.ends = append(out.chunks, v.chunks[i]), append(out.ends, v.ends[i]+shift)
	}
	return out
}
