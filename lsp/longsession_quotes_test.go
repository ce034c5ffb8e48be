package lsp

import (
	"strings"

	"go.lsp.dev/protocol"
)

// quoteOp starts what a user does to a help text on the way to another
// one: it opens a quoted value over lines and closes it again a few
// edits later, each step an edit of its own (analysed alone, or composed
// in a burst). While the value is open the lines after it mean something
// else to libpcp (a value running on to the next quote of its kind, which
// opens the next; or to the end of the text, every later definition
// lost), and when it closes they mean again what they meant. The steps
// after the first wait in pending; between them the user types on the
// line below, inside the open value.
func (e *soakEditor) quoteOp() (string, soakEdit) {
	l, b0, b1, ok := e.lineWith(closedHelpValue)
	if !ok {
		return "quote", soakEdit{}
	}
	line := e.doc.line(l)
	open, closing := e.doc.col16(l, b0-1), e.doc.col16(l, b1)
	insert := func(c uint32, text string) func() (string, soakEdit) {
		return func() (string, soakEdit) { return "quote closed", soakEdit{rng: point(lc(l, c)), text: text} }
	}
	remove := func(c uint32) func() (string, soakEdit) {
		return func() (string, soakEdit) {
			return "quote closed", soakEdit{rng: protocol.Range{Start: lc(l, c), End: lc(l, c+1)}}
		}
	}
	switch e.rnd.IntN(4) {
	case 0:
		// The closing quote deleted, and typed again.
		e.pending = append(e.pending, e.typeBelow(l), insert(closing, line[b1:b1+1]))
		return "quote unclosed", soakEdit{rng: protocol.Range{Start: lc(l, closing), End: lc(l, closing+1)}}
	case 1:
		// The closing quote escaped, and the backslash deleted.
		e.pending = append(e.pending, e.typeBelow(l), remove(closing))
		return "quote escaped", soakEdit{rng: point(lc(l, closing)), text: `\`}
	case 2:
		// The other quote typed before the opening one (a value
		// delimited by it, to its next one or the text's end), and
		// deleted.
		other := map[byte]string{'"': "'", '\'': `"`}[line[b0-1]]
		e.pending = append(e.pending, e.typeBelow(l), remove(open))
		return "quote opened", soakEdit{rng: point(lc(l, open)), text: other}
	default:
		return e.splitValue(l, b0, b1)
	}
}

// splitValue splits a help text's value over two lines with an Enter
// (a value over lines, closed: libpcp keeps its line break), types on
// its second line, ends its first with a backslash (libpcp drops the
// line break after one) and deletes it, and joins the two lines again.
func (e *soakEditor) splitValue(l, b0, b1 int) (string, soakEdit) {
	c := e.between(l, b0, b1)
	step := func(kind string, ed soakEdit) func() (string, soakEdit) {
		return func() (string, soakEdit) { return kind, ed }
	}
	e.pending = append(e.pending,
		e.typeBelow(l),
		step("value continued", soakEdit{rng: point(lc(l, c)), text: `\`}),
		step("value continued no more", soakEdit{rng: protocol.Range{Start: lc(l, c), End: lc(l, c+1)}}),
		func() (string, soakEdit) {
			return "value joined", soakEdit{rng: protocol.Range{Start: lc(l, c), End: lc(l+1, 0)}}
		})
	return "value split", soakEdit{rng: point(lc(l, c)), text: e.eol()}
}

// typeBelow is the step that types a letter on the line after line l,
// at a character boundary (not after a backslash).
func (e *soakEditor) typeBelow(l int) func() (string, soakEdit) {
	return func() (string, soakEdit) {
		below := min(l+1, len(e.doc.lines)-1)
		return "typed in the value", soakEdit{rng: point(lc(below, e.between(below, 0, len(e.doc.line(below))))), text: "v"}
	}
}

// closedHelpValue finds a help text whose quoted value closes at its
// line's end: from after its opening quote to its closing one.
func closedHelpValue(line string) (b0, b1 int, ok bool) {
	b0, b1, ok = helpValue(line)
	if !ok || b1 != len(line)-1 || strings.ContainsRune(line[b0:b1], rune(line[b1])) {
		return 0, 0, false
	}
	return b0, b1, true
}
