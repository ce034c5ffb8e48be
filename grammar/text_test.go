package grammar

import (
	"bytes"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// checkText compares every query of t with the answer computed from
// want, the same bytes held flat.
func checkText(t *testing.T, got *Text, want []byte) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("Len %d, want %d", got.Len(), len(want))
	}
	starts := lineStarts(want)
	if got.LineCount() != len(starts) {
		t.Fatalf("LineCount %d, want %d", got.LineCount(), len(starts))
	}
	for i, p := range got.pieces {
		if i < len(got.pieces)-1 && !endsLine(p.b) {
			t.Fatalf("piece %d of %d does not end a line: %q", i, len(got.pieces), p.b)
		}
		if i == len(got.pieces)-1 && endsLine(p.b) {
			t.Fatalf("the last piece ends a line: %q", p.b)
		}
		if i > 0 && got.offs[i] != got.offs[i-1]+len(got.pieces[i-1].b) {
			t.Fatalf("piece %d at %d, after %d bytes at %d", i, got.offs[i], len(got.pieces[i-1].b), got.offs[i-1])
		}
	}
	for line, s := range starts {
		if g := got.LineStart(line); g != s {
			t.Fatalf("LineStart(%d) = %d, want %d", line, g, s)
		}
		end := len(want)
		if line+1 < len(starts) {
			end = starts[line+1]
		}
		if g := got.LineBytes(line); !bytes.Equal(g, want[s:end]) {
			t.Fatalf("LineBytes(%d) = %q, want %q", line, g, want[s:end])
		}
	}
	for off := 0; off <= len(want); off++ {
		line := sortSearchInts(starts, off)
		if l, s := got.LineOf(off); l != line || s != starts[line] {
			t.Fatalf("LineOf(%d) = %d, %d; want %d, %d", off, l, s, line, starts[line])
		}
	}
	for range 20 {
		a := rand.Intn(len(want) + 1)
		b := a + rand.Intn(len(want)-a+1)
		if g := got.Slice(a, b); !bytes.Equal(g, want[a:b]) {
			t.Fatalf("Slice(%d, %d) = %q, want %q", a, b, g, want[a:b])
		}
	}
	for range 20 {
		a := rand.Intn(len(want) + 1)
		b := a + rand.Intn(len(want)-a+1)
		c := "\nxaé"[rand.Intn(4)]
		if g, w := got.HasByte(c, a, b), bytes.IndexByte(want[a:b], c) >= 0; g != w {
			t.Fatalf("HasByte(%q, %d, %d) = %v, want %v", c, a, b, g, w)
		}
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("Bytes differ")
	}
}

// sortSearchInts is the index of the last start at or before off.
func sortSearchInts(starts []int, off int) int {
	i := 0
	for i+1 < len(starts) && starts[i+1] <= off {
		i++
	}
	return i
}

func TestTextEdits(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	line := func() string {
		switch rng.Intn(6) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("x", rng.Intn(3*pieceSize)) // a long line
		case 2:
			return "é€😀"
		}
		return strings.Repeat("ab", rng.Intn(40))
	}
	rounds := 40
	if raceDetector {
		rounds = 10
	}
	for round := range rounds {
		var b strings.Builder
		for range rng.Intn(60) {
			b.WriteString(line())
			b.WriteByte('\n')
		}
		if round%2 == 0 {
			b.WriteString(line()) // no final newline
		}
		want := []byte(b.String())
		text := NewText(want)
		checkText(t, text, want)
		for range 30 {
			start := rng.Intn(len(want) + 1)
			end := start + rng.Intn(min(len(want)-start, 3*pieceSize)+1)
			var ins string
			switch rng.Intn(4) {
			case 0:
			case 1:
				ins = "\n"
			case 2:
				ins = line() + "\n" + line()
			default:
				ins = "q"
			}
			prev := text
			text = text.Replace(start, end, []byte(ins))
			before := append([]byte(nil), want...)
			want = append(append(append([]byte(nil), want[:start]...), ins...), want[end:]...)
			checkText(t, text, want)
			checkText(t, prev, before) // unchanged by the edit
		}
	}
}

func TestTextEmpty(t *testing.T) {
	text := NewText(nil)
	checkText(t, text, nil)
	text = text.Replace(0, 0, []byte("a\nb\n"))
	checkText(t, text, []byte("a\nb\n"))
	checkText(t, text.Replace(0, 4, nil), nil)
}

// TestTextEditCopiesAPiece bounds what a one-byte edit of a big text
// allocates: its piece and the per-piece index, not the text.
func TestTextEditCopiesAPiece(t *testing.T) {
	src := []byte(strings.Repeat("bench.m1 = kernel.all.cpu.user + kernel.all.cpu.sys\n", 100000))
	text := NewText(src)
	mid := len(src) / 2
	var edited *Text
	allocs := testing.AllocsPerRun(20, func() { edited = text.Replace(mid, mid, []byte("x")) })
	if allocs > 8 {
		t.Errorf("%.0f allocations an edit, want at most 8", allocs)
	}
	// The bytes: the piece (under 2 pieceSize) and three entries a piece.
	var m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m1)
	for range 10 {
		edited = text.Replace(mid, mid, []byte("x"))
	}
	runtime.ReadMemStats(&m2)
	perEdit := (m2.TotalAlloc - m1.TotalAlloc) / 10
	limit := uint64(3*pieceSize + len(text.pieces)*(8+8+8) + 1024)
	if perEdit > limit {
		t.Errorf("%d bytes an edit of a %d-byte text, want at most %d", perEdit, len(src), limit)
	}
	if edited.Len() != len(src)+1 {
		t.Fatal(edited.Len())
	}
}
