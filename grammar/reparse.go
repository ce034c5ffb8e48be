package grammar

import (
	"bytes"
	"slices"
	"sort"
	"weak"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TextChange is one edit of a file's text: the bytes [Start, OldEnd) of
// the old text became the bytes [Start, NewEnd) of the new one.
type TextChange struct {
	Start, OldEnd, NewEnd int
}

// Then is the one change that makes what c and then next made: the span
// from the first byte either changed to the last, in the text before c
// and in the text after next.
func (c TextChange) Then(next TextChange) TextChange {
	end := max(c.NewEnd, next.OldEnd) // in the text between the two
	return TextChange{
		Start:  min(c.Start, next.Start),
		OldEnd: end - (c.NewEnd - c.OldEnd),
		NewEnd: end + (next.NewEnd - next.OldEnd),
	}
}

// Reparse returns what ParseText(prev.Path, text, opts) returns, for text
// made from prev.Text by one change, reading again only the logical lines
// the change touches when it can (an editor's keystroke, an Enter): the
// lines before and after them are prev's (the same *Definition and
// *Attribute values and findings: positions are lines and columns, which
// a change that adds no line leaves as they were elsewhere; after one
// that adds or removes lines, copies of those after it with their lines
// moved, shift.go), and text shares prev's pieces but the edited one
// (Text.Replace), so the cost does not grow with the file beyond the
// per-piece index and the copies. It reads the whole text again
// (ParseText) when the change may alter the meaning of other lines: it
// defines, renames or removes a definition or an attribute used after
// it, touches a #control line, leaves libpcp's matchinst lexer flag
// different after it, or spans continuation lines or a quoted value over
// several lines. reparsed says which of the two it did. ch must be the change that made text of prev.Text (the bytes
// around it the same in both); opts must be those prev was parsed with;
// a config path of several files (opts.Leak, opts.Registered) is always
// read again.
func Reparse(prev *File, text *Text, ch TextChange, opts Options) (f *File, reparsed bool) {
	if f := reparse(prev, text, ch, opts); f != nil {
		return f, true
	}
	// Read whole, its names and expressions are copies (ownStrings):
	// they outlive this version in what an editing session keeps (the
	// definitions the next versions keep, the checker's operands, the
	// metadata cache's names), and a substring would keep the version's
	// whole text alive with them, one text per whole read of a long
	// session (lsp's TestLongEditingSession; docs/limits.md).
	opts.ownStrings = true
	return ParseText(prev.Path, text, opts), false
}

func reparse(prev *File, text *Text, ch TextChange, opts Options) *File {
	if prev == nil || opts.Leak || len(opts.Registered) > 0 || opts.Version != prev.Version {
		return nil
	}
	if prev.standIns || prev.staleTrees {
		// the stand-in counts findings of other lines; a stale tree's
		// verdict depends on the parses before it
		return nil
	}
	e, ok := editedLine(prev, text, ch)
	if !ok || (opts.DerivedControl != nil && e.idx == 0) {
		return nil // $PCP_DERIVED_CONTROL's findings sit on the first line
	}
	at, ok := prevAround(prev, e)
	if !ok {
		return nil
	}
	f, lineDefs := readLine(prev, text, e, at, opts)
	if f == nil || !leavesSame(prev, f, text, e, at, lineDefs) {
		return nil
	}
	return spliceLine(prev, f, e, at, lineDefs, opts)
}

// lineEdit is the whole lines a change falls in: [r, e) in the old
// text, [r, ne) in the new, the index of the first, and how many lines
// the change added (removed, when negative).
type lineEdit struct {
	idx              int
	r, e, ne         int
	dl               int32
	oldLine, newLine []byte
}

// editedLine is the lines ch changes, when they are whole logical lines
// that do not change how later lines are read (no continuation, NUL or
// #control line). An edit that adds or removes lines (an Enter, a line
// deleted or pasted) moves the lines after them by dl.
func editedLine(prev *File, text *Text, ch TextChange) (lineEdit, bool) {
	old := prev.Text
	delta := ch.NewEnd - ch.OldEnd
	// The text around the change is taken to be prev's, as ch says (it
	// is not compared: that would cost a pass over the whole text).
	if ch.Start < 0 || ch.Start > ch.OldEnd || ch.OldEnd > old.Len() || ch.NewEnd < ch.Start || text.Len() != old.Len()+delta {
		return lineEdit{}, false
	}
	var e lineEdit
	e.idx, e.r = old.LineOf(ch.Start)
	last, lastStart := old.LineOf(ch.OldEnd)
	e.e = lastStart + len(old.LineBytes(last))
	e.ne = e.e + delta
	e.oldLine = old.Slice(e.r, e.e)
	e.newLine = text.Slice(e.r, e.ne)
	e.dl = int32(bytes.Count(e.newLine, []byte("\n")) - bytes.Count(e.oldLine, []byte("\n")))
	for _, lines := range [][]byte{e.oldLine, e.newLine} {
		if bytes.Contains(lines, []byte("\\")) || bytes.IndexByte(lines, 0) >= 0 {
			return lineEdit{}, false
		}
		if prev.Version.Has(pcpver.ControlLines) {
			for line := range bytes.Lines(lines) {
				if len(line) >= 8 && bytes.EqualFold(line[:8], []byte("#control")) {
					return lineEdit{}, false
				}
			}
		}
	}
	if prev.Version.Has(pcpver.Continuation) && e.r >= 2 && old.Slice(e.r-2, e.r-1)[0] == '\\' {
		return lineEdit{}, false // the line continues the one before it
	}
	if e.dl != 0 {
		for _, set := range prev.controlsSet {
			if set.line > int32(e.idx) {
				return lineEdit{}, false // DeriveDebug names the #control lines after it
			}
		}
	}
	return e, true
}

// around is where the edited line's items are among prev's: the
// definitions [d0, d1), attributes [ai, a1), comments [c0, c1) and
// findings [g0, g1) it made, and its positions.
type around struct {
	rPos, ePos     Pos
	names          *nameIndex
	d0, d1, ai, a1 int
	c0, c1, g0, g1 int
}

// prevAround finds what prev made of the edited line; ok is false when
// something of another line reaches into it (a quoted value over
// several lines, a finding of a later line that names it).
func prevAround(prev *File, e lineEdit) (around, bool) {
	// Positions hold lines and columns, no offsets, so what lies after
	// the line keeps its positions.
	a := around{rPos: prev.Pos(e.r), ePos: prev.Pos(e.e)}
	at := func(p Pos) int { return p.Compare(a.rPos) }   // < 0 before the line
	past := func(p Pos) int { return p.Compare(a.ePos) } // >= 0 after it
	// A quoted value from an earlier line running over this one.
	a.ai = sort.Search(len(prev.Attributes), func(i int) bool { return at(prev.Attributes[i].Range.Start) >= 0 })
	if a.ai > 0 && at(prev.Attributes[a.ai-1].Range.End) > 0 {
		return a, false
	}
	// After a quoted value over several lines libpcp's line numbers may
	// differ from the file's (6.0 counts them short).
	a.names = prev.names()
	if a.names.multiLineBefore(a.rPos) {
		return a, false
	}
	a.d0 = prev.Definitions.Search(func(d *Definition) bool { return at(d.Range.Start) >= 0 })
	a.d1 = prev.Definitions.Search(func(d *Definition) bool { return past(d.Range.Start) >= 0 })
	a.a1 = sort.Search(len(prev.Attributes), func(i int) bool { return past(prev.Attributes[i].Range.Start) >= 0 })
	a.c0 = sort.Search(len(prev.Comments), func(i int) bool { return at(prev.Comments[i].Start) >= 0 })
	a.c1 = sort.Search(len(prev.Comments), func(i int) bool { return past(prev.Comments[i].Start) >= 0 })
	a.g0 = sort.Search(len(prev.Diagnostics), func(i int) bool { return at(prev.Diagnostics[i].Range.Start) >= 0 })
	a.g1 = sort.Search(len(prev.Diagnostics), func(i int) bool { return past(prev.Diagnostics[i].Range.Start) >= 0 })
	return a, diagnosticsInOrder(prev.Diagnostics, a.g0, a.g1, a.ePos)
}

// readLine reads the edited line in libpcp's state at its start (its
// line number, the matchinst flag, the names registered and attributes
// set before), into a new File holding only what the line made; nil when
// the line's verdict may depend on the parses before it.
func readLine(prev *File, text *Text, e lineEdit, a around, opts Options) (*File, []*Definition) {
	if v := prev.Version; v.Has(pcpver.Novalue) && !v.Has(pcpver.IndomSpec) {
		// libpcp's static spec descriptor (File.SpecZero): a line that
		// resets it, or reads it, is read with the whole file.
		for _, l := range [][]byte{e.oldLine, e.newLine} {
			if bytes.Contains(l, []byte("mkconst")) || bytes.Contains(l, []byte("novalue")) {
				return nil, nil
			}
		}
	}
	f := &File{Path: prev.Path, Text: text, Version: prev.Version, OptionNovalue: prev.OptionNovalue, ctl: prev.ctl,
		specReset: prev.specReset, specZero: prev.specZero, linesRead: lineCount(e.newLine)}
	f.Leak = leakAfter(prev, a.d0)
	// Names and expressions read from several lines are copies: as
	// substrings, each definition that a later edit keeps would keep all
	// the lines alive (an edit composed of a few far apart reads
	// thousands).
	reader := &configReader{f: f, ctl: prev.ctl, src: e.newLine, srcAt: e.r, text: string(e.newLine), textAt: e.r, pos: e.r, lineno: e.idx + 1, memo: opts.Memo,
		registered: map[string]bool{}, attrs: map[string]map[string]bool{}, ownStrings: f.linesRead > 1}
	// The names the line may use, and what is known of them before it.
	for _, name := range lineNames(e.oldLine, e.newLine) {
		if a.names.registeredBefore(name, a.rPos) {
			reader.registered[name] = true
		}
		if set := a.names.appliedBefore(name, a.rPos); set != nil {
			reader.attrs[name] = set
		}
	}
	reader.run()
	if f.staleTrees {
		return nil, nil // its verdict depends on the parses before it
	}
	return f, reader.defs
}

// leavesSame reports whether the new line leaves what the old one left
// for the lines after it: the same lexer flag, and for every name they
// use, the same registration and attributes set. A value that runs past
// the line (cut short here) is read with the whole file.
func leavesSame(prev, f *File, text *Text, e lineEdit, a around, lineDefs []*Definition) bool {
	past := func(p Pos) int { return p.Compare(a.ePos) }
	nePos := f.Pos(e.ne)
	for _, at := range f.Attributes {
		if at.Range.End.Compare(nePos) > 0 {
			return false
		}
	}
	for _, d := range f.Diagnostics {
		if (d.Code == codes.NoFinalNewline || d.Code == codes.AttrUnterminated) && e.ne < text.Len() {
			return false
		}
	}
	for _, at := range prev.Attributes[a.ai:a.a1] {
		if past(at.Range.End) > 0 {
			return false
		}
	}
	if slices.ContainsFunc(f.Attributes, multiLine) || slices.ContainsFunc(prev.Attributes[a.ai:a.a1], multiLine) {
		// libpcp's lines after a quoted value over several lines may
		// not be the file's (6.0 counts them short): those after the
		// edit would move by another count than its lines', and the
		// index of names knows where the first such value is.
		return false
	}
	if e.ne < text.Len() && f.Leak != leakAfter(prev, a.d1) {
		return false
	}
	changed := changedNames(prev.Definitions.Slice(a.d0, a.d1), prev.Attributes[a.ai:a.a1], lineDefs, f.Attributes)
	if len(changed) == 0 {
		return true
	}
	for i, d := range prev.Definitions.All() {
		if i >= a.d1 && changed[d.Name] {
			return false
		}
	}
	for _, at := range prev.Attributes[a.a1:] {
		if changed[at.Metric] {
			return false
		}
	}
	return true
}

// spliceLine makes f prev with what the edited line made in place of
// what it made before: the lines after it are prev's, the same values in
// the same places (only byte offsets moved, and positions hold none).
func spliceLine(prev, f *File, e lineEdit, a around, lineDefs []*Definition, opts Options) *File {
	if e.ne != f.Text.Len() {
		f.Leak = prev.Leak // the last line's lexer flag is the file's
	}
	lineAttrs, lineComments, lineDiags := f.Attributes, f.Comments, f.Diagnostics
	oldDefs := prev.Definitions.Slice(a.d0, a.d1)
	if e.dl != 0 {
		// The lines after the edit moved: their items are prev's,
		// copied a line further (shift.go).
		if spliceMoved(prev, f, a, e.dl, lineDefs) {
			f.replaced = &replacedDefinitions{prev: weak.Make(prev), from: a.d0, oldTo: a.d1, newTo: a.d0 + len(lineDefs), dl: e.dl}
		}
		if OverCap(f, f.Diagnostics, opts.MaxPerCode, opts.Suppressed) {
			return nil
		}
		if ix := a.names.edited(oldDefs, lineDefs, prev.Attributes[a.ai:a.a1], lineAttrs, lineMove{from: a.ePos.Line, dl: e.dl}); ix != nil {
			f.nameIx.Store(ix)
		}
		return f
	}
	f.Definitions = prev.Definitions.Splice(a.d0, a.d1, lineDefs)
	f.replaced = &replacedDefinitions{prev: weak.Make(prev), from: a.d0, oldTo: a.d1, newTo: a.d0 + len(lineDefs)}
	f.Attributes = splice(prev.Attributes, a.ai, a.a1, lineAttrs)
	f.Comments = splice(prev.Comments, a.c0, a.c1, lineComments)
	f.Diagnostics = splice(prev.Diagnostics, a.g0, a.g1, lineDiags)
	if OverCap(f, f.Diagnostics, opts.MaxPerCode, opts.Suppressed) {
		return nil // a full read makes the stand-in
	}
	if ix := a.names.edited(oldDefs, lineDefs, prev.Attributes[a.ai:a.a1], lineAttrs, lineMove{}); ix != nil {
		f.nameIx.Store(ix)
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

// diagnosticsInOrder checks that prev's findings of the changed line
// (diags[g0:g1]) end on it, before ePos (the next line's start), and that
// none after it points into it or before it (a finding about a later line
// that names the changed one would need checking again).
func diagnosticsInOrder(diags []Diagnostic, g0, g1 int, ePos Pos) bool {
	for _, d := range diags[g0:g1] {
		if d.Range.End.Compare(ePos) > 0 {
			return false
		}
	}
	for _, d := range diags[g1:] {
		for _, rel := range d.Related {
			if rel.Range.Start.Before(ePos) {
				return false
			}
		}
		for _, fx := range d.Fixes {
			for _, ed := range fx.Edits {
				if ed.Range.Start.Before(ePos) {
					return false
				}
			}
		}
	}
	return true
}

// lineNames are the names the old and the new lines may define or set
// an attribute of: on each line, the text before the first "(" or "=",
// trimmed.
func lineNames(regions ...[]byte) []string {
	var out []string
	for _, region := range regions {
		for l := range bytes.Lines(region) {
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
	}
	return out
}

// multiLine says a's value runs over several lines.
func multiLine(a *Attribute) bool { return a.Range.End.Line != a.Range.Start.Line }

// lineCount is how many lines b holds, a last one without a newline
// counted.
func lineCount(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// leakAfter is libpcp's matchinst flag before definition index d of prev.
func leakAfter(prev *File, d int) bool {
	if d < prev.Definitions.Len() {
		return prev.Definitions.At(d).leaked
	}
	return prev.Leak
}

// splice is prev with [i, k) replaced by line: prev itself, shared,
// when the line had none and has none (the slices are never changed).
func splice[T any](prev []T, i, k int, line []T) []T {
	if i == k && len(line) == 0 {
		return prev
	}
	out := make([]T, 0, len(prev)-(k-i)+len(line))
	return append(append(append(out, prev[:i]...), line...), prev[k:]...)
}
