package lsp

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// soakText is the editor's copy of a document during a long session, kept
// as a client keeps it, written here independently of the server: its
// lines, each with its ending ("\n" or "\r\n"; the last line has none, so
// a text ending in a line break has an empty last line), and columns
// counted in UTF-16 units of a line's characters, its ending excluded.
// The session's texts hold characters outside ASCII (two bytes, three,
// and four: two UTF-16 units), so a column is not a byte.
type soakText struct {
	lines []string
}

func newSoakText(text string) *soakText { return &soakText{lines: strings.SplitAfter(text, "\n")} }

func (d *soakText) String() string { return strings.Join(d.lines, "") }

// line is line l's characters, without its ending.
func (d *soakText) line(l int) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.lines[l], "\n"), "\r")
}

// eol is line l's ending: "\n", "\r\n", or "" for the last line.
func (d *soakText) eol(l int) string { return d.lines[l][len(d.line(l)):] }

// width is line l's length in UTF-16 units (the column of its end).
func (d *soakText) width(l int) uint32 { return units16(d.line(l)) }

// units16 is s's length in UTF-16 units.
func units16(s string) uint32 {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return uint32(n)
}

// col16 is the column of byte b of line l: the UTF-16 units before it.
func (d *soakText) col16(l, b int) uint32 { return units16(d.line(l)[:b]) }

// byteAt is the byte of line l at UTF-16 column c, which must fall
// between two characters and within the line: the session's edits never
// split a character or a line ending, as an editor never does.
func (d *soakText) byteAt(l int, c uint32) int {
	line := d.line(l)
	n := uint32(0)
	for b, r := range line {
		if n == c {
			return b
		}
		if n += uint32(utf16.RuneLen(r)); n > c {
			panic(fmt.Sprintf("column %d splits a character of line %d %q", c, l, line))
		}
	}
	if n != c {
		panic(fmt.Sprintf("column %d past the end (%d) of line %d %q", c, n, l, line))
	}
	return len(line)
}

// check says why p is not a place a client could hold in the text: a
// line past the last, a column past its line's end (its ending is not
// part of it) or inside a character (between a surrogate pair's units).
func (d *soakText) check(p protocol.Position) error {
	if int(p.Line) >= len(d.lines) {
		return fmt.Errorf("line %d past the text's %d lines", p.Line, len(d.lines))
	}
	n := uint32(0)
	for _, r := range d.line(int(p.Line)) {
		if n >= p.Character {
			break
		}
		n += uint32(utf16.RuneLen(r))
	}
	if n != p.Character {
		return fmt.Errorf("column %d of line %d %q is past its end (%d units) or inside a character", p.Character, p.Line, d.line(int(p.Line)), d.width(int(p.Line)))
	}
	return nil
}

// soakEdit is one ranged change, as a client sends it.
type soakEdit struct {
	rng  protocol.Range
	text string
}

// apply changes the text as a client applies e, and returns the edit
// that undoes it.
func (d *soakText) apply(e soakEdit) (undo soakEdit) {
	sl, el := int(e.rng.Start.Line), int(e.rng.End.Line)
	from, to := d.byteAt(sl, e.rng.Start.Character), d.byteAt(el, e.rng.End.Character)
	joined := strings.Join(d.lines[sl:el+1], "")
	to += len(joined) - len(d.lines[el])
	removed := joined[from:to]
	parts := strings.SplitAfter(joined[:from]+e.text+joined[to:], "\n")
	if el < len(d.lines)-1 {
		// The last line replaced kept its ending: what follows it
		// is the next line's, not a new empty one.
		parts = parts[:len(parts)-1]
	}
	d.lines = slices.Replace(d.lines, sl, el+1, parts...)
	return soakEdit{rng: protocol.Range{Start: e.rng.Start, End: endOf(e.rng.Start, e.text)}, text: removed}
}

// endOf is where text inserted at start ends.
func endOf(start protocol.Position, text string) protocol.Position {
	n := strings.Count(text, "\n")
	if n == 0 {
		return protocol.Position{Line: start.Line, Character: start.Character + units16(text)}
	}
	return protocol.Position{Line: start.Line + uint32(n), Character: units16(text[strings.LastIndexByte(text, '\n')+1:])}
}

