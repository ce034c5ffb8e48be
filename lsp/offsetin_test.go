package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
)

// TestOffsetInEqualsLineScan: the block-wise line search gives the offset
// a line-by-line scan gives, on texts whose lines end on, before and
// after block boundaries, with multi-byte characters and positions past
// a line's end or the text's.
func TestOffsetInEqualsLineScan(t *testing.T) {
	naive := func(text string, p protocol.Position) int {
		lines := strings.SplitAfter(text, "\n")
		if int(p.Line) >= len(lines) {
			return len(text)
		}
		off := 0
		for _, l := range lines[:p.Line] {
			off += len(l)
		}
		col := 0
		for _, r := range strings.TrimSuffix(lines[p.Line], "\n") {
			if uint32(col) >= p.Character {
				break
			}
			col += len(utf16.Encode([]rune{r}))
			off += len(string(r))
		}
		return off
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "bc", "é", "😀", "\n", "\n\n", strings.Repeat("x", 4095), strings.Repeat("y", 4097)}
	for range 200 {
		var b strings.Builder
		for b.Len() < rng.IntN(40000) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		lines := uint32(strings.Count(text, "\n"))
		for range 50 {
			p := protocol.Position{Line: rng.Uint32N(lines + 3), Character: rng.Uint32N(6000)}
			if got, want := offsetIn(text, p), naive(text, p); got != want {
				t.Fatalf("text of %d bytes, %+v: offset %d, want %d", len(text), p, got, want)
			}
		}
	}
}
