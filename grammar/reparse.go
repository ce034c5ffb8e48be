package grammar

import (
	"bytes"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TextChange is one edit of a file's text: the bytes [Start, OldEnd) of
// the old text became the bytes [Start, NewEnd) of the new one.
type TextChange struct {
	Start, OldEnd, NewEnd int
}

// Reparse returns what ParseConfig(prev.Path, src, opts) returns, for src
// made from prev.Src by one change, reading again only the logical lines
// the change touches when it can (an editor's keystroke): the lines
// before them are prev's (the same *Definition and *Attribute values),
// the lines after them prev's moved by the change's length. It reads the
// whole text again (ParseConfig) when the change may alter the meaning of
// other lines: it adds or removes lines, defines, renames or removes a
// definition or an attribute, touches a #control line, leaves libpcp's
// matchinst lexer flag different after it, or spans continuation lines or
// a quoted value over several lines. reparsed says which of the two it
// did. opts must be those prev was parsed with; a config path of several
// files (opts.Leak, opts.Registered) is always read again.
func Reparse(prev *File, src []byte, ch TextChange, opts Options) (f *File, reparsed bool) {
	if f := reparse(prev, src, ch, opts); f != nil {
		return f, true
	}
	return ParseConfig(prev.Path, src, opts), false
}

func reparse(prev *File, src []byte, ch TextChange, opts Options) *File {
	if prev == nil || opts.Leak || len(opts.Registered) > 0 || opts.Version != prev.Version {
		return nil
	}
	old := prev.Src
	delta := ch.NewEnd - ch.OldEnd
	if ch.Start < 0 || ch.Start > ch.OldEnd || ch.OldEnd > len(old) || ch.NewEnd < ch.Start || len(src) != len(old)+delta ||
		!bytes.Equal(src[:ch.Start], old[:ch.Start]) || !bytes.Equal(src[ch.NewEnd:], old[ch.OldEnd:]) {
		return nil
	}
	// Same number of lines, no line joined or split: positions after the
	// change keep their lines and columns.
	if bytes.IndexByte(old[ch.Start:ch.OldEnd], '\n') >= 0 || bytes.IndexByte(src[ch.Start:ch.NewEnd], '\n') >= 0 {
		return nil
	}
	// The physical line of the change, in the old text: [r, e).
	r := bytes.LastIndexByte(old[:ch.Start], '\n') + 1
	e := len(old)
	if k := bytes.IndexByte(old[ch.OldEnd:], '\n'); k >= 0 {
		e = ch.OldEnd + k + 1
	}
	ne := e + delta
	oldLine, newLine := old[r:e], src[r:ne]
	// Lines that are not whole logical lines on their own, or that
	// change how later lines are read, are read again with the file.
	for _, line := range [][]byte{oldLine, newLine} {
		if bytes.Contains(line, []byte("\\")) || bytes.IndexByte(line, 0) >= 0 ||
			(prev.Version.Has(pcpver.ControlLines) && len(line) >= 8 && bytes.EqualFold(line[:8], []byte("#control"))) {
			return nil
		}
	}
	if r > 0 && prev.Version.Has(pcpver.Continuation) && r >= 2 && old[r-2] == '\\' {
		return nil // the line continues the one before it
	}
	// A quoted value from an earlier line running over this one.
	ai := sort.Search(len(prev.Attributes), func(i int) bool { return prev.Attributes[i].Range.Start.Offset >= r })
	if ai > 0 && prev.Attributes[ai-1].Range.End.Offset > r {
		return nil
	}
	// After a quoted value over several lines libpcp's line numbers may
	// differ from the file's (6.0 counts them short).
	for _, a := range prev.Attributes[:ai] {
		if a.Range.End.Line != a.Range.Start.Line {
			return nil
		}
	}
	// What prev made of the old line.
	d0 := sort.Search(len(prev.Definitions), func(i int) bool { return prev.Definitions[i].Range.Start.Offset >= r })
	d1 := sort.Search(len(prev.Definitions), func(i int) bool { return prev.Definitions[i].Range.Start.Offset >= e })
	a1 := sort.Search(len(prev.Attributes), func(i int) bool { return prev.Attributes[i].Range.Start.Offset >= e })
	c0 := sort.Search(len(prev.Comments), func(i int) bool { return prev.Comments[i].Start.Offset >= r })
	c1 := sort.Search(len(prev.Comments), func(i int) bool { return prev.Comments[i].Start.Offset >= e })
	g0 := sort.Search(len(prev.Diagnostics), func(i int) bool { return prev.Diagnostics[i].Range.Start.Offset >= r })
	g1 := sort.Search(len(prev.Diagnostics), func(i int) bool { return prev.Diagnostics[i].Range.Start.Offset >= e })
	if !diagnosticsInOrder(prev.Diagnostics, g0, g1, r, e) {
		return nil
	}

	// libpcp's state at the start of the line: its line number, the
	// matchinst flag, the names registered and attributes set before.
	f := &File{Path: prev.Path, Src: src, Version: prev.Version, OptionNovalue: prev.OptionNovalue}
	f.lineStarts = prev.lineStarts // same lines; those after the change move below
	lineIdx := sort.SearchInts(prev.lineStarts, r+1) - 1
	if delta != 0 {
		f.lineStarts = make([]int, len(prev.lineStarts))
		copy(f.lineStarts, prev.lineStarts[:lineIdx+1])
		for i := lineIdx + 1; i < len(prev.lineStarts); i++ {
			f.lineStarts[i] = prev.lineStarts[i] + delta
		}
	}
	f.col16At = shiftMarks(prev.col16At, r, e, delta)
	leak := false
	if d0 < len(prev.Definitions) {
		leak = prev.Definitions[d0].leaked
	} else {
		leak = prev.Leak
	}
	reader := &configReader{f: f, src: src[:ne], text: string(src[:ne]), pos: r, lineno: lineIdx + 1, memo: opts.Memo,
		registered: map[string]bool{}, attrs: map[string]map[string]bool{}}
	f.Leak = leak
	// The names the line may use, and what is known of them before it.
	for _, name := range lineNames(oldLine, newLine) {
		if registeredBefore(prev, name, d0) {
			reader.registered[name] = true
		}
		for _, a := range prev.Attributes[:ai] {
			if a.Metric == name && a.Applied {
				if reader.attrs[name] == nil {
					reader.attrs[name] = map[string]bool{}
				}
				reader.attrs[name][a.Attr] = true
			}
		}
	}
	reader.run()
	// The new line must leave what the old one left for the lines
	// after it: the same lexer flag, and for every name they use, the
	// same registration and attributes set. A value that runs past the
	// line (cut short here) is read with the whole file.
	for _, a := range f.Attributes {
		if a.Range.End.Offset > ne {
			return nil
		}
	}
	for _, d := range f.Diagnostics {
		if (d.Code == "no-final-newline" || d.Code == "attr-unterminated") && ne < len(src) {
			return nil
		}
	}
	for _, a := range prev.Attributes[ai:a1] {
		if a.Range.End.Offset > e {
			return nil
		}
	}
	if ne < len(src) && f.Leak != leakAfter(prev, d1) {
		return nil
	}
	if changed := changedNames(prev.Definitions[d0:d1], prev.Attributes[ai:a1], f.Definitions, f.Attributes); len(changed) > 0 {
		for _, d := range prev.Definitions[d1:] {
			if changed[d.Name] {
				return nil
			}
		}
		for _, a := range prev.Attributes[a1:] {
			if changed[a.Metric] {
				return nil
			}
		}
	}
	if ne == len(src) {
		// The last line: its lexer flag is the file's.
	} else {
		f.Leak = prev.Leak
	}
	lineDefs, lineAttrs, lineComments, lineDiags := f.Definitions, f.Attributes, f.Comments, f.Diagnostics
	// The line's definitions need their file only for its release: a
	// stub, so that no definition keeps a whole earlier text alive.
	stub := &File{Path: f.Path, Version: f.Version}
	for _, d := range lineDefs {
		// Names and expressions are substrings of the reader's copy of
		// the text: copies of their own, so the copy is not kept.
		d.file, d.Name, d.Expr = stub, strings.Clone(d.Name), strings.Clone(d.Expr)
	}
	for _, a := range lineAttrs {
		a.Metric, a.Attr, a.Value = strings.Clone(a.Metric), strings.Clone(a.Attr), strings.Clone(a.Value)
	}
	f.Definitions = spliceDefs(prev.Definitions, d0, d1, lineDefs, e, delta)
	f.Attributes = spliceAttrs(prev.Attributes, ai, a1, lineAttrs, e, delta)
	f.Comments = make([]Range, 0, len(prev.Comments)-(c1-c0)+len(lineComments))
	f.Comments = append(append(f.Comments, prev.Comments[:c0]...), lineComments...)
	for _, c := range prev.Comments[c1:] {
		f.Comments = append(f.Comments, shiftRange(c, delta))
	}
	f.Diagnostics = make([]Diagnostic, 0, len(prev.Diagnostics)-(g1-g0)+len(lineDiags))
	f.Diagnostics = append(append(f.Diagnostics, prev.Diagnostics[:g0]...), lineDiags...)
	for _, d := range prev.Diagnostics[g1:] {
		f.Diagnostics = append(f.Diagnostics, shiftDiagnostic(d, e, delta))
	}
	return f
}

// changedNames are the names whose registration or attributes differ
// between what the old line and the new one made.
func changedNames(oldDefs []*Definition, oldAttrs []*Attribute, newDefs []*Definition, newAttrs []*Attribute) map[string]bool {
	sig := func(defs []*Definition, attrs []*Attribute) map[string]string {
		m := map[string]string{}
		for _, d := range defs {
			m[d.Name] += map[bool]string{true: "R", false: "-"}[d.Registered]
		}
		for _, a := range attrs {
			m[a.Metric] += map[bool]string{true: "A", false: "a"}[a.Applied] + a.Attr + "\x00"
		}
		return m
	}
	o, n := sig(oldDefs, oldAttrs), sig(newDefs, newAttrs)
	changed := map[string]bool{}
	for k, v := range o {
		if n[k] != v {
			changed[k] = true
		}
	}
	for k, v := range n {
		if o[k] != v {
			changed[k] = true
		}
	}
	return changed
}

// diagnosticsInOrder checks that prev's findings of the line [r, e) lie
// within it and that none after it points into it or before it (a
// finding that does cannot be moved).
func diagnosticsInOrder(diags []Diagnostic, g0, g1, r, e int) bool {
	for _, d := range diags[g0:g1] {
		if d.Range.End.Offset > e {
			return false
		}
	}
	for _, d := range diags[g1:] {
		for _, rel := range d.Related {
			if rel.Range.Start.Offset < e {
				return false
			}
		}
		for _, fx := range d.Fixes {
			for _, ed := range fx.Edits {
				if ed.Range.Start.Offset < e {
					return false
				}
			}
		}
	}
	return true
}

// lineNames are the names the old and the new line may define or set an
// attribute of: the text before the first "(" or "=", trimmed.
func lineNames(lines ...[]byte) []string {
	var out []string
	for _, l := range lines {
		l = bytes.TrimSuffix(l, []byte("\n"))
		end := len(l)
		if k := bytes.IndexByte(l, '='); k >= 0 {
			end = k
		}
		if k := bytes.IndexByte(l[:end], '('); k >= 0 {
			end = k
		}
		out = append(out, string(bytes.TrimFunc(l[:end], func(c rune) bool { return c < 128 && isSpace(byte(c)) })))
	}
	return out
}

// registeredBefore says whether libpcp has name registered before
// definition index d0 of prev.
func registeredBefore(prev *File, name string, d0 int) bool {
	for _, n := range builtinDerived {
		if n == name {
			return true
		}
	}
	for _, d := range prev.Definitions[:d0] {
		if d.Registered && d.Name == name {
			return true
		}
	}
	return false
}

// leakAfter is libpcp's matchinst flag before definition index d of prev.
func leakAfter(prev *File, d int) bool {
	if d < len(prev.Definitions) {
		return prev.Definitions[d].leaked
	}
	return prev.Leak
}

// shiftMarks moves the UTF-16 checkpoints after the line [r, e) by delta
// and drops those in it (Pos then counts from the line's start).
func shiftMarks(marks []col16Mark, r, e, delta int) []col16Mark {
	out := make([]col16Mark, len(marks))
	for i, m := range marks {
		switch {
		case m.offset < r:
			out[i] = m
		case m.offset < e:
			out[i] = col16Mark{offset: -1}
		default:
			out[i] = col16Mark{offset: m.offset + delta, col16: m.col16}
		}
	}
	return out
}

func shiftPos(p Pos, delta int) Pos { p.Offset += delta; return p }

func shiftRange(rg Range, delta int) Range {
	return Range{Start: shiftPos(rg.Start, delta), End: shiftPos(rg.End, delta)}
}

// shiftDiagnostic is d moved by delta (its ranges all lie at or after e).
func shiftDiagnostic(d Diagnostic, e, delta int) Diagnostic {
	if delta == 0 {
		return d
	}
	d.Range = shiftRange(d.Range, delta)
	if len(d.Related) > 0 {
		rel := make([]Related, len(d.Related))
		for i, r := range d.Related {
			rel[i] = Related{Range: shiftRange(r.Range, delta), Message: r.Message}
		}
		d.Related = rel
	}
	if len(d.Fixes) > 0 {
		fixes := make([]Fix, len(d.Fixes))
		for i, fx := range d.Fixes {
			edits := make([]Edit, len(fx.Edits))
			for k, ed := range fx.Edits {
				edits[k] = ed
				edits[k].Range = shiftRange(ed.Range, delta)
			}
			fixes[i] = fx
			fixes[i].Edits = edits
		}
		d.Fixes = fixes
	}
	return d
}

// spliceDefs is prev's definitions with [d0, d1) replaced by line and
// those after moved by delta.
func spliceDefs(prev []*Definition, d0, d1 int, line []*Definition, e, delta int) []*Definition {
	out := make([]*Definition, 0, len(prev)-(d1-d0)+len(line))
	out = append(append(out, prev[:d0]...), line...)
	if delta == 0 {
		return append(out, prev[d1:]...)
	}
	for _, d := range prev[d1:] {
		out = append(out, d.moved(delta))
	}
	return out
}

// moved is a copy of d delta bytes further in its file; it shares d's
// syntax tree (the checker's findings are keyed by its nodes).
func (d *Definition) moved(delta int) *Definition {
	n := &Definition{
		Name: d.Name, NameRange: shiftRange(d.NameRange, delta), Expr: d.Expr, Verdict: d.Verdict,
		Registered: d.Registered, Range: shiftRange(d.Range, delta), Line: d.Line,
		file: d.file, memo: d.memo, leaked: d.leaked,
	}
	n.exprOffsets = offsetMap{base: d.exprOffsets.base + delta}
	if d.exprOffsets.more != nil {
		more := make([]offsetRun, len(*d.exprOffsets.more))
		for i, r := range *d.exprOffsets.more {
			more[i] = offsetRun{at: r.at, off: r.off + delta}
		}
		n.exprOffsets.more = &more
	}
	if n.memo == nil {
		tree, err := d.Tree()
		n.tree.p.Store(&treeResult{tree, err})
	}
	return n
}

// spliceAttrs is spliceDefs for attributes.
func spliceAttrs(prev []*Attribute, a0, a1 int, line []*Attribute, e, delta int) []*Attribute {
	out := make([]*Attribute, 0, len(prev)-(a1-a0)+len(line))
	out = append(append(out, prev[:a0]...), line...)
	if delta == 0 {
		return append(out, prev[a1:]...)
	}
	for _, a := range prev[a1:] {
		c := *a
		c.Range = shiftRange(a.Range, delta)
		out = append(out, &c)
	}
	return out
}

// Moved is the finding delta bytes further in its file, on the same lines
// (its ranges, related places and fixes all move).
func (d Diagnostic) Moved(delta int) Diagnostic { return shiftDiagnostic(d, 0, delta) }
