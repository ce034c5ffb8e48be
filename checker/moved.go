package checker

import "github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"

// changedLines are the lines of an edit as Recheck sees them: prev's
// definitions from head to end (positions in prev's text) were read
// again, and those from end on are prev's moved by dl lines (the lines
// the edit added, or removed when negative).
type changedLines struct {
	head, end grammar.Pos
	dl        int32
}

// holdsFresh says whether a fresh finding at p (in the new text) lies
// among the changed lines.
func (ch changedLines) holdsFresh(p grammar.Pos) bool {
	return !p.Before(ch.head) && p.Before(ch.end.MovedBy(ch.dl))
}

// movedFindings are diags moved by dl lines (diags itself when dl is 0).
func movedFindings(diags []grammar.Diagnostic, dl int32) []grammar.Diagnostic {
	mv := grammar.FindingMover{DL: dl}
	for i := range diags {
		diags[i] = mv.Move(diags[i])
	}
	return diags
}

// sameDefinition says whether b, read again, is a on the line dl lines
// further down: the same text, verdict and place but for the line, and
// the same syntax tree (a Memo shares it).
func sameDefinition(a, b *grammar.Definition, dl int32) bool {
	if a.Name != b.Name || a.Expr != b.Expr || a.Registered != b.Registered || a.Verdict != b.Verdict ||
		a.Line+dl != b.Line || a.Range.MovedBy(dl) != b.Range || a.NameRange.MovedBy(dl) != b.NameRange {
		return false
	}
	if !a.Registered {
		return true
	}
	ta, ea := a.Tree()
	tb, eb := b.Tree()
	return ta == tb && (ea == nil) == (eb == nil)
}
