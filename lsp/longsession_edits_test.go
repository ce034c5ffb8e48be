package lsp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// soakText is the editor's copy of a document during a long session:
// its lines (the text split at "\n", so a text ending in "\n" has an
// empty last line), changed as the editor changes them. The session's
// texts are ASCII, so a column is a byte and a UTF-16 unit alike.
type soakText struct {
	lines []string
}

func newSoakText(text string) *soakText { return &soakText{lines: strings.Split(text, "\n")} }

func (d *soakText) String() string { return strings.Join(d.lines, "\n") }

// soakEdit is one ranged change, as a client sends it.
type soakEdit struct {
	rng  protocol.Range
	text string
}

// apply changes the text as a client applies e, and returns the edit
// that undoes it.
func (d *soakText) apply(e soakEdit) (undo soakEdit) {
	sl, sc := int(e.rng.Start.Line), int(e.rng.Start.Character)
	el, ec := int(e.rng.End.Line), int(e.rng.End.Character)
	var removed string
	if sl == el {
		removed = d.lines[sl][sc:ec]
	} else {
		removed = d.lines[sl][sc:] + "\n" + strings.Join(d.lines[sl+1:el], "\n")
		if el > sl+1 {
			removed += "\n"
		}
		removed += d.lines[el][:ec]
	}
	merged := d.lines[sl][:sc] + e.text + d.lines[el][ec:]
	d.lines = slices.Replace(d.lines, sl, el+1, strings.Split(merged, "\n")...)
	return soakEdit{rng: protocol.Range{Start: e.rng.Start, End: endOf(e.rng.Start, e.text)}, text: removed}
}

// endOf is where text inserted at start ends.
func endOf(start protocol.Position, text string) protocol.Position {
	n := strings.Count(text, "\n")
	if n == 0 {
		return protocol.Position{Line: start.Line, Character: start.Character + uint32(len(text))}
	}
	return protocol.Position{Line: start.Line + uint32(n), Character: uint32(len(text) - strings.LastIndexByte(text, '\n') - 1)}
}

// soakEditor makes a user's edits, at random places (seeded): typing,
// Enter, joined lines, pasted and deleted blocks, undoing, and typing in
// comments and help texts.
type soakEditor struct {
	doc   *soakText
	rnd   *rand.Rand
	undo  []soakEdit // the inverses of the edits made, latest last
	paste int        // pasted blocks so far, to name their copies
}

// pos is a place in the document: a line other than the last (empty)
// one, and a column in it.
func (e *soakEditor) pos() protocol.Position {
	l := e.rnd.IntN(len(e.doc.lines) - 1)
	return protocol.Position{Line: uint32(l), Character: uint32(e.rnd.IntN(len(e.doc.lines[l]) + 1))}
}

func point(p protocol.Position) protocol.Range { return protocol.Range{Start: p, End: p} }

// typed are the characters a user types: letters that make a metric
// name unknown (and its "did you mean"), operators and digits that may
// break an expression, spaces that change nothing libpcp reads.
const typed = "abcxyz._+*( )12"

// next makes the next edit (nil when it found nothing to do), applied to
// the editor's copy; kind names it for failure messages.
func (e *soakEditor) next() (kind string, edits []soakEdit) {
	var ed soakEdit
	switch r := e.rnd.IntN(100); {
	case r < 30:
		kind, ed = "type", soakEdit{rng: point(e.pos()), text: string(typed[e.rnd.IntN(len(typed))])}
	case r < 40:
		kind, ed = "backspace", e.backspace()
	case r < 55:
		kind, ed = "enter", e.enter()
	case r < 62:
		kind, ed = "join", e.join()
	case r < 69:
		kind, ed = "paste", e.pasteBlock()
	case r < 76:
		kind, ed = "delete lines", e.deleteLines()
	case r < 86:
		return "undo", e.revert(1 + e.rnd.IntN(3))
	case r < 93:
		kind, ed = "comment", e.typeAfter("#", len("#"))
	default:
		kind, ed = "help text", e.typeAfter("(oneline) = \"", len("(oneline) = \"one"))
	}
	if ed.rng == (protocol.Range{}) && ed.text == "" {
		return kind, nil
	}
	e.undo = append(e.undo, e.doc.apply(ed))
	return kind, []soakEdit{ed}
}

func (e *soakEditor) backspace() soakEdit {
	p := e.pos()
	if p.Character == 0 || e.doc.lines[p.Line][p.Character-1] == '"' {
		return soakEdit{}
	}
	return soakEdit{rng: protocol.Range{Start: protocol.Position{Line: p.Line, Character: p.Character - 1}, End: p}}
}

// enter splits a line: at its end half the time (a new empty line), or
// anywhere in it (a definition cut in two) but in a help text.
func (e *soakEditor) enter() soakEdit {
	p := e.pos()
	if line := e.doc.lines[p.Line]; e.rnd.IntN(2) == 0 || quoted(line) {
		p.Character = uint32(len(line))
	}
	return soakEdit{rng: point(p), text: "\n"}
}

