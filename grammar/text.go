package grammar

import (
	"bytes"
	"iter"
	"sort"
	"sync/atomic"
)

// pieceSize is the size a Text's pieces are cut to, at a line's end: an
// edit copies the piece it falls in (a few kilobytes) and the Text's
// per-piece offsets (a few thousand entries for a 5 MB file), instead of
// the whole text and a line index of one entry a line.
const pieceSize = 4096

// Text is a file's bytes, immutable, held as pieces of whole lines with
// their line starts. Replace makes the text of an edit sharing every
// piece the edit leaves alone, so an editor's keystroke costs the piece
// it falls in and not the file: a 100,000-line document was copied whole
// (4.9 MB) with its line index (0.8 MB) on every keystroke, and the
// garbage collector's share of a keystroke grew with it.
//
// Every piece but the last ends with a newline, and the last has none
// (it may be empty), so each line lies in one piece and a position's
// column is counted within it.
type Text struct {
	pieces []*textPiece
	offs   []int // offs[i]: the offset of pieces[i]'s first byte
	lines  []int // lines[i]: the 0-based line of pieces[i]'s first byte
	size   int
	// flat is the whole text in one slice, once made (Bytes) or when the
	// Text was made of one (NewText).
	flat atomic.Pointer[[]byte]
}

// textPiece is one run of whole lines.
type textPiece struct {
	b      []byte
	starts []int32     // where its lines start in b: 0, and after each newline short of its end
	marks  []col16Mark // UTF-16 checkpoints of a long piece (col16Marks), offsets in b
}

// NewText holds src as a Text, without a copy: src must not change.
func NewText(src []byte) *Text {
	t := &Text{size: len(src)}
	n := len(src)/pieceSize + 1
	t.pieces, t.offs, t.lines = make([]*textPiece, 0, n), make([]int, 0, n), make([]int, 0, n)
	t.appendPieces(src, 0, 0, true)
	t.flat.Store(&src)
	return t
}

// appendPieces cuts b, the bytes at offset off and line line of the
// text, into pieces. b ends with a newline unless last (the text's end).
func (t *Text) appendPieces(b []byte, off, line int, last bool) {
	for len(b) > 0 {
		end := len(b)
		if len(b) > 2*pieceSize {
			if nl := bytes.IndexByte(b[pieceSize-1:], '\n'); nl >= 0 {
				end = pieceSize + nl // just past that newline
			}
		}
		p := newPiece(b[:end:end])
		t.pieces, t.offs, t.lines = append(t.pieces, p), append(t.offs, off), append(t.lines, line)
		off, line, b = off+end, line+len(p.starts), b[end:]
	}
	if n := len(t.pieces); last && (n == 0 || endsLine(t.pieces[n-1].b)) {
		// The line after the text's last newline, empty.
		t.pieces, t.offs, t.lines = append(t.pieces, &textPiece{starts: []int32{0}}), append(t.offs, off), append(t.lines, line)
	}
}

