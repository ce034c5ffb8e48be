package editdist

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	long := strings.Repeat("kernel.percpu.cpu.", 5) // over 64 bytes: the table
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kernel.all.load", "kernel.all.lod", 1},
		{"kitten", "sitting", 3},
		{"unknown-metirc", "unknown-metric", 2},
		{strings.Repeat("x", 64), "", 64},
		{long, long, 0},
		{long, long + "x", 1},
		{long, "x" + long[1:], 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestBitsEqualTable: the bit-parallel distance is the table's, for
// names up to 64 bytes over a small alphabet (many matches) and dotted
// metric names, against names of every length near theirs.
func TestBitsEqualTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	word := func(n int, alphabet string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		alphabet := []string{"ab", "abc.", "kernel.alcpusy", "\x00\xff\x80a"}[rng.IntN(4)]
		a := word(1+rng.IntN(64), alphabet)
		b := word(rng.IntN(80), alphabet)
		n := New(a)
		if got, want := n.bits(b), n.table(b); got != want {
			t.Fatalf("distance(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}
