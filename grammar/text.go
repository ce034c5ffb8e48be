package grammar

import (
	"bytes"
	"iter"
	"sort"
	"sync/atomic"
)

// pieceSize is the size a Text's pieces are cut to, at a line's end: an
// edit copies the piece it falls in (a few kilobytes), not the whole
// text and a line index of one entry a line.
const pieceSize = 4096

// groupLen is how many pieces a Text's groups are cut to: an edit copies
// the group it falls in and the per-group index, where one index of
// every piece (1,200 entries for a 5 MB file, 29 KB) was copied on every
// keystroke and was the largest thing a keystroke allocated.
const groupLen = 32

// Text is a file's bytes, immutable, held as pieces of whole lines with
// their line starts, in groups. Replace makes the text of an edit sharing
// every piece and group the edit leaves alone, so an editor's keystroke
// costs the piece and the group it falls in and not the file: a
// 100,000-line document was copied whole (4.9 MB) with its line index
// (0.8 MB) on every keystroke, and the garbage collector's share of a
// keystroke grew with it.
//
// Every piece but the last ends with a newline, and the last has none
// (it may be empty), so each line lies in one piece and a position's
// column is counted within it. No group is empty.
type Text struct {
	groups []*pieceGroup
	gOffs  []int // gOffs[g]: the offset of groups[g]'s first byte
	gLines []int // gLines[g]: the 0-based line of groups[g]'s first byte
	gCRs   []int // gCRs[g]: the lone "\r"s before groups[g] (lspos.go)
	size   int
	// flat is the whole text in one slice, once made (Bytes) or when the
	// Text was made of one (NewText).
	flat atomic.Pointer[[]byte]
}

// pieceGroup is a run of pieces, with their offsets and lines counted
// from the group's first byte and line. It is immutable: texts share it.
type pieceGroup struct {
	pieces []*textPiece
	offs   []int // offs[k]: the offset of pieces[k]'s first byte in the group
	lines  []int // lines[k]: the line of pieces[k]'s first byte in the group
	crs    []int // crs[k]: the lone "\r"s in the group before pieces[k]
	size   int   // bytes
	nlines int   // lines started in it
	ncrs   int   // lone "\r"s in it
}

// pieceRef names a piece of a Text: group g's piece k.
type pieceRef struct{ g, k int }

// textPiece is one run of whole lines.
type textPiece struct {
	b      []byte
	starts []int32     // where its lines start in b: 0, and after each newline short of its end
	crs    []int32     // where its lone "\r"s are in b: LSP ends a line at each, libpcp reads on (lspos.go)
	marks  []col16Mark // UTF-16 checkpoints of a long piece (col16Marks), offsets in b
}

// NewText holds src as a Text, without a copy: src must not change.
func NewText(src []byte) *Text {
	t := &Text{size: len(src)}
	t.appendGroups(cutPieces(nil, src, true), 0, 0, 0)
	t.flat.Store(&src)
	return t
}

// cutPieces appends the pieces of b to pieces: b ends with a newline
// unless last (the text's end), and then the empty piece after a final
// newline is among them.
func cutPieces(pieces []*textPiece, b []byte, last bool) []*textPiece {
	for len(b) > 0 {
		end := len(b)
		if len(b) > 2*pieceSize {
			if nl := bytes.IndexByte(b[pieceSize-1:], '\n'); nl >= 0 {
				end = pieceSize + nl // just past that newline
			}
		}
		pieces, b = append(pieces, newPiece(b[:end:end])), b[end:]
	}
	if n := len(pieces); last && (n == 0 || endsLine(pieces[n-1].b)) {
		// The line after the text's last newline, empty.
		pieces = append(pieces, &textPiece{starts: []int32{0}})
	}
	return pieces
}