// join deletes a line's end: the next line joins it.
func (e *soakEditor) join() soakEdit {
	l := uint32(e.rnd.IntN(len(e.doc.lines) - 2))
	return soakEdit{rng: protocol.Range{Start: protocol.Position{Line: l, Character: uint32(len(e.doc.lines[l]))}, End: protocol.Position{Line: l + 1}}}
}

// pasteBlock copies 2 to 12 whole lines from one place to the start of
// a line elsewhere, their definitions renamed (new metrics). (A name
// defined twice is a finding that names the other line, which makes
// every later edit check the whole file until it is gone: the session
// would then try the incremental analysis no more.)
func (e *soakEditor) pasteBlock() soakEdit {
	n := 2 + e.rnd.IntN(11)
	from := e.rnd.IntN(max(1, len(e.doc.lines)-1-n))
	block := slices.Clone(e.doc.lines[from:min(from+n, len(e.doc.lines)-1)])
	e.paste++
	for i, l := range block {
		block[i] = strings.Replace(l, "bench.", fmt.Sprintf("paste%d.", e.paste), 1)
	}
	return soakEdit{rng: point(protocol.Position{Line: uint32(e.rnd.IntN(len(e.doc.lines) - 1))}), text: strings.Join(block, "\n") + "\n"}
}

// deleteLines deletes from a place in one line to a place 1 to 8 lines
// further (from or to the start of a help text's line).
func (e *soakEditor) deleteLines() soakEdit {
	p := e.pos()
	end := min(int(p.Line)+1+e.rnd.IntN(8), len(e.doc.lines)-2)
	if end <= int(p.Line) {
		return soakEdit{}
	}
	q := protocol.Position{Line: uint32(end), Character: uint32(e.rnd.IntN(len(e.doc.lines[end]) + 1))}
	if quoted(e.doc.lines[p.Line]) {
		p.Character = 0
	}
	if quoted(e.doc.lines[end]) {
		q.Character = 0
	}
	return soakEdit{rng: protocol.Range{Start: p, End: q}}
}

// quoted says a line holds a quoted value (a help text). The editor
// never leaves one open: a value quoted over several lines makes every
// later edit read the lines after it again (libpcp may count them short),
// and a session that left one near the top would try the reading of an
// edit's lines no more. The joined lines, pasted blocks and undos keep
// them closed.
func quoted(line string) bool { return strings.Contains(line, `"`) }

// revert undoes the last n edits, one change each, as an editor's undo
// does.
func (e *soakEditor) revert(n int) []soakEdit {
	var out []soakEdit
	for ; n > 0 && len(e.undo) > 0; n-- {
		u := e.undo[len(e.undo)-1]
		e.undo = e.undo[:len(e.undo)-1]
		e.doc.apply(u)
		out = append(out, u)
	}
	return out
}

// typeAfter types a letter at column col of the first line from a random
// place on (100 lines at most) that starts with prefix or holds it
// after its name: in a comment, or in a help text.
func (e *soakEditor) typeAfter(marker string, col int) soakEdit {
	start := e.rnd.IntN(len(e.doc.lines) - 1)
	for l := start; l < min(start+100, len(e.doc.lines)-1); l++ {
		line := e.doc.lines[l]
		k := strings.Index(line, marker)
		if k < 0 || k+col > len(line) {
			continue
		}
		p := protocol.Position{Line: uint32(l), Character: uint32(k + col)}
		return soakEdit{rng: point(p), text: string("qwerty "[e.rnd.IntN(7)])}
	}
	return soakEdit{}
}

// applyAll applies edits, a client's content changes in order, to the
// editor's copy (a rename's edits, which the user does not undo one by
// one).
func (e *soakEditor) applyAll(edits []soakEdit) {
	for _, ed := range edits {
		e.doc.apply(ed)
	}
	e.undo = e.undo[:0]
}

// contentChanges are edits as one didChange's content changes.
func contentChanges(edits []soakEdit) []protocol.TextDocumentContentChangeEvent {
	out := make([]protocol.TextDocumentContentChangeEvent, len(edits))
	for i, ed := range edits {
		out[i] = &protocol.TextDocumentContentChangePartial{Range: ed.rng, Text: ed.text}
	}
	return out
}

// soakConfig is generatedConfig's with 2% of its lines in error, and a
// derived metric using two of the others every 200 lines (those a
// rename changes in several places): the names soak.useN, using
// bench.mK for K ≡ 1 (mod 8), each defined (no section comment there).
func soakConfig(lines int) string {
	var b strings.Builder
	for i, l := range strings.SplitAfter(generatedConfig(lines, shapeErrors), "\n") {
		b.WriteString(l)
		if i%200 == 199 {
			k := 8*(i/16) + 1
			fmt.Fprintf(&b, "soak.use%d = bench.m%d + bench.m%d * 2\n", i, k, k+8)
		}
	}
	return b.String()
}
