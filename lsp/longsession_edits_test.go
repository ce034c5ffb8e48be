package lsp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// soakEditor makes a user's edits, at random places (seeded): typing,
// Enter, joined lines, pasted and deleted blocks, undoing, typing in
// comments and help texts, editing after characters outside ASCII, and
// opening a quoted value over lines and closing it again (quotes.go's
// quoteOp).
type soakEditor struct {
	doc *soakText
	rnd *rand.Rand
	// eols are the line endings Enter inserts, one at random: "\n" as
	// on Linux, "\r\n" as a Windows editor does.
	eols []string
	// quotes is the share, in a hundred, of the edits that start a
	// quoteOp; pending are its steps still to make, each an edit of its
	// own, made before any other.
	quotes  int
	pending []func() (string, soakEdit)
	undo    []soakEdit // the inverses of the edits made, latest last
	paste   int        // pasted blocks so far, to name their copies
}

// col is a column of line l: between two of its characters, as an
// editor's cursor is.
func (e *soakEditor) col(l int) uint32 {
	line := e.doc.line(l)
	return e.doc.col16(l, runeStart(line, e.rnd.IntN(len(line)+1)))
}

// pos is a place in the document: a line other than the last (empty)
// one, and a column in it.
func (e *soakEditor) pos() protocol.Position {
	l := e.rnd.IntN(len(e.doc.lines) - 1)
	return protocol.Position{Line: uint32(l), Character: e.col(l)}
}

func point(p protocol.Position) protocol.Range { return protocol.Range{Start: p, End: p} }

func lc(l int, c uint32) protocol.Position { return protocol.Position{Line: uint32(l), Character: c} }

// typed are the characters a user types in an expression: letters that
// make a metric name unknown (and its "did you mean"), operators and
// digits that may break an expression, spaces that change nothing libpcp
// reads.
const typed = "abcxyz._+*( )12"

// prose are the characters a user types in comments and help texts, and
// after characters outside ASCII: letters and, outside ASCII, one of two
// bytes, one of three and one of four (two UTF-16 units).
var prose = []string{"q", "w", "e", "r", "t", "y", " ", "é", "日", "🎉"}

// eol is a line ending, as the user's editor writes them.
func (e *soakEditor) eol() string { return e.eols[e.rnd.IntN(len(e.eols))] }

// next makes the next edit (nil when it found nothing to do), applied to
// the editor's copy; kind names it for failure messages.
func (e *soakEditor) next() (kind string, edits []soakEdit) {
	var ed soakEdit
	switch r := e.rnd.IntN(100); {
	case len(e.pending) > 0:
		step := e.pending[0]
		e.pending = e.pending[1:]
		kind, ed = step()
		if len(e.pending) == 0 {
			// Undoing a step alone would reopen the value: the
			// user does not undo through a quoteOp.
			defer func() { e.undo = e.undo[:0] }()
		}
	case r < e.quotes:
		kind, ed = e.quoteOp()
	case r < 26:
		kind, ed = "type", soakEdit{rng: point(e.pos()), text: string(typed[e.rnd.IntN(len(typed))])}
	case r < 35:
		kind, ed = "backspace", e.backspace(e.pos())
	case r < 48:
		kind, ed = "enter", e.enter()
	case r < 55:
		kind, ed = "join", e.join()
	case r < 61:
		kind, ed = "paste", e.pasteBlock()
	case r < 67:
		kind, ed = "delete lines", e.deleteLines()
	case r < 76:
		return "undo", e.revert(1 + e.rnd.IntN(3))
	case r < 82:
		kind, ed = "comment", e.typeInComment()
	case r < 90:
		kind, ed = "help text", e.typeInHelp()
	default:
		kind, ed = e.afterWide()
	}
	if ed.rng == (protocol.Range{}) && ed.text == "" {
		return kind, nil
	}
	e.undo = append(e.undo, e.doc.apply(ed))
	return kind, []soakEdit{ed}
}

