package grammar

import (
	"runtime"
	"strings"
	"testing"
)

func TestTextEmpty(t *testing.T) {
	text := NewText(nil)
	checkTextDeep(t, text, nil)
	text = text.Replace(0, 0, []byte("a\nb\n"))
	checkTextDeep(t, text, []byte("a\nb\n"))
	checkTextDeep(t, text.Replace(0, 4, nil), nil)
}

// TestTextEditCopiesAPiece bounds what a one-byte edit of a big text
// allocates: its piece and the per-piece index, not the text.
func TestTextEditCopiesAPiece(t *testing.T) {
	src := []byte(strings.Repeat("bench.m1 = kernel.all.cpu.user + kernel.all.cpu.sys\n", 100000))
	text := NewText(src)
	mid := len(src) / 2
	var edited *Text
	allocs := testing.AllocsPerRun(20, func() { edited = text.Replace(mid, mid, []byte("x")) })
	// The piece's bytes, the pieces of its group, the piece and its line
	// starts, its group and the group's index, the Text, its groups and
	// their index.
	if allocs > 9 {
		t.Errorf("%.0f allocations an edit, want at most 9", allocs)
	}
	// The bytes: the piece (under 2 pieceSize), its group (under
	// 2 groupLen pieces, three words each) and three words a group.
	var m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m1)
	for range 10 {
		edited = text.Replace(mid, mid, []byte("x"))
	}
	runtime.ReadMemStats(&m2)
	perEdit := (m2.TotalAlloc - m1.TotalAlloc) / 10
	limit := uint64(3*pieceSize + 2*groupLen*(8+8+8) + len(text.groups)*(8+8+8) + 1024)
	if perEdit > limit {
		t.Errorf("%d bytes an edit of a %d-byte text, want at most %d", perEdit, len(src), limit)
	}
	if edited.Len() != len(src)+1 {
		t.Fatal(edited.Len())
	}
}
