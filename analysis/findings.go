package analysis

import (
	"iter"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// Findings is a file's findings as the user is shown them (File.Findings),
// sorted by position. It holds the two lists they are made of, the
// grammar's and the checker's, and merges them as they are read, rather
// than copy them into one new list on every keystroke for a list the
// next keystroke replaces. When the shown
// findings are not those two lists as they are (a suppression comment or
// a rule dropped or changed some, or a list was out of order), it holds
// the one list made of them. The zero Findings is empty.
type Findings struct {
	// a and b are sorted by position; at the same start, a's finding
	// comes first (as a stable sort of a then b puts them).
	a []grammar.Diagnostic
	b pvec.Vec[grammar.Diagnostic]
}

// FindingsOf holds list, sorted by position, as Findings, without a copy:
// list must not change afterwards.
func FindingsOf(list []grammar.Diagnostic) Findings { return Findings{a: list} }

// Len is the number of findings.
func (f Findings) Len() int { return len(f.a) + f.b.Len() }

// All yields the findings in order of position. They are shared with f:
// the caller must not change them. (Pointers, not values: a finding is
// 136 bytes, and a publication reads 500 of them twice.)
func (f Findings) All() iter.Seq[*grammar.Diagnostic] {
	return func(yield func(*grammar.Diagnostic) bool) {
		a, i := f.a, 0
		for c := range f.b.Chunks() {
			for k := range c {
				d := &c[k]
				for ; i < len(a) && !d.Range.Start.Before(a[i].Range.Start); i++ {
					if !yield(&a[i]) {
						return
					}
				}
				if !yield(d) {
					return
				}
			}
		}
		for ; i < len(a); i++ {
			if !yield(&a[i]) {
				return
			}
		}
	}
}

// Slice is the findings in one list: shared with f when it holds one,
// a new one otherwise. The caller must not change it.
func (f Findings) Slice() []grammar.Diagnostic {
	switch {
	case f.b.Len() == 0:
		return f.a
	case len(f.a) == 0:
		return f.b.Collect()
	}
	out := make([]grammar.Diagnostic, 0, f.Len())
	for d := range f.All() {
		out = append(out, *d)
	}
	return out
}

// mergedFindings are the findings of two lists as libpcp produces them
// (each sorted by position, but for a capped read's or check's
// stand-ins, listed last), in order: held as they are when both are
// sorted, as one sorted list otherwise. base is the findings a and b
// were made of by an edit, when there are some (the last version's,
// whose lists are sorted): a list the edit left as it was is not
// compared again, and b only where it differs from base's.
func mergedFindings(a []grammar.Diagnostic, b pvec.Vec[grammar.Diagnostic], base Findings) Findings {
	if (sameList(a, base.a) || sortedByPosition(a)) && sortedSince(b, base.b) {
		return Findings{a: a, b: b}
	}
	out := append(append(make([]grammar.Diagnostic, 0, len(a)+b.Len()), a...), b.Collect()...)
	sortByPosition(out)
	return Findings{a: out}
}

// sameList says whether a and b are the same list (the same array, as
// the grammar keeps the findings of a file whose edit made none).
func sameList(a, b []grammar.Diagnostic) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sortedSince is sortedByPosition of a Vec made of base, a sorted Vec, by
// splices: the elements in the chunks v shares with base at both ends are
// in order, so only the rest is compared, and with the element before
// and the one after it. A keystroke at 100,000 lines with 2,500 findings
// compared them all, every one a cache line of its own.
func sortedSince(v, base pvec.Vec[grammar.Diagnostic]) bool {
	head, tail := v.SharedEnds(base)
	from, to := max(0, head-1), min(v.Len(), v.Len()-tail+1)
	if to-from < 2 {
		return true
	}
	var last *grammar.Diagnostic
	n := to - from
	for c := range v.ChunksFrom(from) {
		c = c[:min(len(c), n)]
		if len(c) == 0 {
			break
		}
		if last != nil && c[0].Range.Start.Before(last.Range.Start) || !sortedByPosition(c) {
			return false
		}
		last, n = &c[len(c)-1], n-len(c)
	}
	return true
}
