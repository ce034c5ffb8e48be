package grammar

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkTextDeep is checkText plus the invariants checkText leaves out:
// every piece but the last is non-empty, lines[] follows the pieces'
// line counts, and Offset and Pos agree with a count over the flat bytes.
// Offsets are sampled (every byte for small texts) so a 10 MB text stays
// cheap.
func checkTextDeep(t *testing.T, got *Text, want []byte) {
	t.Helper()
	pieces, offs, lines := flatIndex(t, got)
	if len(pieces) == 0 {
		t.Fatalf("no pieces")
	}
	if offs[0] != 0 || lines[0] != 0 {
		t.Fatalf("first piece at %d, line %d", offs[0], lines[0])
	}
	for i, p := range pieces {
		last := i == len(pieces)-1
		if !last && len(p.b) == 0 {
			t.Fatalf("piece %d of %d is empty", i, len(pieces))
		}
		if !last && !endsLine(p.b) || last && endsLine(p.b) {
			t.Fatalf("piece %d of %d ends %q", i, len(pieces), p.b[max(0, len(p.b)-3):])
		}
		if i > 0 {
			if offs[i] != offs[i-1]+len(pieces[i-1].b) {
				t.Fatalf("piece %d at %d, after %d bytes at %d", i, offs[i], len(pieces[i-1].b), offs[i-1])
			}
			if lines[i] != lines[i-1]+len(pieces[i-1].starts) {
				t.Fatalf("piece %d at line %d, after %d lines at %d", i, lines[i], len(pieces[i-1].starts), lines[i-1])
			}
		}
		// starts: 0 and after every newline short of the piece's end.
		want := []int32{0}
		for j, c := range p.b {
			if c == '\n' && j+1 < len(p.b) {
				want = append(want, int32(j+1))
			}
		}
		if len(p.starts) != len(want) {
			t.Fatalf("piece %d: %d starts, want %d", i, len(p.starts), len(want))
		}
		for j := range want {
			if p.starts[j] != want[j] {
				t.Fatalf("piece %d: starts[%d] = %d, want %d", i, j, p.starts[j], want[j])
			}
		}
	}
	if last := pieces[len(pieces)-1]; offs[len(offs)-1]+len(last.b) != len(want) {
		t.Fatalf("pieces end at %d, text is %d bytes", offs[len(offs)-1]+len(last.b), len(want))
	}
	if got.Len() != len(want) {
		t.Fatalf("Len %d, want %d", got.Len(), len(want))
	}
	starts := lineStarts(want)
	if got.LineCount() != len(starts) {
		t.Fatalf("LineCount %d, want %d", got.LineCount(), len(starts))
	}
	lineEnd := func(line int) int { // past the newline
		if line+1 < len(starts) {
			return starts[line+1]
		}
		return len(want)
	}
	for line, s := range starts {
		if g := got.LineStart(line); g != s {
			t.Fatalf("LineStart(%d) = %d, want %d", line, g, s)
		}
		if g := got.LineBytes(line); !bytes.Equal(g, want[s:lineEnd(line)]) {
			t.Fatalf("LineBytes(%d) = %q, want %q", line, trunc(g), trunc(want[s:lineEnd(line)]))
		}
	}
	line := 0
	for off, b := range got.Lines() {
		if line >= len(starts) || off != starts[line] || !bytes.Equal(b, want[off:lineEnd(line)]) {
			t.Fatalf("Lines: line %d at %d = %q", line, off, trunc(b))
		}
		line++
	}
	if line != len(starts) {
		t.Fatalf("Lines yielded %d lines, want %d", line, len(starts))
	}
	for _, line := range []int{-1, len(starts), len(starts) + 5} {
		if g := got.LineBytes(line); g != nil {
			t.Fatalf("LineBytes(%d) = %q past the text", line, trunc(g))
		}
	}
	if g := got.LineStart(-3); g != 0 {
		t.Fatalf("LineStart(-3) = %d", g)
	}
	if g := got.LineStart(len(starts) + 2); g != len(want) {
		t.Fatalf("LineStart past the end = %d, want %d", g, len(want))
	}
	f := &File{Text: got}
	offsets := sampleOffsets(want)
	col16At := naiveCols(want)
	for _, off := range offsets {
		line := searchLine(starts, off)
		if l, s := got.LineOf(off); l != line || s != starts[line] {
			t.Fatalf("LineOf(%d) = %d, %d; want %d, %d", off, l, s, line, starts[line])
		}
		wantPos := Pos{Line: int32(line + 1), Col: int32(off - starts[line] + 1), Col16: int32(col16At(off))}
		if g := f.Pos(off); g != wantPos {
			t.Fatalf("Pos(%d) = %+v, want %+v", off, g, wantPos)
		}
		if g := f.OffsetOf(wantPos); g != off {
			t.Fatalf("OffsetOf(%+v) = %d, want %d", wantPos, g, off)
		}
	}
	checkLSPPositions(t, got, want, offsets)
	rng := rand.New(rand.NewSource(int64(len(want))))
	for range 40 {
		a := rng.Intn(len(want) + 1)
		b := a + rng.Intn(len(want)-a+1)
		if g := got.Slice(a, b); !bytes.Equal(g, want[a:b]) {
			t.Fatalf("Slice(%d, %d) differs", a, b)
		}
	}
	for range 20 {
		a := rng.Intn(len(want) + 1)
		b := a + rng.Intn(len(want)-a+1)
		c := "\nxaé"[rng.Intn(4)]
		if g, w := got.HasByte(c, a, b), bytes.IndexByte(want[a:b], c) >= 0; g != w {
			t.Fatalf("HasByte(%q, %d, %d) = %v, want %v", c, a, b, g, w)
		}
	}
	if g := got.Slice(-5, len(want)+5); !bytes.Equal(g, want) {
		t.Fatalf("Slice clamped differs")
	}
	if !bytes.Equal(got.Bytes(), want) || got.String() != string(want) {
		t.Fatalf("Bytes differ")
	}
}

