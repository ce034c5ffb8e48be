package lsp

import "testing"

// TestRopeSlices: every slice of a rope, across and within its runs, is
// the same bytes as the slice of its flat text, and is made of slices of
// the rope's own buffers; a compacted rope is one run of the same bytes.
func TestRopeSlices(t *testing.T) {
	var r rope
	for _, s := range []string{"abc", "", "de", "f", "ghijk"} {
		b := []byte(s)
		r.append(b, b)
	}
	flat := "abcdefghijk"
	if got := string(r.appendTo(nil)); got != flat || r.Len() != len(flat) {
		t.Fatalf("rope %q of %d bytes, want %q", got, r.Len(), flat)
	}
	for lo := 0; lo <= len(flat); lo++ {
		for hi := lo; hi <= len(flat); hi++ {
			var s rope
			s.append([]byte("<"), nil)
			s.appendSlice(&r, lo, hi)
			if got, want := string(s.appendTo(nil)), "<"+flat[lo:hi]; got != want || s.Len() != len(want) {
				t.Fatalf("[%d:%d]: %q of %d bytes, want %q", lo, hi, got, s.Len(), want)
			}
			want := 0 // the runs [lo, hi) overlaps
			for _, run := range [][2]int{{0, 3}, {3, 5}, {5, 6}, {6, 11}} {
				if lo < hi && run[0] < hi && lo < run[1] {
					want++
				}
			}
			if runs := len(s.runs) - 1; runs != want {
				t.Fatalf("[%d:%d]: %d runs, want %d", lo, hi, runs, want)
			}
		}
	}
	c := r.compacted()
	if len(c.runs) != 1 || string(c.appendTo(nil)) != flat || c.held() != len(flat) {
		t.Fatalf("compacted: %d runs, %q, %d bytes held", len(c.runs), c.appendTo(nil), c.held())
	}
	if r.fragmented() {
		t.Error("a rope of 4 runs and no slack is fragmented")
	}
	var many rope
	for range maxRopeRuns + 1 {
		many.appendSlice(&r, 0, 3)
	}
	if !many.fragmented() || many.held() != cap(r.runs[0].from) {
		t.Errorf("%d runs of one buffer: fragmented %v, %d bytes held", len(many.runs), many.fragmented(), many.held())
	}
}
