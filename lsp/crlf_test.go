package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/uri"
)

// crlfSource is a config whose every feature has something to say:
// findings with fixes, attributes, a pcp7 continuation line, a definition
// to format, inlay hints and semantic tokens.
const crlfSource = "# load averages\n" +
	"m.a = avg(kernel.all.load)\n" +
	"m.a(oneline) = \"average load\"\n" +
	"m.b   =   m.a+1\n" +
	"m.c = kernel.all.lod * 2\n" +
	"m.d = rate(disk.dev.read) +\n" +
	"      rate(disk.dev.write)\n" +
	"m.e = m.b   *   m.c\n"

// crlfPmrepSource is a pmrep config (told by its [section] header) whose
// formula runs over a continuation line, with an unknown metric on it.
const crlfPmrepSource = "[disk]\n" +
	"util = my.util\n" +
	"util.formula = 100 * rate(disk.dev.avactive) /\n" +
	"    hinv.ncpux\n" +
	"util.unit = Kb\n" +
	"load = kernel.all.load\n" +
	"load.instances = 1 minute\n"

// lineEndingSources are the documents the line ending tests read: a
// derived config and a pmrep file.
var lineEndingSources = map[string]string{"derived": crlfSource, "pmrep": crlfPmrepSource}

// withEndings joins the lines of text (written with \n) with the line
// endings given in turn.
func withEndings(text string, endings ...string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		if l == "" {
			continue
		}
		b.WriteString(strings.TrimSuffix(l, "\n"))
		if strings.HasSuffix(l, "\n") {
			b.WriteString(endings[i%len(endings)])
		}
	}
	return b.String()
}

// featureAnswers asks every position-independent feature about the open
// document and every position-dependent one at each position, keyed by
// request, answers as JSON.
func featureAnswers(t *testing.T, c *capsClient, lines int) map[string]string {
	t.Helper()
	out := map[string]string{}
	ask := func(key, method string, params map[string]any) {
		out[key] = string(c.ask(method, params))
	}
	ask("symbols", "textDocument/documentSymbol", map[string]any{})
	ask("tokens", "textDocument/semanticTokens/full", map[string]any{})
	ask("hints", "textDocument/inlayHint", map[string]any{"range": jrange(0, 0, lines, 0)})
	ask("folding", "textDocument/foldingRange", map[string]any{})
	ask("lenses", "textDocument/codeLens", map[string]any{})
	for line := range lines {
		for char := 0; char < 30; char += 2 {
			p := atPos(line, char)
			ask(fmt.Sprintf("hover %d:%d", line, char), "textDocument/hover", p)
			ask(fmt.Sprintf("completion %d:%d", line, char), "textDocument/completion", p)
			ask(fmt.Sprintf("definition %d:%d", line, char), "textDocument/definition", p)
			ask(fmt.Sprintf("signature %d:%d", line, char), "textDocument/signatureHelp", p)
			ask(fmt.Sprintf("highlight-refs %d:%d", line, char), "textDocument/references", map[string]any{"position": jpos(line, char), "context": map[string]any{"includeDeclaration": true}})
		}
		ask(fmt.Sprintf("actions %d", line), "textDocument/codeAction", map[string]any{"range": jrange(line, 0, line, 40), "context": map[string]any{"diagnostics": []any{}}})
	}
	return out
}

// TestLineEndings: a document with CRLF or mixed line endings gets the
// same answers, position for position, as the same document with LF:
// ranges, symbols (no "\r" in a detail), inlay hints, semantic tokens,
// diagnostics, code actions. A \r is part of no line.
func TestLineEndings(t *testing.T) {
	for _, kind := range slices.Sorted(maps.Keys(lineEndingSources)) {
		t.Run(kind, func(t *testing.T) {
			endings := [][]string{{"\r\n"}, {"\r\n", "\n"}, {"\n", "\r\n", "\r\n"}}
			if kind == "pmrep" {
				// Python reads a lone "\r" as a line's end too.
				endings = append(endings, []string{"\r"}, []string{"\r", "\n", "\r\n"})
			}
			testLineEndings(t, lineEndingSources[kind], endings)
		})
	}
}

