// Package slab allocates many values of one type a run at a time: an
// edit that moves every definition and metric after it (an Enter at line
// 50,000 of 100,000) copies each to a new value, and one allocation per
// copy was most of what the edit cost the allocator and the collector.
package slab

// runLen is how many values one allocation holds. A run is kept alive
// while any of its values is, so a later edit that replaces some of a
// run's values leaves the rest held: at most one run per place where
// successive edits' copies meet, 128 values.
const runLen = 128

// Slab hands out new zero values of T, and short slices of them, from
// runs of up to runLen. The zero Slab is ready; it is not safe for
// concurrent use.
type Slab[T any] struct {
	run  []T
	left int // values still to be asked for, to size the last run
}

// For is a Slab for about n values: its runs are no longer than needed.
func For[T any](n int) Slab[T] { return Slab[T]{left: n} }

// New is a pointer to a new zero T.
func (s *Slab[T]) New() *T {
	if len(s.run) == 0 {
		n := runLen
		if s.left > 0 && s.left < n {
			n = s.left
		}
		s.run = make([]T, n)
	}
	p := &s.run[0]
	s.run = s.run[1:]
	s.left--
	return p
}

// Make is a slice of n new zero Ts, of capacity n (an append to it
// reaches no other's values): from the current run when n is short, or
// an allocation of its own.
func (s *Slab[T]) Make(n int) []T {
	if n == 0 {
		return []T{} // as make([]T, 0): empty, not nil
	}
	if n > runLen/8 {
		return make([]T, n)
	}
	if len(s.run) < n {
		s.run = make([]T, runLen)
	}
	out := s.run[:n:n]
	s.run = s.run[n:]
	s.left -= n
	return out
}
