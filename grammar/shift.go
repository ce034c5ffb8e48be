package grammar

import (
	"math"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// How Reparse reuses the lines after an edit that added or removed lines
// (an Enter): what prev read of them is what a fresh read makes, a line
// further down (or up), since libpcp's state after the edited lines is the
// same (leavesSame). Positions hold lines, so the items are copied with
// their lines moved, rather than the lines read and parsed again: the
// copy costs a fraction of the read, and every API answers as a fresh
// read's would.

// spliceMoved makes f prev with what the edited lines made (f's own items
// and lineDefs) in place of what they made before, and prev's items after
// them moved by dl lines. sameTrees says each moved definition shares its
// syntax tree with its original (through the memo, or built already).
func spliceMoved(prev, f *File, a around, dl int32, lineDefs []*Definition) (sameTrees bool) {
	sameTrees = true
	zero := f.specZero
	if len(prev.specZero) > 0 {
		// Keyed by definition: the moved copies take their originals'
		// place (the edited lines have none: readLine).
		zero = make(map[*Definition]bool, len(prev.specZero))
		for _, d := range prev.Definitions.Slice(0, a.d0) {
			if prev.specZero[d] {
				zero[d] = true
			}
		}
	}
	spliced := prev.Definitions.Splice(a.d0, a.d1, lineDefs)
	f.Definitions = spliced.Map(a.d0+len(lineDefs), spliced.Len(), func(run []*Definition, whole bool) {
		// The copies of a whole chunk in one array (pvec.Map says why
		// that keeps no older version alive): an allocation each made
		// the collector's work most of an Enter's.
		moved := pvec.NewFresh[Definition](len(run), whole)
		for i, d := range run {
			if d.Registered && d.memo == nil && d.tree.p.Load() == nil {
				sameTrees = false // each would build its own
			}
			run[i] = d.movedBy(dl, moved.New())
			if prev.specZero[d] {
				zero[run[i]] = true
			}
		}
	})
	f.specZero = zero
	f.Attributes = spliceTail(prev.Attributes, a.ai, a.a1, f.Attributes, func(at *Attribute) *Attribute {
		m := new(Attribute)
		*m = *at
		m.Range, m.Line = m.Range.MovedBy(dl), m.Line+int(dl)
		return m
	})
	f.Comments = spliceTail(prev.Comments, a.c0, a.c1, f.Comments, func(r Range) Range { return r.MovedBy(dl) })
	mv := FindingMover{DL: dl}
	f.Diagnostics = spliceTail(prev.Diagnostics, a.g0, a.g1, f.Diagnostics, func(d Diagnostic) Diagnostic {
		return mv.movedSyntax(d, prev.Path)
	})
	return sameTrees
}

// spliceTail is prev with [i, k) replaced by line and the items from k on
// moved.
func spliceTail[T any](prev []T, i, k int, line []T, moved func(T) T) []T {
	out := make([]T, 0, len(prev)-(k-i)+len(line))
	out = append(append(out, prev[:i]...), line...)
	for _, x := range prev[k:] {
		out = append(out, moved(x))
	}
	return out
}

// movedBy is d read dl lines further down: a copy in m (d stays its
// file's), sharing its expression, offsets and syntax tree.
func (d *Definition) movedBy(dl int32, m *Definition) *Definition {
	*m = Definition{
		Name:       d.Name,
		Expr:       d.Expr,
		Verdict:    d.Verdict,
		NameRange:  d.NameRange.MovedBy(dl),
		Range:      d.Range.MovedBy(dl),
		Line:       d.Line + dl,
		Registered: d.Registered,
		leaked:     d.leaked,
		release:    d.release,
		exprBase:   d.exprBase,
		exprRuns:   d.exprRuns,
		memo:       d.memo,
	}
	m.tree.p.Store(d.tree.p.Load())
	return m
}

// MovedBy is p on the line dl lines further down, as an edit that added
// dl lines before it moves it; the end of the file (math.MaxInt32) stays
// where it is.
func (p Pos) MovedBy(dl int32) Pos {
	if p.Line != math.MaxInt32 {
		p.Line += dl
	}
	return p
}

// MovedBy is r dl lines further down (Pos.MovedBy).
func (r Range) MovedBy(dl int32) Range {
	return Range{Start: r.Start.MovedBy(dl), End: r.End.MovedBy(dl)}
}

// FindingMover moves findings about the same text DL lines further
// down: their ranges, related places and fixes' edits (new slices: a
// finding's are shared with the version it came from). Each moved
// finding's slices are its own, not cut from runs shared with others: a
// run would keep the findings a later edit replaced alive as long as any
// finding of it stayed. A finding's message is left as it is: the
// caller knows whether one names a line.
type FindingMover struct {
	DL int32
}

// Move is d DL lines further down.
func (mv *FindingMover) Move(d Diagnostic) Diagnostic {
	if mv.DL == 0 {
		return d
	}
	d.Range = d.Range.MovedBy(mv.DL)
	if len(d.Related) > 0 {
		related := make([]Related, len(d.Related))
		for i, rel := range d.Related {
			rel.Range = rel.Range.MovedBy(mv.DL)
			related[i] = rel
		}
		d.Related = related
	}
	if len(d.Fixes) > 0 {
		fixes := make([]Fix, len(d.Fixes))
		for i, fx := range d.Fixes {
			edits := make([]Edit, len(fx.Edits))
			for k, e := range fx.Edits {
				e.Range = e.Range.MovedBy(mv.DL)
				edits[k] = e
			}
			fx.Edits = edits
			fixes[i] = fx
		}
		d.Fixes = fixes
	}
	return d
}

// movedSyntax is a syntax finding of path moved as mv moves it, with the
// line libpcp's report names moved too.
func (mv *FindingMover) movedSyntax(d Diagnostic, path string) Diagnostic {
	d = mv.Move(d)
	if len(d.PCP) > 0 {
		if header, ok := movedHeader(d.PCP[0], path, mv.DL); ok {
			pcp := append([]string(nil), d.PCP...)
			pcp[0] = header
			d.PCP = pcp
		}
	}
	return d
}

// movedHeader is libpcp's first line of a report, "[path:N] kind: ...",
// naming line N+dl; ok is false for a line that names none (the rest of
// a report quotes the config's own text, which may look like one).
func movedHeader(line, path string, dl int32) (string, bool) {
	prefix := "[" + path + ":"
	rest, ok := strings.CutPrefix(line, prefix)
	if !ok {
		return line, false
	}
	k := strings.IndexByte(rest, ']')
	if k < 0 {
		return line, false
	}
	n, err := strconv.Atoi(rest[:k])
	if err != nil {
		return line, false
	}
	return prefix + strconv.Itoa(n+int(dl)) + rest[k:], true
}
