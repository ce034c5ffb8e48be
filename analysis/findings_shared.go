package analysis

import (
	"iter"
	"sort"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// A publication of a document's findings (the protocol sends every one
// on every change) is the last one's JSON but for the findings an edit
// changed. Finding those by walking both lists read every finding, 2,500
// cache lines at 100,000 lines with 2% of them in error, on every
// keystroke. Shared and Range find them from the lists' structure
// instead: the checker's list by the chunks it shares with the last
// version's (pvec.Vec.SharedEnds), the grammar's by its array, and the
// merged order between the two by binary search.

// Shared is how many findings f has in common with old (the findings of
// an earlier version of the same document) at their start (head) and at
// their end (tail), in order: f's first head are old's first head, and
// its last tail old's last tail. same says whether two findings of the
// grammar's lists are alike, where the two lists are different arrays
// (an edit changed a syntax finding); the checker's lists are compared
// by identity only, so the findings of the chunks an edit copied are not
// found shared. head+tail is at most both lengths.
func (f Findings) Shared(old Findings, same func(a, b *grammar.Diagnostic) bool) (head, tail int) {
	n, m := f.Len(), old.Len()
	ha, ta := sharedLists(f.a, old.a, same)
	hb, tb := f.b.SharedEnds(old.b)
	if hb == f.b.Len() && hb == old.b.Len() {
		tb = hb // all of it, from either end
	}
	head = min(f.before(ha, hb), old.before(ha, hb))
	tail = min(f.after(ta, tb), old.after(ta, tb), min(n, m)-head)
	return head, tail
}

// sharedLists is how many findings a and b (grammar lists) have in
// common at their start and at their end: all, from either end, for the
// same array.
func sharedLists(a, b []grammar.Diagnostic, same func(a, b *grammar.Diagnostic) bool) (head, tail int) {
	n := min(len(a), len(b))
	if sameList(a, b) {
		return n, n // all of it, from either end
	}
	for head < n && same(&a[head], &b[head]) {
		head++
	}
	if head == n && len(a) == len(b) {
		return n, n
	}
	for tail < n-head && same(&a[len(a)-1-tail], &b[len(b)-1-tail]) {
		tail++
	}
	return head, tail
}

// aFirst says whether the grammar's finding x comes before the checker's
// y in f's order (at the same start, the grammar's first, as All).
func aFirst(x, y *grammar.Diagnostic) bool { return !y.Range.Start.Before(x.Range.Start) }

// before is the number of f's findings, in order, before the first that
// is not among a's first ha and b's first hb.
func (f Findings) before(ha, hb int) int {
	na, nb := len(f.a), f.b.Len()
	ha, hb = min(ha, na), min(hb, nb)
	switch {
	case ha == na && hb == nb:
		return na + nb
	case hb == nb || ha < na && aFirst(&f.a[ha], f.bAt(hb)):
		// a[ha] is the first: b's before it start before it.
		x := &f.a[ha]
		return ha + min(hb, f.bCount(func(d *grammar.Diagnostic) bool { return !aFirst(x, d) }))
	default:
		// b[hb] is the first: a's before it start with it or before.
		y := f.bAt(hb)
		return hb + min(ha, sort.Search(na, func(i int) bool { return !aFirst(&f.a[i], y) }))
	}
}

// after is the number of f's findings, in order, after the last that is
// not among a's last ta and b's last tb.
func (f Findings) after(ta, tb int) int {
	na, nb := len(f.a), f.b.Len()
	ta, tb = min(ta, na), min(tb, nb)
	switch {
	case ta == na && tb == nb:
		return na + nb
	case tb == nb || ta < na && !aFirst(&f.a[na-1-ta], f.bAt(nb-1-tb)):
		// a[na-1-ta] is the last: b's after it start with it or after.
		x := &f.a[na-1-ta]
		return ta + min(tb, nb-f.bCount(func(d *grammar.Diagnostic) bool { return !aFirst(x, d) }))
	default:
		// b[nb-1-tb] is the last: a's after it start after it.
		y := f.bAt(nb - 1 - tb)
		return tb + min(ta, na-sort.Search(na, func(i int) bool { return !aFirst(&f.a[i], y) }))
	}
}

// bAt is the checker's finding i.
func (f Findings) bAt(i int) *grammar.Diagnostic {
	for c := range f.b.ChunksFrom(i) {
		return &c[0]
	}
	return nil
}

// bCount is the number of the checker's findings, from the first, for
// which in holds (true and then false along the list).
func (f Findings) bCount(in func(*grammar.Diagnostic) bool) int {
	return sort.Search(f.b.Len(), func(i int) bool { return !in(f.bAt(i)) })
}

// Range yields findings [from, to) in order, reading no finding before
// from but the few a binary search does.
func (f Findings) Range(from, to int) iter.Seq[*grammar.Diagnostic] {
	return func(yield func(*grammar.Diagnostic) bool) {
		to = min(to, f.Len())
		if from >= to {
			return
		}
		// The checker's first finding at or after from, and the grammar's:
		// finding b[j] is at j plus the grammar's before it.
		a := f.a
		j := sort.Search(f.b.Len(), func(j int) bool {
			d := f.bAt(j)
			return j+sort.Search(len(a), func(i int) bool { return !aFirst(&a[i], d) }) >= from
		})
		i, left := from-j, to-from
		for c := range f.b.ChunksFrom(j) {
			for k := range c {
				d := &c[k]
				for ; i < len(a) && aFirst(&a[i], d); i++ {
					if left--; !yield(&a[i]) || left == 0 {
						return
					}
				}
				if left--; !yield(d) || left == 0 {
					return
				}
			}
		}
		for ; i < len(a); i++ {
			if left--; !yield(&a[i]) || left == 0 {
				return
			}
		}
	}
}
