package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// offsetIn converts an LSP position (UTF-16 columns) to a byte offset of
// text, as a document's edit does (grammar.Text.Offset).
func offsetIn(text string, p protocol.Position) int {
	return grammar.NewText([]byte(text)).Offset(int(p.Line), int(p.Character))
}

// TestOffsetInEqualsLineScan: a Text's line index gives the offset a
// line-by-line scan gives, on texts whose lines end on, before and
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
		for line := strings.TrimSuffix(lines[p.Line], "\n"); line != "" && uint32(col) < p.Character; {
			r, size := utf8.DecodeRuneInString(line) // an invalid byte: U+FFFD, one unit, one byte
			col += len(utf16.Encode([]rune{r}))
			off += size
			line = line[size:]
		}
		return off
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "bc", "é", "😀", "\xff", "\n", "\n\n", strings.Repeat("x", 4095), strings.Repeat("y", 4097)}
	for range 200 {
		var b strings.Builder
		for b.Len() < rng.IntN(40000) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		f := grammar.ParseConfig("t.conf", []byte(text), grammar.Options{Version: pcpver.Latest})
		lines := uint32(strings.Count(text, "\n"))
		for range 50 {
			p := protocol.Position{Line: rng.Uint32N(lines + 3), Character: rng.Uint32N(6000)}
			want := naive(text, p)
			if got := offsetIn(text, p); got != want {
				t.Fatalf("text of %d bytes, %+v: offset %d, want %d", len(text), p, got, want)
			}
			// An edit uses the latest parse's line index when it is of
			// the same text: the same offset.
			if got := f.Offset(int(p.Line), int(p.Character)); got != want {
				t.Fatalf("text of %d bytes, %+v: the parse's offset %d, want %d", len(text), p, got, want)
			}
		}
	}
}