func endsLine(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

func newPiece(b []byte) *textPiece {
	p := &textPiece{b: b, starts: make([]int32, 1, bytes.Count(b, []byte{'\n'})+1)}
	for i, c := range b[:len(b)-1] {
		if c == '\n' {
			p.starts = append(p.starts, int32(i+1))
		}
	}
	// Checkpoints only for a piece with a line too long to count a
	// column of from its start.
	for i, st := range p.starts {
		end := int32(len(b))
		if i+1 < len(p.starts) {
			end = p.starts[i+1]
		}
		if end-st > col16Step {
			p.marks = col16Marks(b)
			break
		}
	}
	return p
}

// Len is the text's size in bytes.
func (t *Text) Len() int { return t.size }

// Bytes is the whole text in one slice, made on first use (a copy of
// every piece: O(size) once per Text) and shared after; it must not be
// changed.
func (t *Text) Bytes() []byte {
	if b := t.flat.Load(); b != nil {
		return *b
	}
	b := make([]byte, 0, t.size)
	for _, p := range t.pieces {
		b = append(b, p.b...)
	}
	t.flat.Store(&b)
	return b
}

// String is the whole text (Bytes) as a string, without another copy.
func (t *Text) String() string { return textOf(t.Bytes()) }

// pieceAt is the index of the piece holding offset (clamped to the
// text): the last one starting at or before it.
func (t *Text) pieceAt(offset int) int {
	return sort.Search(len(t.offs), func(i int) bool { return t.offs[i] > offset }) - 1
}

// LineCount is the number of lines: one more than the newlines.
func (t *Text) LineCount() int {
	last := len(t.pieces) - 1
	return t.lines[last] + len(t.pieces[last].starts)
}

// LineOf is the 0-based line of offset (clamped to the text) and the
// offset where that line starts.
func (t *Text) LineOf(offset int) (line, start int) {
	k, i := t.locate(offset)
	return t.lines[k] + i, t.offs[k] + int(t.pieces[k].starts[i])
}

// locate finds offset (clamped to the text): its piece k and the index i
// of its line among the piece's.
func (t *Text) locate(offset int) (k, i int) {
	offset = max(0, min(offset, t.size))
	k = t.pieceAt(offset)
	p, rel := t.pieces[k], int32(offset-t.offs[k])
	return k, sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > rel }) - 1
}

// lineAt locates 0-based line (within the text): its piece, and its
// start and end (before its newline) as offsets in the piece.
func (t *Text) lineAt(line int) (k, start, end int) {
	k = sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > line }) - 1
	p := t.pieces[k]
	i := line - t.lines[k]
	start, end = int(p.starts[i]), len(p.b)
	if i+1 < len(p.starts) {
		end = int(p.starts[i+1]) - 1
	} else if endsLine(p.b) {
		end--
	}
	return k, start, end
}

// LineStart is the offset where 0-based line starts: 0 before the first
// line, the text's end past the last.
func (t *Text) LineStart(line int) int {
	switch {
	case line <= 0:
		return 0
	case line >= t.LineCount():
		return t.size
	}
	k, start, _ := t.lineAt(line)
	return t.offs[k] + start
}

// LineBytes is 0-based line's bytes, with its newline if it has one (nil
// past the text's lines), shared with the text.
func (t *Text) LineBytes(line int) []byte {
	if line < 0 || line >= t.LineCount() {
		return nil
	}
	k, start, end := t.lineAt(line)
	p := t.pieces[k]
	if end < len(p.b) {
		end++ // the newline
	}
	return p.b[start:end:end]
}

// Lines yields each line's offset and bytes (with its newline, if it has
// one), read in place: a scan of every line without Bytes' copy.
func (t *Text) Lines() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for k, p := range t.pieces {
			for i, st := range p.starts {
				end := len(p.b)
				if i+1 < len(p.starts) {
					end = int(p.starts[i+1])
				}
				if !yield(t.offs[k]+int(st), p.b[st:end:end]) {
					return
				}
			}
		}
	}
}

// Slice is the bytes [from, to) (clamped to the text): shared with the
// text when they lie in one piece, a copy otherwise.
func (t *Text) Slice(from, to int) []byte {
	var one, out []byte
	for span := range t.spans(from, to) {
		switch {
		case one == nil:
			one = span
		case out == nil:
			out = append(make([]byte, 0, to-from), one...)
			fallthrough
		default:
			out = append(out, span...)
		}
	}
	if out != nil {
		return out
	}
	return one
}

// HasByte reports whether c is among bytes [from, to) (clamped to the
// text), read in place.
func (t *Text) HasByte(c byte, from, to int) bool {
	for span := range t.spans(from, to) {
		if bytes.IndexByte(span, c) >= 0 {
			return true
		}
	}
	return false
}

