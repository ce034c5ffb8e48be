package grammar

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// naiveCommonEnds is CommonEnds on flat bytes, byte by byte.
func naiveCommonEnds(a, b []byte) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < min(len(a), len(b))-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// TestCommonEnds: on texts of many pieces (made by edits) and sizes
// around the comparison blocks, CommonEnds agrees with a byte-by-byte
// comparison for insertions, deletions, replacements, and the same text.
func TestCommonEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	letters := []byte("ab\nc")
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return b
	}
	for _, size := range []int{0, 1, 255, 256, 257, 4095, 4096, 4097, 20000} {
		for trial := range 40 {
			base := randBytes(size)
			text := NewText(bytes.Clone(base))
			// Pieces: a few edits that leave the bytes as they were.
			for range trial % 5 {
				if size == 0 {
					break
				}
				at := rng.IntN(size)
				end := min(size, at+rng.IntN(300))
				text = text.Replace(at, end, bytes.Clone(base[at:end]))
			}
			if !bytes.Equal(text.Bytes(), base) {
				t.Fatal("the edits changed the text")
			}
			other := bytes.Clone(base)
			switch trial % 4 {
			case 0: // the same
			case 1: // an insertion
				at := rng.IntN(size + 1)
				other = append(other[:at:at], append(randBytes(1+rng.IntN(10)), base[at:]...)...)
			case 2: // a deletion
				if size > 0 {
					at := rng.IntN(size)
					other = append(other[:at:at], base[min(size, at+1+rng.IntN(10)):]...)
				}
			case 3: // a replacement
				if size > 0 {
					other[rng.IntN(size)] ^= 1
				}
			}
			p, s := text.CommonEnds(other)
			wp, ws := naiveCommonEnds(base, other)
			if p != wp || s != ws {
				t.Fatalf("size %d, trial %d: CommonEnds = %d, %d; want %d, %d", size, trial, p, s, wp, ws)
			}
		}
	}
}

// TestOffsetEndOfCRLFLine: a column at or past the end of a line is its
// end before the line ending, "\r\n", "\n" or a lone "\r", as LSP counts.
func TestOffsetEndOfCRLFLine(t *testing.T) {
	text := NewText([]byte("abc\r\ndéf\r\nlast\rmac\r\rx\n"))
	for _, tc := range []struct{ line, col, want int }{
		{0, 3, 3}, {0, 4, 3}, {0, 99, 3},
		{1, 3, 9}, {1, 99, 9},
		{2, 99, 15}, // a lone "\r" ends a line
		{3, 0, 16}, {3, 99, 19},
		{4, 0, 20}, {4, 1, 20}, // empty, between two lone "\r"s
		{5, 0, 21}, {5, 5, 22},
		{6, 0, 23}, {7, 0, 23},
	} {
		if got := text.Offset(tc.line, tc.col); got != tc.want {
			t.Errorf("Offset(%d, %d) = %d, want %d", tc.line, tc.col, got, tc.want)
		}
	}
}

// TestCommonEndsReadsInPlace: comparing a 100,000-line text with a copy
// changed in its middle allocates nothing (issue #18: a copy of every
// 4 KiB block of the suffix was 2.45 MB a keystroke).
func TestCommonEndsReadsInPlace(t *testing.T) {
	src := bytes.Repeat([]byte("disk.dev.avgsz = delta(disk.dev.total_bytes) / delta(disk.dev.total)\n"), 100000)
	text := NewText(bytes.Clone(src))
	mid := len(src) / 2
	text = text.Replace(mid, mid+1, src[mid:mid+1]) // pieces
	other := bytes.Clone(src)
	other[mid] = '#'
	allocs := testing.AllocsPerRun(5, func() {
		if p, s := text.CommonEnds(other); p != mid || s != len(src)-mid-1 {
			t.Fatalf("CommonEnds = %d, %d; want %d, %d", p, s, mid, len(src)-mid-1)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a comparison, want none", allocs)
	}
}
