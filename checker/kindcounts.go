package checker

import (
	"iter"
	"maps"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// findingKind is what the cap on findings counts by (grammar.FindingCap):
// a code and a severity.
type findingKind struct {
	code string
	sev  grammar.Severity
}

// kindCounts are how many findings a report of one file has of each kind,
// kept per edit so that the cap (1,000 a code) is not counted again over
// every finding of the file on every keystroke. Immutable once made.
type kindCounts map[findingKind]int

// countKinds counts the findings of diags.
func countKinds(diags iter.Seq[grammar.Diagnostic]) kindCounts {
	n := kindCounts{}
	for d := range diags {
		n[findingKind{d.Code, d.Severity}]++
	}
	return n
}

// after is k with removed counted out and added in: a new map (there are
// a few dozen kinds at most).
func (k kindCounts) after(removed, added []grammar.Diagnostic) kindCounts {
	n := maps.Clone(k)
	for _, d := range removed {
		kind := findingKind{d.Code, d.Severity}
		if n[kind]--; n[kind] <= 0 {
			delete(n, kind)
		}
	}
	for _, d := range added {
		n[findingKind{d.Code, d.Severity}]++
	}
	return n
}

// OverCap reports whether the report's findings of its one file have more
// than limit of a code and severity, none counted as suppressed (what
// grammar.CapFindingsSeq asks, without a pass over them); known is false
// when the report has no such counts (a check of several files, or of
// findings with stand-ins for others).
func (r *Report) OverCap(limit int) (over, known bool) {
	if r.counts == nil {
		return false, false
	}
	for _, n := range r.counts {
		if n > limit {
			return true, true
		}
	}
	return false, true
}
