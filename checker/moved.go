package checker

import (
	"math"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

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
	return !p.Before(ch.head) && p.Before(movedPos(ch.end, ch.dl))
}

// movedPos is p on the line dl lines further down; the end of the file
// (math.MaxInt32) stays where it is.
func movedPos(p grammar.Pos, dl int32) grammar.Pos {
	if p.Line != math.MaxInt32 {
		p.Line += dl
	}
	return p
}

func movedRange(r grammar.Range, dl int32) grammar.Range {
	return grammar.Range{Start: movedPos(r.Start, dl), End: movedPos(r.End, dl)}
}

// movedFinding is d about the same text dl lines further down: its
// range, its related places and its fixes' edits moved (new slices: d's
// are shared with the report it came from). Its message holds no line
// number (Recheck.movable says when one would).
func movedFinding(d grammar.Diagnostic, dl int32) grammar.Diagnostic {
	if dl == 0 {
		return d
	}
	d.Range = movedRange(d.Range, dl)
	if len(d.Related) > 0 {
		related := make([]grammar.Related, len(d.Related))
		for i, rel := range d.Related {
			rel.Range = movedRange(rel.Range, dl)
			related[i] = rel
		}
		d.Related = related
	}
	if len(d.Fixes) > 0 {
		fixes := make([]grammar.Fix, len(d.Fixes))
		for i, fx := range d.Fixes {
			edits := make([]grammar.Edit, len(fx.Edits))
			for k, e := range fx.Edits {
				e.Range = movedRange(e.Range, dl)
				edits[k] = e
			}
			fx.Edits = edits
			fixes[i] = fx
		}
		d.Fixes = fixes
	}
	return d
}

// movedFindings are diags moved by dl lines (diags itself when dl is 0).
func movedFindings(diags []grammar.Diagnostic, dl int32) []grammar.Diagnostic {
	if dl == 0 {
		return diags
	}
	for i := range diags {
		diags[i] = movedFinding(diags[i], dl)
	}
	return diags
}

// sameDefinition says whether b, read again, is a on the line dl lines
// further down: the same text, verdict and place but for the line, and
// the same syntax tree (a Memo shares it).
func sameDefinition(a, b *grammar.Definition, dl int32) bool {
	if a.Name != b.Name || a.Expr != b.Expr || a.Registered != b.Registered || a.Verdict != b.Verdict ||
		a.Line+dl != b.Line || movedRange(a.Range, dl) != b.Range || movedRange(a.NameRange, dl) != b.NameRange {
		return false
	}
	if !a.Registered {
		return true
	}
	ta, ea := a.Tree()
	tb, eb := b.Tree()
	return ta == tb && (ea == nil) == (eb == nil)
}
