package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Lone "\r" line endings (classic Mac OS, or a mix): the client ends a
// line at each, libpcp reads on to "\n". The server's answers count lines
// as the client does; its findings say what libpcp says.

// TestLoneCRComments: comment lines ended by lone "\r"s (one comment line
// to libpcp, several to the client) get the answers, position for
// position, of the twin document whose comment lines end in "\r\n"
// (several comment lines to libpcp too): every line after them is where
// the client has it.
func TestLoneCRComments(t *testing.T) {
	caps := vscodeCaps(t)
	for _, kind := range slices.Sorted(maps.Keys(lineEndingSources)) {
		t.Run(kind, func(t *testing.T) {
			head := "# one\r\n# two\r\n# three\r\n"
			for _, endings := range [][]string{{"\n"}, {"\r\n", "\n"}} {
				twin := head + withEndings(lineEndingSources[kind], endings...)
				lone := strings.Replace(twin, "\r\n", "\r", 3)
				lines := len(lines16(twin)) - 1
				want := featureAnswers(t, capsSession(t, caps, twin), lines)
				got := featureAnswers(t, capsSession(t, caps, lone), lines)
				for _, k := range slices.Sorted(maps.Keys(want)) {
					if got[k] != want[k] {
						t.Errorf("endings %q, %s:\n got  %s\n want %s", endings, k, got[k], want[k])
					}
				}
			}
		})
	}
}

// loneCRSource has lone "\r"s between comment lines, inside definitions
// (libpcp reads "\r" as a blank) and at the text's end. Its lines as the
// client counts them:
//
//	0 # first
//	1 # second
//	2 m.a = kernel.all.load +
//	3     1
//	4 m.b = m.a * 2
//	5 m.c = m.b +
//	6  m.a
//	7 m.d   =  kernel.all.lod
//	8 m.e   =
//	9  2
//	10
const loneCRSource = "# first\r# second\n" +
	"m.a = kernel.all.load +\r    1\n" +
	"m.b = m.a * 2\r\n" +
	"m.c = m.b +\r m.a\n" +
	"m.d   =  kernel.all.lod\r\n" +
	"m.e   =\r 2\r"

// TestLoneCRPositions: in a document with lone "\r"s, every feature's
// ranges lie where the client has the text they mean: the text under each
// range (cut by the client's rules, lspOffset) is the name, expression or
// finding it is about, and the edits the server proposes, applied by
// those rules, make the document they should.
func TestLoneCRPositions(t *testing.T) {
	text := loneCRSource
	c := capsSession(t, vscodeCaps(t), text)
	under := func(r lspRange) string { return rangeText(text, r) }
	at := func(r lspRange) string { return rangeAt(text, r) }

	var diags struct {
		Items []struct {
			Range lspRange
			Code  string
		}
	}
	json.Unmarshal(c.ask("textDocument/diagnostic", map[string]any{}), &diags)
	var found []string
	for _, d := range diags.Items {
		found = append(found, d.Code+" "+at(d.Range))
	}
	for _, w := range []string{`unknown-metric 7:9-7:23 "kernel.all.lod"`, `nested-derived 6:1-6:4 "m.a"`, `nested-derived 4:6-4:9 "m.a"`} {
		if !slices.Contains(found, w) {
			t.Errorf("diagnostics: no %s in %q", w, found)
		}
	}

	var syms []struct {
		Name, Detail          string
		Range, SelectionRange lspRange
	}
	json.Unmarshal(c.ask("textDocument/documentSymbol", map[string]any{}), &syms)
	var gotSyms []string
	for _, s := range syms {
		gotSyms = append(gotSyms, fmt.Sprintf("%s %q %s %s", s.Name, s.Detail, at(s.SelectionRange), at(s.Range)))
	}
	wantSyms := []string{
		`m.a "kernel.all.load +\n    1" 2:0-2:3 "m.a" 2:0-3:5 "m.a = kernel.all.load +\r    1"`,
		`m.b "m.a * 2" 4:0-4:3 "m.b" 4:0-4:13 "m.b = m.a * 2"`,
		`m.c "m.b +\n m.a" 5:0-5:3 "m.c" 5:0-6:4 "m.c = m.b +\r m.a"`,
		`m.d "kernel.all.lod" 7:0-7:3 "m.d" 7:0-7:23 "m.d   =  kernel.all.lod"`,
	}
	if !slices.Equal(gotSyms[:min(4, len(gotSyms))], wantSyms) {
		t.Errorf("symbols:\n got  %q\n want %q", gotSyms, wantSyms)
	}

	checkLoneCRNames(t, text, c)

	var folds []struct{ StartLine, EndLine int }
	json.Unmarshal(c.ask("textDocument/foldingRange", map[string]any{}), &folds)
	for _, w := range []struct{ StartLine, EndLine int }{{0, 1}, {2, 3}, {5, 6}, {8, 9}} {
		if !slices.Contains(folds, w) {
			t.Errorf("folding: no %d-%d in %v", w.StartLine, w.EndLine, folds)
		}
	}
	var hints []struct{ Position struct{ Line, Character int } }
	json.Unmarshal(c.ask("textDocument/inlayHint", map[string]any{"range": jrange(0, 0, 11, 0)}), &hints)
	var hintAt []string
	for _, h := range hints {
		hintAt = append(hintAt, fmt.Sprintf("%d:%d", h.Position.Line, h.Position.Character))
	}
	if want := []string{"3:5", "4:13", "6:4"}; !slices.Equal(hintAt, want) {
		t.Errorf("inlay hints at %q, want %q (the ends of m.a, m.b, m.c)", hintAt, want)
	}
	var lenses []struct{ Range lspRange }
	json.Unmarshal(c.ask("textDocument/codeLens", map[string]any{}), &lenses)
	if len(lenses) != 3 {
		t.Errorf("%d code lenses, want 3 (m.a, m.b, m.c)", len(lenses))
	}
	for _, l := range lenses {
		if !strings.HasPrefix(under(l.Range), "m.") || l.Range.Start.Line != l.Range.End.Line {
			t.Errorf("code lens on %s", at(l.Range))
		}
	}

	checkLoneCRTokens(t, text, c)
	checkLoneCREdits(t, text, c)
}