// backspace deletes the character before p, but a quote, a backslash
// or an escaped character (which would open a quoted value over lines:
// quoteOp does that).
func (e *soakEditor) backspace(p protocol.Position) soakEdit {
	line := e.doc.line(int(p.Line))
	b := e.doc.byteAt(int(p.Line), p.Character)
	r, size := utf8.DecodeLastRuneInString(line[:b])
	if b == 0 || strings.ContainsRune(quoting, r) || strings.HasSuffix(line[:b-size], `\`) {
		return soakEdit{}
	}
	return soakEdit{rng: protocol.Range{Start: lc(int(p.Line), p.Character-uint32(utf16.RuneLen(r))), End: p}}
}

// quoting are the characters that open, close or escape a quoted value.
const quoting = `"'\`

// quoted says a line holds a quoted value (a help text), or a part of
// one. The editor's random edits never open one (quoteOp does, and
// closes it again): a value left open makes every later edit read the
// rest of the text again, and a session that left one near the top
// would try the reading of an edit's lines no more. The joined lines,
// pasted blocks and undos keep them closed (but those that cut a value
// written over several lines, in the sessions that have them).
func quoted(line string) bool { return strings.ContainsAny(line, quoting) }

// enter splits a line: at its end half the time (a new empty line), or
// anywhere in it (a definition cut in two) but in a help text.
func (e *soakEditor) enter() soakEdit {
	p := e.pos()
	if e.rnd.IntN(2) == 0 || quoted(e.doc.line(int(p.Line))) {
		p.Character = e.doc.width(int(p.Line))
	}
	return soakEdit{rng: point(p), text: e.eol()}
}

// join deletes a line's end: the next line joins it.
func (e *soakEditor) join() soakEdit {
	l := e.rnd.IntN(len(e.doc.lines) - 2)
	return soakEdit{rng: protocol.Range{Start: lc(l, e.doc.width(l)), End: lc(l+1, 0)}}
}

// pasteBlock copies 2 to 12 whole lines, their endings with them, from
// one place to the start of a line elsewhere, their definitions renamed
// (new metrics). (A name defined twice is a finding that names the
// other line, which makes every later edit check the whole file until it
// is gone: the session would then try the incremental analysis no more.)
func (e *soakEditor) pasteBlock() soakEdit {
	n := 2 + e.rnd.IntN(11)
	from := e.rnd.IntN(max(1, len(e.doc.lines)-1-n))
	block := slices.Clone(e.doc.lines[from:min(from+n, len(e.doc.lines)-1)])
	e.paste++
	for i, l := range block {
		block[i] = strings.Replace(l, "bench.", fmt.Sprintf("paste%d.", e.paste), 1)
	}
	return soakEdit{rng: point(lc(e.rnd.IntN(len(e.doc.lines)-1), 0)), text: strings.Join(block, "")}
}

// deleteLines deletes from a place in one line to a place 1 to 8 lines
// further (from or to the start of a help text's line).
func (e *soakEditor) deleteLines() soakEdit {
	p := e.pos()
	end := min(int(p.Line)+1+e.rnd.IntN(8), len(e.doc.lines)-2)
	if end <= int(p.Line) {
		return soakEdit{}
	}
	q := lc(end, e.col(end))
	if quoted(e.doc.line(int(p.Line))) {
		p.Character = 0
	}
	if quoted(e.doc.line(end)) {
		q.Character = 0
	}
	return soakEdit{rng: protocol.Range{Start: p, End: q}}
}

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

// lineWith is the first line from a random place on (200 lines at most)
// where find finds something, and what it found.
func (e *soakEditor) lineWith(find func(line string) (b0, b1 int, ok bool)) (l, b0, b1 int, ok bool) {
	start := e.rnd.IntN(len(e.doc.lines) - 1)
	for l := start; l < min(start+200, len(e.doc.lines)-1); l++ {
		if b0, b1, ok := find(e.doc.line(l)); ok {
			return l, b0, b1, true
		}
	}
	return 0, 0, 0, false
}

// between is a character boundary of line l from byte b0 to b1, not
// right after a backslash (a character typed there would be escaped,
// and the one it escaped no more).
func (e *soakEditor) between(l, b0, b1 int) uint32 {
	line := e.doc.line(l)
	b := runeStart(line, b0+e.rnd.IntN(b1-b0+1))
	if b > 0 && line[b-1] == '\\' {
		b = b0
	}
	return e.doc.col16(l, b)
}

// typeProse types a character of prose at column c of line l.
func (e *soakEditor) typeProse(l int, c uint32) soakEdit {
	return soakEdit{rng: point(lc(l, c)), text: prose[e.rnd.IntN(len(prose))]}
}

// typeInComment types in a comment line, after its "#".
func (e *soakEditor) typeInComment() soakEdit {
	l, b0, b1, ok := e.lineWith(func(line string) (int, int, bool) {
		return 1, len(line), strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "#control")
	})
	if !ok {
		return soakEdit{}
	}
	return e.typeProse(l, e.between(l, b0, b1))
}

// typeInHelp types in a help text, between its quotes (or to its line's
// end, where its value runs on over the next lines).
func (e *soakEditor) typeInHelp() soakEdit {
	l, b0, b1, ok := e.lineWith(helpValue)
	if !ok {
		return soakEdit{}
	}
	return e.typeProse(l, e.between(l, b0, b1))
}

// helpValue finds an attribute's quoted value in line: from after its
// opening quote to its closing one, or to the line's end when it has
// none (a value over several lines).
func helpValue(line string) (b0, b1 int, ok bool) {
	k := strings.Index(line, ") = ")
	if k < 0 || k+5 > len(line) || !strings.ContainsRune(`"'`, rune(line[k+4])) {
		return 0, 0, false
	}
	b0 = k + 5
	if c := strings.LastIndexByte(line, line[k+4]); c >= b0 {
		return b0, c, true
	}
	return b0, len(line), true
}

// afterWide edits a line after its first character outside ASCII: types
// a character there (one outside ASCII too, now and then), deletes the
// one before, splits the line or deletes a few characters, so that every
// kind of edit has columns the server converts to bytes and back.
func (e *soakEditor) afterWide() (string, soakEdit) {
	l, b0, b1, ok := e.lineWith(func(line string) (int, int, bool) {
		for b, r := range line {
			if r >= utf8.RuneSelf {
				return b + utf8.RuneLen(r), len(line), true
			}
		}
		return 0, 0, false
	})
	if !ok {
		return "after wide", soakEdit{}
	}
	line := e.doc.line(l)
	c := e.between(l, b0, b1)
	switch e.rnd.IntN(4) {
	case 0:
		return "type after wide", e.typeProse(l, c)
	case 1:
		return "backspace after wide", e.backspace(lc(l, c))
	case 2:
		if quoted(line) {
			c = e.doc.width(l)
		}
		return "enter after wide", soakEdit{rng: point(lc(l, c)), text: e.eol()}
	default:
		b := e.doc.byteAt(l, c)
		end := runeStart(line, b+e.rnd.IntN(len(line)-b+1))
		if strings.ContainsAny(line[b:end], quoting) {
			return "delete after wide", soakEdit{}
		}
		return "delete after wide", soakEdit{rng: protocol.Range{Start: lc(l, c), End: lc(l, e.doc.col16(l, end))}}
	}
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