// flatIndex is a Text's pieces with their offsets and lines in the text,
// from its groups, whose own index it checks: no group is empty, and
// each one's offsets, lines, size and line count follow its pieces, and
// start where the one before ends.
func flatIndex(t *testing.T, text *Text) (pieces []*textPiece, offs, lines []int) {
	t.Helper()
	if len(text.groups) == 0 || len(text.gOffs) != len(text.groups) || len(text.gLines) != len(text.groups) {
		t.Fatalf("%d groups, %d offsets, %d lines", len(text.groups), len(text.gOffs), len(text.gLines))
	}
	off, line, crs := 0, 0, 0
	for g, grp := range text.groups {
		if len(text.gCRs) != len(text.groups) || text.gCRs[g] != crs || len(grp.crs) != len(grp.pieces) {
			t.Fatalf("group %d: lone CRs before it %v, want %d", g, text.gCRs, crs)
		}
		n := 0
		for k, p := range grp.pieces {
			if grp.crs[k] != n || !slices.Equal(p.crs, loneCRs(p.b)) {
				t.Fatalf("group %d piece %d: %d lone CRs before it in the group, want %d; its own %v", g, k, grp.crs[k], n, p.crs)
			}
			n += len(p.crs)
		}
		if grp.ncrs != n {
			t.Fatalf("group %d: %d lone CRs, its pieces have %d", g, grp.ncrs, n)
		}
		crs += n
		if len(grp.pieces) == 0 || len(grp.offs) != len(grp.pieces) || len(grp.lines) != len(grp.pieces) {
			t.Fatalf("group %d: %d pieces, %d offsets, %d lines", g, len(grp.pieces), len(grp.offs), len(grp.lines))
		}
		if text.gOffs[g] != off || text.gLines[g] != line {
			t.Fatalf("group %d at %d, line %d; the one before ends at %d, line %d", g, text.gOffs[g], text.gLines[g], off, line)
		}
		size, n := 0, 0
		for k, p := range grp.pieces {
			if grp.offs[k] != size || grp.lines[k] != n {
				t.Fatalf("group %d piece %d at %d, line %d in the group; want %d, %d", g, k, grp.offs[k], grp.lines[k], size, n)
			}
			pieces, offs, lines = append(pieces, p), append(offs, off+size), append(lines, line+n)
			size, n = size+len(p.b), n+len(p.starts)
		}
		if grp.size != size || grp.nlines != n {
			t.Fatalf("group %d: size %d, %d lines; its pieces have %d, %d", g, grp.size, grp.nlines, size, n)
		}
		off, line = off+size, line+n
	}
	return pieces, offs, lines
}