// rangeAt describes an LSP range of text: where, and the text under it.
func rangeAt(text string, r lspRange) string {
	return fmt.Sprintf("%d:%d-%d:%d %q", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, rangeText(text, r))
}

// checkLoneCRNames: the features about the name under the cursor, asked
// on the line after a lone "\r", answer with m.a's places.
func checkLoneCRNames(t *testing.T, text string, c *capsClient) {
	t.Helper()
	at := func(r lspRange) string { return rangeAt(text, r) }
	// The uses of m.a, from its use on the line after a lone "\r".
	var hl []struct{ Range lspRange }
	json.Unmarshal(c.ask("textDocument/documentHighlight", atPos(6, 2)), &hl)
	var refs []struct{ Range lspRange }
	json.Unmarshal(c.ask("textDocument/references", map[string]any{"position": jpos(6, 2), "context": map[string]any{"includeDeclaration": true}}), &refs)
	wantUses := []string{`2:0-2:3 "m.a"`, `4:6-4:9 "m.a"`, `6:1-6:4 "m.a"`}
	for name, got := range map[string][]struct{ Range lspRange }{"highlights": hl, "references": refs} {
		var ranges []string
		for _, h := range got {
			ranges = append(ranges, at(h.Range))
		}
		if slices.Sort(ranges); !slices.Equal(ranges, wantUses) {
			t.Errorf("%s: %q, want %q", name, ranges, wantUses)
		}
	}
	var rename struct{ Changes map[string][]lspEdit }
	json.Unmarshal(c.ask("textDocument/rename", map[string]any{"position": jpos(6, 2), "newName": "m.z"}), &rename)
	if got, want := applyEditsLSP(t, text, rename.Changes["file:///tmp/caps.conf"]), strings.ReplaceAll(text, "m.a", "m.z"); got != want {
		t.Errorf("rename: %q, want %q", got, want)
	}

	var hover struct{ Range lspRange }
	json.Unmarshal(c.ask("textDocument/hover", atPos(6, 2)), &hover)
	if got := at(hover.Range); got != `6:1-6:4 "m.a"` {
		t.Errorf("hover range %s", got)
	}
	var sel []struct {
		Range  lspRange
		Parent struct{ Range lspRange }
	}
	json.Unmarshal(c.ask("textDocument/selectionRange", map[string]any{"positions": []any{jpos(6, 2)}}), &sel)
	if len(sel) != 1 || at(sel[0].Range) != `6:1-6:4 "m.a"` || at(sel[0].Parent.Range) != `5:6-6:4 "m.b +\r m.a"` {
		t.Errorf("selection ranges %+v", sel)
	}
	var comp struct {
		Items []struct {
			Label    string
			TextEdit struct{ Range lspRange }
		}
	}
	json.Unmarshal(c.ask("textDocument/completion", atPos(6, 3)), &comp)
	if len(comp.Items) == 0 {
		t.Errorf("no completion after \"m.\"")
	}
	for _, it := range comp.Items {
		if got := at(it.TextEdit.Range); got != `6:1-6:3 "m."` {
			t.Errorf("completion %s replaces %s", it.Label, got)
		}
	}
	var prep []struct{ SelectionRange lspRange }
	json.Unmarshal(c.ask("textDocument/prepareCallHierarchy", atPos(6, 2)), &prep)
	if len(prep) != 1 || at(prep[0].SelectionRange) != `2:0-2:3 "m.a"` {
		t.Errorf("call hierarchy items %+v", prep)
	}

}

