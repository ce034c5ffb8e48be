package report

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain é 名":          "plain é 名",
		"a\x1b[31mb":         `a\x1b[31mb`,
		"t\tab":              "t\tab",
		"line\nbreak\r":      `line\x0abreak\x0d`,
		"del\x7f":            `del\x7f`,
		"c1 \u009b2J":        `c1 \xc2\x9b2J`,
		"bad \x9b utf8 \xff": `bad \x9b utf8 \xff`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEscaper: newlines pass, a rune split between writes is kept whole,
// one cut off at the end is escaped by Flush.
func TestEscaper(t *testing.T) {
	var b strings.Builder
	e := NewEscaper(&b)
	in := "é\x1b[1m\nx\u009b"
	for i := 0; i < len(in); i++ {
		e.Write([]byte{in[i]})
	}
	e.Write([]byte{0xc3})
	e.Flush()
	if want := "é\\x1b[1m\nx\\xc2\\x9b\\xc3"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestEscapedMarker: the marker under an escaped source line still
// points at the range.
func TestEscapedMarker(t *testing.T) {
	text, mark := escapeMarked("ab\x1bcd", "  ^~~")
	if text != `ab\x1bcd` || mark != `  ^~~~~~` {
		t.Errorf("%q\n%q", text, mark)
	}
}
