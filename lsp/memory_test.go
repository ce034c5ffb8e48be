package lsp

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestOpenDocumentsTold: the open documents' total size is told when a
// document opens or closes and when edits moved it by more than a
// sixteenth, not on every keystroke.
func TestOpenDocumentsTold(t *testing.T) {
	var told []int64
	ds := newDocuments(func(n int64) { told = append(told, n) })
	big := strings.Repeat("m.x = sample.long.one\n", 1000) // 22,000 bytes
	ds.open("file:///a.conf", 1, big)
	ds.open("file:///b.conf", 1, "m.y = 1\n")
	for v := int32(2); v < 12; v++ {
		ch := []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 3, Character: 0}, End: protocol.Position{Line: 3, Character: 0}}, Text: "x"}}
		if _, err := ds.edit("file:///a.conf", v, ch); err != nil {
			t.Fatal(err)
		}
	}
	ds.edit("file:///a.conf", 12, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: big + big}})
	ds.close("file:///a.conf")
	ds.close("file:///b.conf")
	want := []int64{22000, 44000 + 8, 8, 0}
	if !slices.Equal(told, want) {
		t.Fatalf("told %v, want %v", told, want)
	}
}