// checkLoneCRTokens: every semantic token lies within one of the
// client's lines, and the comments, names and numbers are where the
// client has them.
func checkLoneCRTokens(t *testing.T, text string, c *capsClient) {
	t.Helper()
	var toks struct{ Data []int }
	json.Unmarshal(c.ask("textDocument/semanticTokens/full", map[string]any{}), &toks)
	var got []string
	line, col := 0, 0
	for i := 0; i+4 < len(toks.Data); i += 5 {
		if toks.Data[i] > 0 {
			line, col = line+toks.Data[i], 0
		}
		col += toks.Data[i+1]
		r := lspRange{}
		r.Start.Line, r.Start.Character = line, col
		r.End.Line, r.End.Character = line, col+toks.Data[i+2]
		s := rangeText(text, r)
		if s == "" || strings.ContainsAny(s, "\r\n") {
			t.Errorf("token %d:%d+%d is %q", line, col, toks.Data[i+2], s)
		}
		got = append(got, fmt.Sprintf("%d:%d %s", line, col, s))
	}
	for _, w := range []string{"0:0 # first", "1:0 # second", "3:4 1", "6:1 m.a", "7:9 kernel.all.lod", "9:1 2"} {
		if !slices.Contains(got, w) {
			t.Errorf("no token %q in %q", w, got)
		}
	}
}

// checkLoneCREdits: Format Document and the quick fix of the unknown
// metric, applied as the client applies them: each line keeps its own
// ending, the lone "\r" at the text's end included; a lone "\r" inside a
// definition is a blank to libpcp, which the canonical form drops.
func checkLoneCREdits(t *testing.T, text string, c *capsClient) {
	t.Helper()
	var edits []lspEdit
	json.Unmarshal(c.ask("textDocument/formatting", map[string]any{"options": map[string]any{"tabSize": 4, "insertSpaces": true}}), &edits)
	want := "# first\r# second\nm.a = kernel.all.load + 1\nm.b = m.a * 2\r\nm.c = m.b + m.a\nm.d = kernel.all.lod\r\nm.e = 2\r"
	if got := applyEditsLSP(t, text, edits); got != want {
		t.Errorf("formatted:\n%q\nwant\n%q", got, want)
	}
	var actions []struct {
		Title string
		Edit  struct{ Changes map[string][]lspEdit }
	}
	json.Unmarshal(c.ask("textDocument/codeAction", map[string]any{"range": jrange(7, 10, 7, 10), "context": map[string]any{"diagnostics": []any{}}}), &actions)
	fixed := false
	for _, a := range actions {
		if e := a.Edit.Changes["file:///tmp/caps.conf"]; len(e) > 0 && strings.Contains(a.Title, "kernel.all.load") {
			got := applyEditsLSP(t, text, e)
			if want := strings.Replace(text, "kernel.all.lod", "kernel.all.load", 1); got != want {
				t.Errorf("%s: %q, want %q", a.Title, got, want)
			}
			fixed = true
		}
	}
	if !fixed {
		t.Errorf("no fix for kernel.all.lod among %+v", actions)
	}
}

