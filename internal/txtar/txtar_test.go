package txtar

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseFormatRoundTrip(t *testing.T) {
	text := "a comment\n-- a.conf --\nx = 1\n-- want --\ndiag\n-- empty --\n-- golden --\n> diag\n"
	a := Parse(text)
	if a.Comment != "a comment\n" || len(a.Files) != 4 {
		t.Fatalf("parsed %+v", a)
	}
	if m := a.Map(); m["a.conf"] != "x = 1\n" || m["empty"] != "" || m["golden"] != "> diag\n" {
		t.Errorf("sections %q", m)
	}
	if got := a.Format(); got != text {
		t.Errorf("Format = %q, want %q", got, text)
	}
	// A line that only looks like a marker inside data stays data.
	if b := Parse("-- x --\n--not a marker--\n-- --\n"); len(b.Files) != 1 || b.Files[0].Data != "--not a marker--\n-- --\n" {
		t.Errorf("%+v", b)
	}
}

func TestReplaceLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.txtar")
	os.WriteFile(path, []byte("c\n-- golden --\nold\n-- a.conf --\nx\n"), 0o644)
	if err := ReplaceLast(path, "golden", "new\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "c\n-- a.conf --\nx\n-- golden --\nnew\n"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
}
