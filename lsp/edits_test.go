package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestChangeSinceDescribesEdits: after random didChange notifications
// (several changes in one, whole-document replacements, a version that
// does not grow), the change a document composes since any earlier
// version it still knows leaves the text before and after it as that
// version had it, and it knows the change since most recent versions.
func TestChangeSinceDescribesEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ds := newDocuments(func(int64) {})
	u := uri.File("/tmp/edits.conf")
	text := strings.Repeat("m.a = kernel.all.load + 1\n", 30)
	ds.open(u, 1, text)
	snaps := []*snapshot{{version: 1, seq: 0, text: ds.m[u].text}}
	version := int32(1)
	known, asked := 0, 0
	for step := range 3000 {
		d := ds.m[u]
		var changes []protocol.TextDocumentContentChangeEvent
		cur := d.text.String()
		for range 1 + rng.IntN(3) {
			if rng.IntN(40) == 0 {
				cur = strings.Repeat("n.b = 2\n", 1+rng.IntN(20))
				changes = append(changes, &protocol.TextDocumentContentChangeWholeDocument{Text: cur})
				continue
			}
			if rng.IntN(8) == 0 {
				// A keystroke as a client of whole documents sends it.
				at := rng.IntN(len(cur) + 1)
				end := min(len(cur), at+rng.IntN(3))
				cur = cur[:at] + []string{"", "x", "\n", "é"}[rng.IntN(4)] + cur[end:]
				changes = append(changes, &protocol.TextDocumentContentChangeWholeDocument{Text: cur})
				continue
			}
			lines := strings.Count(cur, "\n")
			a := protocol.Position{Line: uint32(rng.IntN(lines + 1)), Character: uint32(rng.IntN(30))}
			b := a
			if rng.IntN(3) == 0 {
				b = protocol.Position{Line: a.Line + uint32(rng.IntN(2)), Character: uint32(rng.IntN(30))}
			}
			ins := []string{"", "x", "(", "\n", "q.r = 3\n", "é"}[rng.IntN(6)]
			start, end := offsetIn(cur, a), offsetIn(cur, b)
			start, end = min(start, end), max(start, end) // a range given end first
			cur = cur[:start] + ins + cur[end:]
			changes = append(changes, &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: a, End: b}, Text: ins})
		}
		if rng.IntN(100) != 0 {
			version++ // now and then a client sends a version that does not grow
		}
		if _, err := ds.edit(u, version, changes); err != nil {
			t.Fatal(err)
		}
		if d.text.String() != cur {
			t.Fatalf("step %d: the document's text is not the edits applied", step)
		}
		snaps = append(snaps, &snapshot{version: version, seq: d.seq, text: d.text})
		for range 3 {
			p := snaps[max(0, len(snaps)-1-rng.IntN(min(len(snaps), 80)))]
			asked++
			ch, ok := d.changeSince(p)
			if !ok {
				continue
			}
			known++
			was, now := p.text.String(), d.text.String()
			if ch.Start < 0 || ch.Start > ch.OldEnd || ch.OldEnd > len(was) || ch.NewEnd > len(now) ||
				was[:ch.Start] != now[:ch.Start] || was[ch.OldEnd:] != now[ch.NewEnd:] {
				t.Fatalf("step %d: change %+v since version %d does not describe the edits", step, ch, p.version)
			}
		}
	}
	if known < asked/2 {
		t.Errorf("the change was known for only %d of %d earlier versions", known, asked)
	}
	t.Logf("the change was known for %d of %d earlier versions", known, asked)
}

// TestRangedEditsAsClientsApplyThem: ranges as editors send them, applied
// as the LSP specification and clients' own documents apply them: a
// column past the end of a CRLF line is the end before "\r\n", and a
// range given end first is the same range.
func TestRangedEditsAsClientsApplyThem(t *testing.T) {
	pos := func(l, c uint32) protocol.Position { return protocol.Position{Line: l, Character: c} }
	for _, tc := range []struct {
		name, text string
		from, to   protocol.Position
		ins, want  string
	}{
		{"past the end of a CRLF line", "abc\r\ndef\r\n", pos(0, 99), pos(0, 99), "X", "abcX\r\ndef\r\n"},
		{"to past the end of a CRLF line", "abc\r\ndef\r\n", pos(0, 1), pos(0, 99), "", "a\r\ndef\r\n"},
		{"end first", "abcdef\n", pos(0, 4), pos(0, 1), "X", "aXef\n"},
		{"past the last line", "a = 1\n", pos(9, 0), pos(9, 0), "b = 2\n", "a = 1\nb = 2\n"},
		{"a surrogate pair", "m = \"😀x\"\n", pos(0, 7), pos(0, 8), "", "m = \"😀\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDocuments(func(int64) {})
			u := uri.File("/tmp/ranged.conf")
			ds.open(u, 1, tc.text)
			if _, err := ds.edit(u, 2, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: tc.from, End: tc.to}, Text: tc.ins}}); err != nil {
				t.Fatal(err)
			}
			if got := ds.m[u].text.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