// TestRangedEditsMixedEndings: random ranged edits (didChange) of texts
// whose lines end in "\n", "\r\n" and lone "\r"s, small and large (across
// the text's pieces and groups, and a classic Mac OS file: one line to
// libpcp), leave the server's document as a client's, applying them by
// the LSP's rules (lspOffset), leaves its own.
func TestRangedEditsMixedEndings(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 13))
	words := []string{"", "m.a = b", "é€", "😀", "x\ry", "\r", "\n", "\r\n", "ab"}
	endings := []string{"\n", "\r\n", "\r"}
	for round, size := range []int{10, 300, 8000, 30000} {
		var b strings.Builder
		for range size {
			b.WriteString(words[rng.IntN(len(words))])
			if round == 3 {
				b.WriteByte('\r') // classic Mac OS
			} else {
				b.WriteString(endings[rng.IntN(len(endings))])
			}
		}
		text := b.String()
		lines := len(lines16(text))
		var edits []lspEdit
		for range 300 {
			var e lspEdit
			e.Range.Start.Line, e.Range.Start.Character = rng.IntN(lines+2), rng.IntN(12)
			e.Range.End.Line, e.Range.End.Character = e.Range.Start.Line+rng.IntN(3), rng.IntN(12)
			if rng.IntN(8) == 0 {
				e.Range.Start, e.Range.End = e.Range.End, e.Range.Start // end first
			}
			e.NewText = words[rng.IntN(len(words))] + words[rng.IntN(len(words))]
			edits = append(edits, e)
		}
		rangedEditsAgree(t, text, edits)
	}
}

// FuzzRangedEditsMixedEndings: two ranged edits of any text agree with
// the LSP's rules (TestRangedEditsMixedEndings).
func FuzzRangedEditsMixedEndings(f *testing.F) {
	f.Add("a\rb\r\nc\n", uint8(1), uint8(0), uint8(2), uint8(1), "\n", uint8(0), uint8(9), "\r")
	f.Add("x\r\r\ry😀z\r", uint8(4), uint8(1), uint8(4), uint8(2), "\r\n", uint8(1), uint8(1), "é")
	f.Add("m.a = 1 +\r 2\r\n", uint8(0), uint8(9), uint8(1), uint8(0), "", uint8(2), uint8(0), "\n")
	f.Fuzz(func(t *testing.T, text string, l1, c1, l2, c2 uint8, ins string, l3, c3 uint8, ins2 string) {
		if len(text) > 1<<16 || len(ins) > 1<<10 || len(ins2) > 1<<10 {
			return
		}
		var a, b lspEdit
		a.Range.Start.Line, a.Range.Start.Character, a.Range.End.Line, a.Range.End.Character, a.NewText = int(l1), int(c1), int(l2), int(c2), ins
		b.Range.Start.Line, b.Range.Start.Character, b.Range.End, b.NewText = int(l3), int(c3), b.Range.Start, ins2
		rangedEditsAgree(t, text, []lspEdit{a, b})
	})
}

// rangedEditsAgree applies each edit to a server document opened with
// text and to text by lspOffset, and compares after each.
func rangedEditsAgree(t *testing.T, text string, edits []lspEdit) {
	t.Helper()
	ds := newDocuments(func(int64) {})
	u := uri.File("/tmp/mixed.conf")
	ds.open(u, 1, text)
	pos := func(p struct{ Line, Character int }) protocol.Position {
		return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
	}
	for i, e := range edits {
		rg := protocol.Range{Start: pos(e.Range.Start), End: pos(e.Range.End)}
		if _, err := ds.edit(u, int32(i+2), []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: rg, Text: e.NewText}}); err != nil {
			t.Fatal(err)
		}
		from, to := lspOffset(text, e.Range.Start.Line, e.Range.Start.Character), lspOffset(text, e.Range.End.Line, e.Range.End.Character)
		from, to = min(from, to), max(from, to)
		text = text[:from] + e.NewText + text[to:]
		if got := ds.m[u].text.String(); got != text {
			t.Fatalf("edit %d (%+v): the server has\n%q\nthe client\n%q", i, e, trimmed(got), trimmed(text))
		}
	}
}

// trimmed is s, cut short for a message.
func trimmed(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
