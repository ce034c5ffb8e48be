package grammar

import (
	"bytes"
	"sort"
)

// Positions as LSP counts them. The LSP ends a line at "\n", "\r\n" or a
// lone "\r", and every client counts positions that way; libpcp reads a
// file by "\n" only, a lone "\r" being an ordinary character of its line.
// A Pos is libpcp's (its Line is a line to "\n": findings say what libpcp
// says), and the conversions here, through byte offsets, are the one place
// the two countings meet: a Text keeps where its lone "\r"s are (per
// piece, counted per group), so a text without one, nearly every text,
// converts as before and one with many converts in logarithmic time.

// loneCRs is where b's lone "\r"s are: those not followed by "\n". A
// piece ends with "\n" or the text, so whether a "\r" is lone is decided
// within its piece.
func loneCRs(b []byte) []int32 {
	var out []int32
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], '\r')
		if j < 0 {
			return out
		}
		if i += j; i+1 == len(b) || b[i+1] != '\n' {
			out = append(out, int32(i))
		}
	}
}

// LoneCRs is how many lone "\r"s (not followed by "\n") the text holds:
// each ends an LSP line in the middle of one of libpcp's.
func (t *Text) LoneCRs() int {
	last := len(t.groups) - 1
	return t.gCRs[last] + t.groups[last].ncrs
}

// LSPLineCount is the number of lines as LSP counts them.
func (t *Text) LSPLineCount() int { return t.LineCount() + t.LoneCRs() }

// Position converts a byte offset (clamped to the text) to an LSP
// position: a 0-based line, lines ending at "\n", "\r\n" or a lone "\r",
// and a UTF-16 column. An offset between a "\r\n"'s two bytes is its
// line's end.
func (t *Text) Position(offset int) (line0, col16 int) {
	offset = max(0, min(offset, t.size))
	r, i := t.locate(offset)
	p, base := t.piece(r), t.pieceOff(r)
	start, rel := int(p.starts[i]), offset-base
	col16 = t.col16(r, start, rel)
	before := sort.Search(len(p.crs), func(k int) bool { return int(p.crs[k]) >= rel })
	line0 = t.pieceLine(r) + i + t.gCRs[r.g] + t.groups[r.g].crs[r.k] + before
	if before > 0 && int(p.crs[before-1]) >= start {
		// The line starts after a lone "\r" of libpcp's line: the
		// column counts from there (UTF-16 units add up).
		col16 -= t.col16(r, start, int(p.crs[before-1])+1)
	}
	return line0, col16
}

// Position converts a position of the file to an LSP position (see
// Text.Position): p's own line and column when the text has no lone
// "\r", the common case, at no cost.
func (f *File) Position(p Pos) (line0, col16 int) {
	if f.Text.LoneCRs() == 0 {
		return max(int(p.Line)-1, 0), int(p.Col16)
	}
	return f.Text.Position(f.OffsetOf(p))
}

// Offset converts a 0-based line and UTF-16 column (an LSP position) to a
// byte offset, clamped to the line.
func (f *File) Offset(line0, col16 int) int { return f.Text.Offset(line0, col16) }

// Offset converts an LSP position, a 0-based line (lines ending at "\n",
// "\r\n" or a lone "\r") and a UTF-16 column, to a byte offset, clamped to
// the line: 0 before the text, its end past it. A line's end is before
// its "\r\n", "\n" or "\r", as LSP counts: a column past the end of a
// CRLF line is not between its "\r" and "\n" (an edit there would split
// the line ending).
func (t *Text) Offset(line0, col16 int) int {
	if line0 < 0 {
		return 0
	}
	if line0 >= t.LSPLineCount() {
		return t.size
	}
	r, off, end := t.lspLineAt(line0)
	b := t.piece(r).b
	if end > off && b[end-1] == '\r' && end < len(b) && b[end] == '\n' {
		end--
	}
	for n := 0; off < end && n < col16; {
		units, size := char16(b[off:end])
		n += units
		off += size
	}
	return t.pieceOff(r) + off
}

// lspLineAt locates 0-based LSP line (within the text): its piece, and
// its start and end (before its "\n" or lone "\r"; a "\r\n"'s "\r" is
// left to the caller) as offsets in the piece.
func (t *Text) lspLineAt(line int) (r pieceRef, start, end int) {
	if t.LoneCRs() == 0 {
		return t.lineAt(line)
	}
	r.g = max(0, sort.Search(len(t.gLines), func(g int) bool { return t.gLines[g]+t.gCRs[g] > line })-1)
	grp, rel := t.groups[r.g], line-t.gLines[r.g]-t.gCRs[r.g]
	r.k = max(0, sort.Search(len(grp.lines), func(k int) bool { return grp.lines[k]+grp.crs[k] > rel })-1)
	p := grp.pieces[r.k]
	j := rel - grp.lines[r.k] - grp.crs[r.k] // the line among the piece's
	if len(p.crs) == 0 {
		return t.lineAt(t.pieceLine(r) + j)
	}
	// The piece's LSP lines start at its starts and after each lone
	// "\r": line j starts at the first offset with j+1 starts up to it.
	startsTo := func(x int) int {
		return sort.Search(len(p.starts), func(k int) bool { return int(p.starts[k]) > x }) +
			sort.Search(len(p.crs), func(k int) bool { return int(p.crs[k])+1 > x })
	}
	start = sort.Search(len(p.b)+1, func(x int) bool { return startsTo(x) > j })
	end = len(p.b)
	if k := sort.Search(len(p.starts), func(k int) bool { return int(p.starts[k]) > start }); k < len(p.starts) {
		end = int(p.starts[k]) - 1 // its "\n"
	} else if endsLine(p.b) {
		end--
	}
	if k := sort.Search(len(p.crs), func(k int) bool { return int(p.crs[k]) >= start }); k < len(p.crs) {
		end = min(end, int(p.crs[k]))
	}
	return r, start, end
}

// LSPLineOf is the LSP line of offset (clamped to the text) and the offset
// where that line starts: what a reader of Python's universal newlines
// (pmrep's and pcp-dstat's configparser) takes for the line.
func (t *Text) LSPLineOf(offset int) (line0, start int) {
	line0, _ = t.Position(offset)
	return line0, t.LSPLineStart(line0)
}

// LSPLineStart is the offset where LSP line line0 starts: 0 before the
// first line, the text's end past the last.
func (t *Text) LSPLineStart(line0 int) int { return t.Offset(line0, 0) }

// LSPLineBytes is LSP line line0's bytes with its ending ("\n", "\r\n" or a
// lone "\r") if it has one, nil past the text's lines.
func (t *Text) LSPLineBytes(line0 int) []byte {
	if line0 < 0 || line0 >= t.LSPLineCount() {
		return nil
	}
	return t.Slice(t.LSPLineStart(line0), t.LSPLineStart(line0+1))
}