// spans yields the bytes [from, to) (clamped to the text) as they lie in
// the pieces, one non-empty slice a piece, shared with the text.
func (t *Text) spans(from, to int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		from, to := max(0, min(from, t.size)), max(0, min(to, t.size))
		if from >= to {
			return
		}
		for k := t.pieceAt(from); k < len(t.pieces) && t.offs[k] < to; k++ {
			p := t.pieces[k].b
			lo, hi := max(0, from-t.offs[k]), min(len(p), to-t.offs[k])
			if lo < hi && !yield(p[lo:hi:hi]) {
				return
			}
		}
	}
}

// Replace is the text with bytes [start, end) replaced by ins (start and
// end clamped to the text, end at least start). It copies the pieces the
// change touches, and the per-piece offsets.
func (t *Text) Replace(start, end int, ins []byte) *Text {
	start = max(0, min(start, t.size))
	end = max(start, min(end, t.size))
	k, m := t.pieceAt(start), t.pieceAt(end)
	if m > k && t.offs[m] == end {
		m-- // the change ends where piece m starts
	}
	last := len(t.pieces) - 1
	oldLines := 0
	for i := k; i <= m; i++ {
		oldLines += len(t.pieces[i].starts)
	}
	nb := make([]byte, 0, t.offs[m]+len(t.pieces[m].b)-t.offs[k]-(end-start)+len(ins))
	nb = append(nb, t.pieces[k].b[:start-t.offs[k]]...)
	nb = append(nb, ins...)
	nb = append(nb, t.pieces[m].b[end-t.offs[m]:]...)
	// A piece must end a line: take the next in when the change took
	// the newline off the end of the ones it touched.
	for m < last && !endsLine(nb) {
		m++
		oldLines += len(t.pieces[m].starts)
		nb = append(nb, t.pieces[m].b...)
	}
	n := &Text{size: t.size - (end - start) + len(ins)}
	tail := len(t.pieces) - m - 1
	n.pieces = make([]*textPiece, k, k+len(nb)/pieceSize+2+tail)
	n.offs = make([]int, k, cap(n.pieces))
	n.lines = make([]int, k, cap(n.pieces))
	copy(n.pieces, t.pieces[:k])
	copy(n.offs, t.offs[:k])
	copy(n.lines, t.lines[:k])
	n.appendPieces(nb, t.offs[k], t.lines[k], m == last)
	if m < last {
		dOff := n.size - t.size
		newLines := 0
		for _, p := range n.pieces[k:] {
			newLines += len(p.starts)
		}
		dLines := newLines - oldLines
		n.pieces = append(n.pieces, t.pieces[m+1:]...)
		for i := m + 1; i <= last; i++ {
			n.offs = append(n.offs, t.offs[i]+dOff)
			n.lines = append(n.lines, t.lines[i]+dLines)
		}
	}
	return n
}

// Equal reports whether t and u hold the same bytes, without making
// either one slice: pieces the two share (an edit and its undo share all
// but the edited one) are skipped, the rest compared. Two Texts of the
// same content are different values, so identity alone answers "is this
// the text that was checked" wrongly after an edit that left the text as
// it was (a keystroke undone).
func (t *Text) Equal(u *Text) bool {
	if t == u {
		return true
	}
	if t == nil || u == nil || t.size != u.size {
		return false
	}
	i, j, ai, bj := 0, 0, 0, 0 // pieces, and offsets in them, at the same text offset
	for i < len(t.pieces) && j < len(u.pieces) {
		a, b := t.pieces[i], u.pieces[j]
		if ai == 0 && bj == 0 && a == b {
			i, j = i+1, j+1
			continue
		}
		n := min(len(a.b)-ai, len(b.b)-bj)
		if !bytes.Equal(a.b[ai:ai+n], b.b[bj:bj+n]) {
			return false
		}
		if ai += n; ai == len(a.b) {
			i, ai = i+1, 0
		}
		if bj += n; bj == len(b.b) {
			j, bj = j+1, 0
		}
	}
	return true
}