// runeStart is the start of the character byte b of s falls in (s's
// end for a byte past it).
func runeStart(s string, b int) int {
	b = min(b, len(s))
	for b > 0 && b < len(s) && !utf8.RuneStart(s[b]) {
		b--
	}
	return b
}

// wide says whether s holds a character outside ASCII.
func wide(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// soakDoc is how a session's config is written.
type soakDoc struct {
	lines int
	// eols are its line endings, taken in turn line after line.
	eols []string
	// multiLine adds, in its second half, help texts quoted over
	// several lines (escapes, a backslash before a line break) and
	// definitions continued over lines (the latest releases).
	multiLine bool
}

// soakConfig is generatedConfig's with 2% of its lines in error, and
// every 200 lines a derived metric using two of the others (those a
// rename changes in several places): the names soak.useN, using bench.mK
// for K ≡ 1 (mod 8), each defined (no section comment there). After each
// come lines with characters outside ASCII (wideLines) and, in the
// second half of a multiLine doc, half way to the next, values over
// lines (multiLines).
func soakConfig(doc soakDoc) string {
	var b strings.Builder
	n := 0
	put := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteString(doc.eols[n%len(doc.eols)])
		n++
	}
	for i, l := range strings.Split(strings.TrimSuffix(generatedConfig(doc.lines, shapeErrors), "\n"), "\n") {
		put("%s", l)
		if i%200 == 199 {
			k := 8*(i/16) + 1
			put("soak.use%d = bench.m%d + bench.m%d * 2", i, k, k+8)
			wideLines(put, i, k)
		}
		if doc.multiLine && i%200 == 99 && i > doc.lines/2 {
			multiLines(put, i, 8*(i/16)+1)
		}
	}
	return b.String()
}

// wideLines writes the lines of soakConfig with characters outside ASCII
// for line i: a comment; a definition using bench.mK after an instance
// name of them (an error there: a counter added to a rate), with help
// texts quoted by either quote; one with an unknown metric after them
// (its "did you mean") and one with them where an expression cannot
// have them; and a units string of them.
func wideLines(put func(string, ...any), i, k int) {
	put("# ✓ bench.uni%d: café, 日本語, 🎉 (ü)", i)
	put("bench.uni%d = disk.dev.read[sdé 🎉] / 2 + bench.m%d", i, k)
	put(`bench.uni%d(oneline) = "é 日本 🎉 one line"`, i)
	put(`bench.uni%d(helptext) = 'naïve 😀 help "text" 🎉'`, i)
	put("bench.uni%d.bad = mem.util.used[é 🎉] + kernel.all.lod", i)
	put("bench.uni%d.ill = bench.m%d * 2 + « 🎉 »", i, k)
	put(`bench.uni%d.units = rescale(bench.m%d, "Kbyte ü")`, i, k)
}

// multiLines writes the lines of soakConfig with values over several
// lines for line i: a help text with a line continued (libpcp drops its
// line break, but after "\r\n" it drops the "\r" only), escaped quotes
// and backslashes; a definition continued on the next line (a line of
// its own, and an illegal character, before 6.2.2); and one too long for
// a line, which Format Document lays out over continuation lines on the
// latest release, but on a CRLF line.
func multiLines(put func(string, ...any), i, k int) {
	put("bench.ml%d = bench.m%d * 2", i, k)
	put(`bench.ml%d(helptext) = "naïve 😀 first line \`, i)
	put(`continued after a backslash, an \"escaped\" quote,`)
	put(`a 日本語 line and a \\ backslash 🎉"`)
	put(`bench.ml%d.cont = bench.m%d + \`, i, k)
	put("    bench.m%d * 2", k+8)
	put("bench.ml%d.long = kernel.all.cpu.user+kernel.all.cpu.sys+kernel.all.cpu.nice+kernel.all.cpu.intr-kernel.all.cpu.idle", i)
}
