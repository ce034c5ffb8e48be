package grammar

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// col16Step is the spacing of File.col16At's checkpoints.
const col16Step = 4096

// col16Mark is the UTF-16 column of the rune starting at offset, counted
// from its line's start.
type col16Mark struct {
	offset, col16 int
}

// char16 measures the character at the start of b: how many UTF-16 code
// units it is (LSP columns count them) and how many bytes. An invalid
// byte is one byte and, decoded as U+FFFD, one unit. It is the one place
// positions count UTF-16.
func char16(b []byte) (units, size int) {
	if b[0] < utf8.RuneSelf { // ASCII: one unit, no decoding
		return 1, 1
	}
	r, size := utf8.DecodeRune(b)
	return utf16.RuneLen(r), size
}

// asciiRun is the length of b's leading run of ASCII bytes, read eight
// at a time: a position on a long line counts up to col16Step bytes, and
// a hostile line has a finding every few bytes.
func asciiRun(b []byte) int {
	n := 0
	for ; n+8 <= len(b); n += 8 {
		if binary.LittleEndian.Uint64(b[n:])&0x8080808080808080 != 0 {
			break
		}
	}
	for n < len(b) && b[n] < utf8.RuneSelf {
		n++
	}
	return n
}

// col16Marks records, for every col16Step bytes of src, the first rune
// start at or after the step and its UTF-16 column within its line.
func col16Marks(src []byte) []col16Mark {
	marks := make([]col16Mark, 0, len(src)/col16Step+1)
	col16 := 0
	for i := 0; i < len(src); {
		if i >= len(marks)*col16Step {
			marks = append(marks, col16Mark{i, col16})
		}
		if src[i] == '\n' {
			col16 = 0
			i++
			continue
		}
		units, size := char16(src[i:])
		col16 += units
		i += size
	}
	return marks
}

// Pos converts a file offset to a position.
func (f *File) Pos(offset int) Pos {
	t := f.Text
	offset = max(0, min(offset, t.size))
	r, i := t.locate(offset)
	base := t.pieceOff(r)
	line, start := t.pieceLine(r)+i, base+int(t.piece(r).starts[i])
	return Pos{Line: int32(line + 1), Col: int32(offset - start + 1), Col16: int32(t.col16(r, start-base, offset-base))}
}

// col16 is the UTF-16 column of offset rel of piece r on the line that
// starts at offset start of the piece (a line as libpcp reads it, to
// "\n").
func (t *Text) col16(r pieceRef, start, rel int) int {
	p := t.piece(r)
	from, col16 := start, 0
	if step := rel / col16Step; step < len(p.marks) {
		// The checkpoint of rel's step, or the one before when that
		// one lies past rel (it moved to a rune start); only a
		// checkpoint on rel's own line helps.
		m := p.marks[step]
		if m.offset > rel && step > 0 {
			m = p.marks[step-1]
		}
		if m.offset >= from && m.offset <= rel {
			from, col16 = m.offset, m.col16
		}
	}
	b := p.b[:rel]
	for i := from; i < rel; {
		if n := asciiRun(b[i:]); n > 0 {
			col16 += n // one unit a byte
			i += n
			continue
		}
		units, size := char16(b[i:])
		col16 += units
		i += size
	}
	// The "\r" of a line's "\r\n" is in no column, as LSP counts (Offset
	// is the converse): a range that ends at a CRLF line's end ends
	// before it, not between its "\r" and "\n". (A piece ends with
	// "\n" or the text, so its "\r\n"s lie in it whole.)
	if rel > start && p.b[rel-1] == '\r' && rel < len(p.b) && p.b[rel] == '\n' {
		col16--
	}
	return col16
}

// OffsetOf converts a position of the file to its byte offset (Pos keeps
// none: see Pos), clamped to the text.
func (f *File) OffsetOf(p Pos) int {
	if p.Line < 1 {
		return 0
	}
	if int(p.Line) > f.Text.LineCount() {
		return f.Text.size
	}
	return min(f.Text.LineStart(int(p.Line)-1)+int(p.Col)-1, f.Text.size)
}

// Covers reports whether offset lies in r, a range of the file, its end
// included (a cursor just after a name is on it).
func (f *File) Covers(r Range, offset int) bool {
	start, end := f.Offsets(r)
	return offset >= start && offset <= end
}

// Offsets converts a range of the file to byte offsets.
func (f *File) Offsets(r Range) (start, end int) { return f.OffsetOf(r.Start), f.OffsetOf(r.End) }

// Line returns the text of a 1-based line without its newline.
func (f *File) Line(n int) string {
	b := f.Text.LineBytes(n - 1)
	b = bytes.TrimSuffix(b, []byte("\n"))
	return strings.TrimSuffix(string(b), "\r")
}

// Len is the file's size in bytes.
func (f *File) Len() int { return f.Text.size }
