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
// sorted, as one sorted list otherwise.
func mergedFindings(a []grammar.Diagnostic, b pvec.Vec[grammar.Diagnostic]) Findings {
	if sortedByPosition(a) && sortedChunks(b) {
		return Findings{a: a, b: b}
	}
	out := append(append(make([]grammar.Diagnostic, 0, len(a)+b.Len()), a...), b.Collect()...)
	sortByPosition(out)
	return Findings{a: out}
}

// sortedChunks is sortedByPosition of a Vec.
func sortedChunks(v pvec.Vec[grammar.Diagnostic]) bool {
	var last *grammar.Diagnostic
	for c := range v.Chunks() {
		if len(c) == 0 {
			continue
		}
		if last != nil && c[0].Range.Start.Before(last.Range.Start) || !sortedByPosition(c) {
			return false
		}
		last = &c[len(c)-1]
	}
	return true
}