func testLineEndings(t *testing.T, source string, endingSets [][]string) {
	caps := vscodeCaps(t)
	lines := strings.Count(source, "\n")
	lf := capsSession(t, caps, source)
	want := featureAnswers(t, lf, lines)
	for _, endings := range endingSets {
		t.Run(strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(strings.Join(endings, ",")), func(t *testing.T) {
			text := withEndings(source, endings...)
			c := capsSession(t, caps, text)
			got := featureAnswers(t, c, lines)
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if got[k] != want[k] {
					t.Errorf("%s:\n got  %s\n want %s", k, got[k], want[k])
				}
			}
			if strings.Contains(got["symbols"], `\r`) {
				t.Errorf("a symbol holds a \\r: %s", got["symbols"])
			}
		})
	}
}

// TestLineEndingDiagnostics: the published diagnostics of a CRLF or
// mixed document are those of its LF twin.
func TestLineEndingDiagnostics(t *testing.T) {
	caps := json.RawMessage(`{}`) // a client diagnostics are pushed to
	for _, kind := range slices.Sorted(maps.Keys(lineEndingSources)) {
		source := lineEndingSources[kind]
		want := capsSession(t, caps, source)
		wantDiags := lastDiagnostics(t, want)
		for _, endings := range [][]string{{"\r\n"}, {"\r\n", "\n"}} {
			c := capsSession(t, caps, withEndings(source, endings...))
			if got := lastDiagnostics(t, c); got != wantDiags {
				t.Errorf("%s, endings %q:\n got  %s\n want %s", kind, endings, got, wantDiags)
			}
		}
	}
}

// lastDiagnostics reads the diagnostics of the full analysis of the
// open document: the publish that holds its unknown metric (a big
// document's syntax findings may be published before).
func lastDiagnostics(t *testing.T, c *capsClient) string {
	t.Helper()
	for {
		m := c.notification("textDocument/publishDiagnostics")
		var p struct {
			URI         string
			Diagnostics json.RawMessage
		}
		json.Unmarshal(m.Params, &p)
		if strings.HasSuffix(p.URI, "caps.conf") && strings.Contains(string(p.Diagnostics), "unknown-metric") {
			return string(p.Diagnostics)
		}
	}
}

// lspEdit is a TextEdit as the tests decode it.
type lspEdit struct {
	Range   lspRange
	NewText string
}

// lspRange is a Range as the tests decode it.
type lspRange struct {
	Start, End struct{ Line, Character int }
}