// appendGroups groups pieces, which start at offset off, line line and
// after crs lone "\r"s of the text, and appends the groups to t's.
func (t *Text) appendGroups(pieces []*textPiece, off, line, crs int) {
	for len(pieces) > 0 {
		n := len(pieces)
		if n > 2*groupLen {
			n = groupLen
		}
		index := make([]int, 3*n) // one allocation for the three
		g := &pieceGroup{pieces: pieces[:n:n], offs: index[:n:n], lines: index[n : 2*n : 2*n], crs: index[2*n:]}
		for k, p := range g.pieces {
			g.offs[k], g.lines[k], g.crs[k] = g.size, g.nlines, g.ncrs
			g.size += len(p.b)
			g.nlines += len(p.starts)
			g.ncrs += len(p.crs)
		}
		t.groups, t.gOffs, t.gLines, t.gCRs = append(t.groups, g), append(t.gOffs, off), append(t.gLines, line), append(t.gCRs, crs)
		off, line, crs, pieces = off+g.size, line+g.nlines, crs+g.ncrs, pieces[n:]
	}
}

func endsLine(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// piece is the piece r names; pieceOff and pieceLine are the offset and
// 0-based line of its first byte in the text.
func (t *Text) piece(r pieceRef) *textPiece { return t.groups[r.g].pieces[r.k] }
func (t *Text) pieceOff(r pieceRef) int     { return t.gOffs[r.g] + t.groups[r.g].offs[r.k] }
func (t *Text) pieceLine(r pieceRef) int    { return t.gLines[r.g] + t.groups[r.g].lines[r.k] }

// next is the piece after r; ok is false past the last.
func (t *Text) next(r pieceRef) (_ pieceRef, ok bool) {
	if r.k++; r.k == len(t.groups[r.g].pieces) {
		r.g, r.k = r.g+1, 0
	}
	return r, r.g < len(t.groups)
}

// lastPiece names the text's last piece.
func (t *Text) lastPiece() pieceRef {
	g := len(t.groups) - 1
	return pieceRef{g, len(t.groups[g].pieces) - 1}
}

// allPieces yields the pieces in order.
func (t *Text) allPieces() iter.Seq[*textPiece] {
	return func(yield func(*textPiece) bool) {
		for _, g := range t.groups {
			for _, p := range g.pieces {
				if !yield(p) {
					return
				}
			}
		}
	}
}

func newPiece(b []byte) *textPiece {
	p := &textPiece{b: b, starts: make([]int32, 1, bytes.Count(b, []byte{'\n'})+1)}
	for i, c := range b[:len(b)-1] {
		if c == '\n' {
			p.starts = append(p.starts, int32(i+1))
		}
	}
	p.crs = loneCRs(b)
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
	for p := range t.allPieces() {
		b = append(b, p.b...)
	}
	t.flat.Store(&b)
	return b
}

// String is the whole text (Bytes) as a string, without another copy.
func (t *Text) String() string { return textOf(t.Bytes()) }

// pieceAt names the piece holding offset (clamped to the text): the
// last one starting at or before it.
func (t *Text) pieceAt(offset int) pieceRef {
	g := max(0, sort.Search(len(t.gOffs), func(i int) bool { return t.gOffs[i] > offset })-1)
	grp, rel := t.groups[g], offset-t.gOffs[g]
	return pieceRef{g, max(0, sort.Search(len(grp.offs), func(i int) bool { return grp.offs[i] > rel })-1)}
}

// LineCount is the number of lines: one more than the newlines.
func (t *Text) LineCount() int {
	last := len(t.groups) - 1
	return t.gLines[last] + t.groups[last].nlines
}

// LineOf is the 0-based line of offset (clamped to the text) and the
// offset where that line starts.
func (t *Text) LineOf(offset int) (line, start int) {
	r, i := t.locate(offset)
	return t.pieceLine(r) + i, t.pieceOff(r) + int(t.piece(r).starts[i])
}

// locate finds offset (clamped to the text): its piece r and the index i
// of its line among the piece's.
func (t *Text) locate(offset int) (r pieceRef, i int) {
	offset = max(0, min(offset, t.size))
	r = t.pieceAt(offset)
	p, rel := t.piece(r), int32(offset-t.pieceOff(r))
	return r, sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > rel }) - 1
}