func trunc(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// sampleOffsets is every offset of a small text, and of a big one those
// around every 4096-byte step, every newline and a random sample.
func sampleOffsets(b []byte) []int {
	if len(b) <= 3*pieceSize {
		out := make([]int, len(b)+1)
		for i := range out {
			out[i] = i
		}
		return out
	}
	seen := map[int]bool{}
	var out []int
	add := func(o int) {
		if o >= 0 && o <= len(b) && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	for s := 0; s <= len(b); s += col16Step {
		for d := -5; d <= 5; d++ {
			add(s + d)
		}
	}
	for i, c := range b {
		if c == '\n' {
			add(i - 1)
			add(i)
			add(i + 1)
		}
		if len(out) > 20000 {
			break
		}
	}
	rng := rand.New(rand.NewSource(3))
	for range 2000 {
		add(rng.Intn(len(b) + 1))
	}
	add(len(b))
	return out
}

func searchLine(starts []int, off int) int {
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// checkLSPPositions checks Position (offset to LSP position) at every
// offset sampled and Offset (LSP position to offset), clamped to the line
// before its ending, against LSP's line counting done the plain way:
// lines end at "\n", "\r\n" and a lone "\r". Offset counts from the
// line's start (no checkpoints): a sample only on a big text.
func checkLSPPositions(t *testing.T, got *Text, want []byte, offsets []int) {
	t.Helper()
	at, starts := naiveLSP(want)
	if got.LSPLineCount() != len(starts) {
		t.Fatalf("LSPLineCount %d, want %d", got.LSPLineCount(), len(starts))
	}
	for _, off := range offsets {
		wl, wc := at(off)
		if l, c := got.Position(off); l != wl || c != wc {
			t.Fatalf("Position(%d) = %d:%d, want %d:%d", off, l, c, wl, wc)
		}
		if l, s := got.LSPLineOf(off); l != wl || s != starts[wl] {
			t.Fatalf("LSPLineOf(%d) = %d, %d; want %d, %d", off, l, s, wl, starts[wl])
		}
	}
	for line, s := range starts {
		if line%(len(starts)/100+1) != 0 {
			continue // a sample on a big text
		}
		end := len(want)
		if line+1 < len(starts) {
			end = starts[line+1]
		}
		if g := got.LSPLineBytes(line); !bytes.Equal(g, want[s:end]) {
			t.Fatalf("LSPLineBytes(%d) = %q, want %q", line, trunc(g), trunc(want[s:end]))
		}
	}
	if g := got.LSPLineBytes(len(starts)); g != nil {
		t.Fatalf("LSPLineBytes past the lines = %q", trunc(g))
	}
	checks := 100
	if len(want) > 1<<20 {
		checks = 8
	}
	for i, off := range offsets {
		if i%(len(offsets)/checks+1) != 0 {
			continue
		}
		line, col := at(off)
		start, end := starts[line], len(want)
		if k := bytes.IndexAny(want[start:], "\r\n"); k >= 0 {
			end = start + k // before "\n", "\r" or "\r\n"
		}
		for _, c := range []int{0, 1, col, 1 << 40} {
			if g, w := got.Offset(line, c), naiveOffset(want[start:end], c)+start; g != w {
				t.Fatalf("Offset(%d, %d) = %d, want %d", line, c, g, w)
			}
		}
	}
	if g := got.Offset(-1, 4); g != 0 {
		t.Fatalf("Offset(-1, 4) = %d", g)
	}
	if g := got.Offset(len(starts), 0); g != len(want) {
		t.Fatalf("Offset past the lines = %d, want %d", g, len(want))
	}
}

// naiveLSP is the LSP position of every offset of b counted the plain
// way, in one pass (columns as naiveCols counts them), and where its LSP
// lines start.
func naiveLSP(b []byte) (at func(off int) (line, col int), starts []int) {
	type lc struct{ line, col int32 }
	pos := make([]lc, len(b)+1)
	starts = []int{0}
	line, n := int32(0), int32(0)
	for i := 0; i < len(b); {
		if b[i] == '\n' || b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			pos[i] = lc{line, n}
			line, n = line+1, 0
			i++
			starts = append(starts, i)
			continue
		}
		if b[i] == '\r' { // of "\r\n": in no column, nor the offset after it
			pos[i], pos[i+1] = lc{line, n}, lc{line, n}
			line, n = line+1, 0
			i += 2
			starts = append(starts, i)
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		for j := i; j < i+size; j++ {
			pos[j] = lc{line, n + int32(j-i)} // inside a rune: its bytes before, one unit each
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	pos[len(b)] = lc{line, n}
	return func(off int) (int, int) { return int(pos[off].line), int(pos[off].col) }, starts
}

// naiveCols is the UTF-16 column of every offset of b counted the plain
// way, in one pass: a valid rune is one or two units, every byte of an
// invalid sequence one, and an offset inside a rune counts the rune's
// bytes before it as one unit each (a cut sequence is invalid).
func naiveCols(b []byte) func(off int) int {
	col := make([]int32, len(b)+1)
	runeStart := make([]int32, len(b)+1)
	n := int32(0)
	for i := 0; i < len(b); {
		if b[i] == '\n' {
			col[i], runeStart[i] = n, int32(i)
			if i > 0 && b[i-1] == '\r' {
				col[i]-- // a CRLF's "\r" is in no column
			}
			n = 0
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		for j := i; j < i+size; j++ {
			col[j], runeStart[j] = n, int32(i)
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	col[len(b)], runeStart[len(b)] = n, int32(len(b))
	return func(off int) int { return int(col[off]) + off - int(runeStart[off]) }
}

// naiveOffset is the byte offset in line (no newline) of UTF-16 column
// c, clamped to the line, a column inside a character rounded past it.
func naiveOffset(line []byte, c int) int {
	off, n := 0, 0
	for off < len(line) && n < c {
		r, size := utf8.DecodeRune(line[off:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		off += size
	}
	return off
}

// editAndCheck applies one edit to text and want, checks the new text
// and that the old one is unchanged.
func editAndCheck(t *testing.T, text *Text, want []byte, start, end int, ins string) (*Text, []byte) {
	t.Helper()
	prev, before := text, append([]byte(nil), want...)
	text = text.Replace(start, end, []byte(ins))
	s, e := max(0, min(start, len(want))), 0
	e = max(s, min(end, len(want)))
	want = append(append(append([]byte(nil), want[:s]...), ins...), want[e:]...)
	checkTextDeep(t, text, want)
	checkTextDeep(t, prev, before)
	return text, want
}

func TestTextEdgeEdits(t *testing.T) {
	many := strings.Repeat("m1 = sample.long.one + 1\n", 2000) // ~50 KB, a dozen pieces
	cases := []struct {
		name string
		src  string
		edit func(n int) (start, end int, ins string)
	}{
		{"empty insert", "", func(n int) (int, int, string) { return 0, 0, "a" }},
		{"empty insert newline", "", func(n int) (int, int, string) { return 0, 0, "\n" }},
		{"empty insert newlines", "", func(n int) (int, int, string) { return 0, 0, strings.Repeat("\n", 20000) }},
		{"newline only delete", "\n", func(n int) (int, int, string) { return 0, 1, "" }},
		{"delete final newline", many, func(n int) (int, int, string) { return n - 1, n, "" }},
		{"delete final newline no-nl", many + "tail", func(n int) (int, int, string) { return n - 5, n - 4, "" }},
		{"append at end", many, func(n int) (int, int, string) { return n, n, "x = 1" }},
		{"append at end no-nl", many + "tail", func(n int) (int, int, string) { return n, n, "\nmore\n" }},
		{"insert at 0", many, func(n int) (int, int, string) { return 0, 0, "first\n" }},
		{"insert at 0 no newline", many, func(n int) (int, int, string) { return 0, 0, "x" }},
		{"delete first line", many, func(n int) (int, int, string) { return 0, 25, "" }},
		{"delete across pieces", many, func(n int) (int, int, string) { return 100, n - 100, "" }},
		{"delete across pieces keep nl", many, func(n int) (int, int, string) { return 100, n - 100, "\n" }},
		{"delete all", many, func(n int) (int, int, string) { return 0, n, "" }},
		{"delete all but last nl", many, func(n int) (int, int, string) { return 0, n - 1, "" }},
		{"replace all", many, func(n int) (int, int, string) { return 0, n, "only" }},
		{"insert many newlines", many, func(n int) (int, int, string) { return n / 2, n / 2, strings.Repeat("\n", 50000) }},
		{"insert many lines", many, func(n int) (int, int, string) { return n / 3, n / 3, strings.Repeat("ab\n", 30000) }},
		{"join at piece boundary", many, func(n int) (int, int, string) { return 4096*2 - 1, 4096*2 + 1, "" }},
		{"crlf", strings.Repeat("a = b.c\r\n", 3000), func(n int) (int, int, string) { return 9*100 + 7, 9*1500 + 8, "\r" }},
		{"crlf split", strings.Repeat("a = b.c\r\n", 3000), func(n int) (int, int, string) { return 9*700 + 8, 9*700 + 8, "x\r\ny" }},
		{"clamped", many, func(n int) (int, int, string) { return -10, 10, "z" }},
		{"clamped end", many, func(n int) (int, int, string) { return n - 10, n + 100, "" }},
		{"end before start", many, func(n int) (int, int, string) { return 500, 20, "q" }},
		{"multibyte long line", strings.Repeat("é", 5000) + "\n" + strings.Repeat("😀", 3000), func(n int) (int, int, string) { return 10001, 10001, "€" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := []byte(c.src)
			text := NewText(want)
			checkTextDeep(t, text, want)
			start, end, ins := c.edit(len(want))
			text, want = editAndCheck(t, text, want, start, end, ins)
			// and a second edit on the result, at both ends
			text, want = editAndCheck(t, text, want, 0, min(3, len(want)), "")
			editAndCheck(t, text, want, len(want), len(want), "\n")
		})
	}
}

// TestTextHostileLine: a single 10 MB line (1 MB under -short or -race),
// and edits within it.
func TestTextHostileLine(t *testing.T) {
	size := 10 << 20
	if testing.Short() || raceDetector {
		size = 1 << 20 // still a line of 256 checkpoints
	}
	var b strings.Builder
	for b.Len() < size {
		b.WriteString("a+é€😀x") // 1+2+3+4+1 bytes: runes cross every step boundary somewhere
	}
	want := []byte(b.String())
	text := NewText(want)
	checkTextDeep(t, text, want)
	text, want = editAndCheck(t, text, want, size/2, size/2+7, "\n")
	text, want = editAndCheck(t, text, want, size/2, size/2+1, "")
	editAndCheck(t, text, want, len(want)-1, len(want), "\n")
}

// TestTextRandomEditsDeep: random edits of random texts (long lines,
// multi-byte and invalid UTF-8, CRLF, many newlines), each Text checked
// against a flat copy, and the text before each edit unchanged.
func TestTextRandomEditsDeep(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	line := func() string {
		switch rng.Intn(8) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("x", rng.Intn(3*pieceSize))
		case 2:
			return strings.Repeat("é€😀", rng.Intn(1500)) // long, multi-byte
		case 3:
			return "a = b\r"
		case 5:
			return strings.Repeat("x\ré", rng.Intn(30)) // lone "\r"s
		case 4:
			return strings.Repeat("\xff\xe2\x82", rng.Intn(2000)) // invalid
		}
		return strings.Repeat("ab", rng.Intn(40))
	}
	rounds, edits := 6, 15
	if raceDetector {
		rounds, edits = 2, 4
	}
	for round := range rounds {
		var b strings.Builder
		for range rng.Intn(40) {
			b.WriteString(line())
			b.WriteByte('\n')
		}
		if round%2 == 0 {
			b.WriteString(line())
		}
		want := []byte(b.String())
		text := NewText(want)
		checkTextDeep(t, text, want)
		for range edits {
			start, end := randomSpan(rng, len(want), 5*pieceSize)
			ins := randomInsert(rng,
				func() string { return line() + "\n" + line() },
				func() string { return strings.Repeat("\n", rng.Intn(3000)) })
			text, want = editAndCheck(t, text, want, start, end, ins)
		}
	}
}

// TestTextBytesConcurrent: Bytes made by several goroutines at once, on
// an edited Text (no flat slice yet), under -race.
func TestTextBytesConcurrent(t *testing.T) {
	src := []byte(strings.Repeat("m = a.b + 1\n", 5000))
	text := NewText(src).Replace(100, 101, []byte("z"))
	want := string(text.Slice(0, text.Len()))
	done := make(chan string, 8)
	for range 8 {
		go func() { done <- text.String() }()
	}
	for range 8 {
		if g := <-done; g != want {
			t.Fatal("Bytes differ between goroutines")
		}
	}
}

func TestTextEqual(t *testing.T) {
	src := []byte(strings.Repeat("m1 = sample.long.one + 1\n", 2000))
	a := NewText(src)
	undone := a.Replace(30000, 30000, []byte("x")).Replace(30000, 30001, nil)
	if undone == a || !undone.Equal(a) || !a.Equal(undone) {
		t.Fatal("an edit and its undo: not Equal")
	}
	if !NewText(append([]byte(nil), src...)).Equal(a) {
		t.Fatal("the same bytes read twice: not Equal")
	}
	// Same bytes cut differently into pieces.
	split := NewText(src[:20000]).Replace(20000, 20000, src[20000:])
	if !split.Equal(a) || !a.Equal(split) {
		t.Fatal("the same bytes in other pieces: not Equal")
	}
	for _, off := range []int{0, 4095, 4096, 30000, len(src) - 1} {
		other := a.Replace(off, off+1, []byte("Z"))
		if other.Equal(a) || a.Equal(other) {
			t.Fatalf("a change at %d: Equal", off)
		}
	}
	if a.Equal(a.Replace(0, 0, []byte("x"))) || a.Equal(nil) || !(*Text)(nil).Equal(nil) {
		t.Fatal("sizes or nil")
	}
	if !NewText(nil).Equal(NewText([]byte{})) || !NewText([]byte("a\n")).Replace(2, 2, nil).Equal(NewText([]byte("a\n"))) {
		t.Fatal("empty last pieces")
	}
}

// lineStarts is where src's lines start, found one byte at a time.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1) // no spare capacity: a big file has a million lines
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// TestTextEditsAcrossGroups: edits of a text of several groups of pieces
// (about 1.2 MB: ten groups) at and across the groups' boundaries, and
// random ones, each Text checked against a flat copy (checkTextDeep
// checks the groups' index too).
func TestTextEditsAcrossGroups(t *testing.T) {
	src := []byte(strings.Repeat("m1 = sample.long.one + 1\n", 48000))
	text := NewText(src)
	if len(text.groups) < 4 {
		t.Fatalf("a text of %d bytes is %d groups", len(src), len(text.groups))
	}
	checkTextDeep(t, text, src)
	boundary := func(text *Text, g int) int { return text.gOffs[min(g, len(text.groups)-1)] }
	edits := []func(text *Text, n int) (start, end int, ins string){
		func(text *Text, n int) (int, int, string) { b := boundary(text, 2); return b, b, "x" },                  // at a group's start
		func(text *Text, n int) (int, int, string) { b := boundary(text, 2); return b - 1, b, "" },               // a group's last newline
		func(text *Text, n int) (int, int, string) { return boundary(text, 1) + 7, boundary(text, 3) + 9, "" },   // across groups
		func(text *Text, n int) (int, int, string) { return boundary(text, 1) + 7, boundary(text, 3) + 9, "\n" }, // and keep a line end
		func(text *Text, n int) (int, int, string) {
			b := boundary(text, 2)
			return b, b, strings.Repeat("ab\n", 200000)
		}, // many groups in
		func(text *Text, n int) (int, int, string) { return 10, n - 10, "" },                         // all but both ends
		func(text *Text, n int) (int, int, string) { return n, n, strings.Repeat("z = 1\n", 60000) }, // grow at the end
		func(text *Text, n int) (int, int, string) { return 0, n, "" },                               // empty it
	}
	want := src
	for _, edit := range edits {
		start, end, ins := edit(text, len(want))
		text, want = editAndCheck(t, text, want, start, end, ins)
	}
	rng := rand.New(rand.NewSource(11))
	text, want = NewText(src), src
	rounds := 40
	if raceDetector {
		rounds = 8
	}
	for range rounds {
		start, end := randomSpan(rng, len(want), 300*pieceSize)
		ins := randomInsert(rng, func() string { return strings.Repeat("q = r.s\n", rng.Intn(40000)) })
		text, want = editAndCheck(t, text, want, start, end, ins)
	}
}

// randomSpan is a random range [start, end) of a text of n bytes, at
// most maxLen long.
func randomSpan(rng *rand.Rand, n, maxLen int) (start, end int) {
	start = rng.Intn(n + 1)
	return start, start + rng.Intn(min(n-start, maxLen)+1)
}

// randomInsert is what a random edit inserts: nothing, a newline, one
// multi-byte character, or what one of more makes.
func randomInsert(rng *rand.Rand, more ...func() string) string {
	switch k := rng.Intn(3 + len(more)); k {
	case 0:
		return ""
	case 1:
		return "\n"
	case 2:
		return "é"
	default:
		return more[k-3]()
	}
}