// lspOffset is the byte offset of an LSP position in text, by the rules
// a client keeps its document by, written here independently of the
// server: lines end at \n, \r\n or \r; columns count UTF-16 units, one
// inside a character rounds past it; past a line's end is its end
// (before its ending), past the last line the text's end.
func lspOffset(text string, line, char int) int {
	off := 0
	for range line {
		i := strings.IndexAny(text[off:], "\r\n")
		if i < 0 {
			return len(text)
		}
		off += i + 1
		if text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
			off++
		}
	}
	end := strings.IndexAny(text[off:], "\r\n")
	if end < 0 {
		end = len(text) - off
	}
	units := 0
	for i, r := range text[off : off+end] {
		if units >= char {
			return off + i
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return off + end
}

// rangeText is the text under an LSP range (lspOffset).
func rangeText(text string, r lspRange) string {
	from, to := lspOffset(text, r.Start.Line, r.Start.Character), lspOffset(text, r.End.Line, r.End.Character)
	if to < from {
		from, to = to, from
	}
	return text[from:to]
}

// applyEditsLSP applies LSP text edits (lspOffset) to text.
func applyEditsLSP(t *testing.T, text string, edits []lspEdit) string {
	t.Helper()
	sort.Slice(edits, func(i, j int) bool {
		a, b := edits[i].Range.Start, edits[j].Range.Start
		return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
	})
	for _, e := range edits {
		s, en := lspOffset(text, e.Range.Start.Line, e.Range.Start.Character), lspOffset(text, e.Range.End.Line, e.Range.End.Character)
		text = text[:s] + e.NewText + text[en:]
	}
	return text
}

// TestFormattingKeepsLineEndings: Format Document changes a CRLF or
// mixed document as it changes its LF twin, each line keeping its own
// ending.
func TestFormattingKeepsLineEndings(t *testing.T) {
	caps := vscodeCaps(t)
	format := func(text string) string {
		c := capsSession(t, caps, text)
		var edits []lspEdit
		json.Unmarshal(c.ask("textDocument/formatting", map[string]any{"options": map[string]any{"tabSize": 4, "insertSpaces": true}}), &edits)
		return applyEditsLSP(t, text, edits)
	}
	lf := format(crlfSource)
	if lf == crlfSource {
		t.Fatal("formatting changed nothing in the LF document")
	}
	for _, endings := range [][]string{{"\r\n"}, {"\r\n", "\n"}, {"\n", "\r\n", "\r\n"}} {
		text := withEndings(crlfSource, endings...)
		got := format(text)
		// The formatted document, line for line, with the original
		// lines' endings: the LF result's lines where the source's are.
		if strings.ReplaceAll(got, "\r\n", "\n") != lf {
			t.Errorf("endings %q: formatted\n%q\nwant (as LF)\n%q", endings, got, lf)
		}
		if strings.Count(got, "\r\n") != strings.Count(text, "\r\n") {
			t.Errorf("endings %q: %d CRLF after formatting, %d before:\n%q", endings, strings.Count(got, "\r\n"), strings.Count(text, "\r\n"), got)
		}
	}
}

// TestWithEndingsOf: a formatted definition keeps each line's ending;
// new lines take the ending of the line the old text ends on.
func TestWithEndingsOf(t *testing.T) {
	tests := []struct{ old, text, last, want string }{
		{"a = b", "a = b", "\r\n", "a = b"},
		{"a = b", "a =\n    b", "\r\n", "a =\r\n    b"},
		{"a = b", "a =\n    b", "\n", "a =\n    b"},
		{"a = b +\r\n  c", "a = b +\n    c", "\n", "a = b +\r\n    c"},
		{"a = b +\n  c", "a = b +\n    c\n    + d", "\r\n", "a = b +\n    c\r\n    + d"},
		{"a = b +\r\n  c +\n  d", "a = b + c + d", "\r\n", "a = b + c + d"},
	}
	for _, tt := range tests {
		if got := withEndingsOf(tt.old, tt.text, tt.last); got != tt.want {
			t.Errorf("withEndingsOf(%q, %q, %q) = %q, want %q", tt.old, tt.text, tt.last, got, tt.want)
		}
	}
}

// TestFormattingLongDefinitionEndings: a definition too long for a line
// is laid out over continuation lines (pcp7) only where its line ends in
// "\n": libpcp joins a line ending in a backslash with the next at "\n"
// alone, and before "\r\n" reads the backslash as an illegal character
// (PCP 7.0.2's pminfo: "Illegal character", then "missing “=”" for the
// next line). On a CRLF line it stays on one line; either way the
// formatted document defines what it did.
func TestFormattingLongDefinitionEndings(t *testing.T) {
	u := uri.File("/tmp/long.conf")
	long := "e = kernel.all.cpu.user+kernel.all.cpu.sys+kernel.all.cpu.nice+kernel.all.cpu.intr+kernel.all.cpu.wait.total-kernel.all.cpu.idle"
	for _, tt := range []struct {
		name, text string
		lines      int // the formatted document's, as the client counts them
	}{
		{"LF", "a = 1\n" + long + "\nb = 2\n", 9},
		{"CRLF", "a = 1\r\n" + long + "\r\nb = 2\r\n", 4},
		{"CRLF line among LF", "a = 1\n" + long + "\r\nb = 2\n", 4},
		{"LF line among CRLF", "a = 1\r\n" + long + "\nb = 2\r\n", 9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			formatted := applyEdits(tt.text, formatting(parsedSnapshot(t, u, 1, tt.text)))
			if n := len(lines16(formatted)); n != tt.lines {
				t.Errorf("formatted over %d lines, want %d:\n%q", n, tt.lines, formatted)
			}
			again := parsedSnapshot(t, u, 2, formatted)
			if again.findings.Len() != 0 {
				t.Errorf("the formatted document has findings:\n%q", formatted)
			}
			var names []string
			for _, def := range again.file.Definitions.All() {
				names = append(names, def.Name)
			}
			if strings.Join(names, " ") != "a e b" {
				t.Errorf("the formatted document defines %q, want a e b:\n%q", names, formatted)
			}
		})
	}
}