// lineAt locates 0-based line (within the text): its piece, and its
// start and end (before its newline) as offsets in the piece.
func (t *Text) lineAt(line int) (r pieceRef, start, end int) {
	r.g = max(0, sort.Search(len(t.gLines), func(i int) bool { return t.gLines[i] > line })-1)
	grp, rel := t.groups[r.g], line-t.gLines[r.g]
	r.k = max(0, sort.Search(len(grp.lines), func(i int) bool { return grp.lines[i] > rel })-1)
	p := grp.pieces[r.k]
	i := rel - grp.lines[r.k]
	start, end = int(p.starts[i]), len(p.b)
	if i+1 < len(p.starts) {
		end = int(p.starts[i+1]) - 1
	} else if endsLine(p.b) {
		end--
	}
	return r, start, end
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
	r, start, _ := t.lineAt(line)
	return t.pieceOff(r) + start
}

// LineBytes is 0-based line's bytes, with its newline if it has one (nil
// past the text's lines), shared with the text.
func (t *Text) LineBytes(line int) []byte {
	if line < 0 || line >= t.LineCount() {
		return nil
	}
	r, start, end := t.lineAt(line)
	p := t.piece(r)
	if end < len(p.b) {
		end++ // the newline
	}
	return p.b[start:end:end]
}

// Lines yields each line's offset and bytes (with its newline, if it has
// one), read in place: a scan of every line without Bytes' copy.
func (t *Text) Lines() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		off := 0
		for p := range t.allPieces() {
			for i, st := range p.starts {
				end := len(p.b)
				if i+1 < len(p.starts) {
					end = int(p.starts[i+1])
				}
				if !yield(off+int(st), p.b[st:end:end]) {
					return
				}
			}
			off += len(p.b)
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
		for r, ok := t.pieceAt(from), true; ok && t.pieceOff(r) < to; r, ok = t.next(r) {
			p, off := t.piece(r).b, t.pieceOff(r)
			lo, hi := max(0, from-off), min(len(p), to-off)
			if lo < hi && !yield(p[lo:hi:hi]) {
				return
			}
		}
	}
}

// Replace is the text with bytes [start, end) replaced by ins (start and
// end clamped to the text, end at least start). It copies the pieces the
// change touches, their groups' index, and the per-group index.
func (t *Text) Replace(start, end int, ins []byte) *Text {
	start = max(0, min(start, t.size))
	end = max(start, min(end, t.size))
	k, m := t.pieceAt(start), t.pieceAt(end)
	if m != k && t.pieceOff(m) == end {
		// The change ends where piece m starts: it ends in the one before.
		if m.k > 0 {
			m.k--
		} else {
			m.g--
			m.k = len(t.groups[m.g].pieces) - 1
		}
	}
	last := t.lastPiece()
	kOff, mOff := t.pieceOff(k), t.pieceOff(m)
	nb := make([]byte, 0, mOff+len(t.piece(m).b)-kOff-(end-start)+len(ins))
	nb = append(nb, t.piece(k).b[:start-kOff]...)
	nb = append(nb, ins...)
	nb = append(nb, t.piece(m).b[end-mOff:]...)
	// A piece must end a line: take the next in when the change took
	// the newline off the end of the ones it touched.
	for m != last && !endsLine(nb) {
		m, _ = t.next(m)
		nb = append(nb, t.piece(m).b...)
	}
	// Groups k.g to m.g are made again: the pieces of k's group before
	// it, the new ones, and those of m's group after it.
	// (The capacities here are hints: an append past one reallocates.)
	gk, gm := t.groups[k.g], t.groups[m.g]
	run := make([]*textPiece, 0, k.k+len(nb)/pieceSize+2+len(gm.pieces)-m.k-1)
	run = append(run, gk.pieces[:k.k]...)
	run = cutPieces(run, nb, m == last)
	run = append(run, gm.pieces[m.k+1:]...)
	n := &Text{size: t.size - (end - start) + len(ins)}
	tail := len(t.groups) - m.g - 1
	groups := k.g + len(run)/groupLen + 1 + tail // at most
	n.groups = make([]*pieceGroup, k.g, groups)
	index := make([]int, 3*groups) // one allocation for the three (an append past one reallocates it)
	n.gOffs, n.gLines, n.gCRs = index[:k.g:groups], index[groups:groups+k.g:2*groups], index[2*groups:2*groups+k.g]
	copy(n.groups, t.groups[:k.g])
	copy(n.gOffs, t.gOffs[:k.g])
	copy(n.gLines, t.gLines[:k.g])
	copy(n.gCRs, t.gCRs[:k.g])
	n.appendGroups(run, t.gOffs[k.g], t.gLines[k.g], t.gCRs[k.g])
	if tail > 0 {
		// The groups after: shared, moved by the bytes and lines the
		// change added.
		newEnd := len(n.groups) - 1
		oldNext := m.g + 1
		dOff := n.gOffs[newEnd] + n.groups[newEnd].size - t.gOffs[oldNext]
		dLines := n.gLines[newEnd] + n.groups[newEnd].nlines - t.gLines[oldNext]
		dCRs := n.gCRs[newEnd] + n.groups[newEnd].ncrs - t.gCRs[oldNext]
		n.groups = append(n.groups, t.groups[oldNext:]...)
		for g := oldNext; g < len(t.groups); g++ {
			n.gOffs = append(n.gOffs, t.gOffs[g]+dOff)
			n.gLines = append(n.gLines, t.gLines[g]+dLines)
			n.gCRs = append(n.gCRs, t.gCRs[g]+dCRs)
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
	tp, tok := t.pieceAt(0), true
	up, uok := u.pieceAt(0), true
	ai, bj := 0, 0 // offsets in the pieces, at the same text offset
	for tok && uok {
		a, b := t.piece(tp), u.piece(up)
		if ai == 0 && bj == 0 && a == b {
			tp, tok = t.next(tp)
			up, uok = u.next(up)
			continue
		}
		n := min(len(a.b)-ai, len(b.b)-bj)
		if !bytes.Equal(a.b[ai:ai+n], b.b[bj:bj+n]) {
			return false
		}
		if ai += n; ai == len(a.b) {
			tp, tok = t.next(tp)
			ai = 0
		}
		if bj += n; bj == len(b.b) {
			up, uok = u.next(up)
			bj = 0
		}
	}
	return true
}

// CommonEnds is how many bytes t and b share at their start (prefix) and,
// after that, at their end (suffix): prefix+suffix is at most the length
// of either. A client that sends a whole document for an edit changed the
// bytes between them alone, and re-analysing only those keeps a keystroke
// in a 100,000-line config as cheap as with a ranged change. It reads t
// in place, once, a piece at a time.
func (t *Text) CommonEnds(b []byte) (prefix, suffix int) {
	limit := min(t.size, len(b))
	for span := range t.spans(0, limit) {
		n := commonPrefix(span, b[prefix:])
		prefix += n
		if n < len(span) {
			break
		}
	}
	// Backwards, a piece at a time, read in place.
	for suffix < limit-prefix {
		end := t.size - suffix
		r := t.pieceAt(end - 1)
		off := t.pieceOff(r)
		from := max(off, end-(limit-prefix-suffix))
		block := t.piece(r).b[from-off : end-off]
		n := commonSuffix(block, b[:len(b)-suffix])
		suffix += n
		if n < len(block) {
			break
		}
	}
	return prefix, suffix
}

// commonPrefix is the length of a's and b's common start.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of a's and b's common end.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
