package lsp

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"testing"
	"unsafe"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// parsedSnapshot is the snapshot of text's parse (syntax findings only).
func parsedSnapshot(t *testing.T, u uri.URI, version int32, text string) *snapshot {
	t.Helper()
	cfg := &config{pcp: analysis.VersionChoice{Version: pcpver.Latest, Reason: "test"}}
	tx := grammar.NewText([]byte(text))
	res := analysis.Parse([]analysis.Input{analysis.BufferText(u.FsPath(), tx)}, analysis.Config{Version: cfg.pcp}, analysis.Options{})
	return newSnapshot(cfg, u, version, uint64(version), tx, res)
}

// brokenLines is n lines, every third a syntax error; edit changes line
// at (-1 for none) to text.
func brokenLines(n, at int, text string) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i == at:
			b.WriteString(text)
		case i%3 == 0:
			fmt.Fprintf(&b, "m%d = 1 +\n", i)
		default:
			fmt.Fprintf(&b, "m%d = rate(disk.dev.read) + %d\n", i, i)
		}
	}
	return b.String()
}

// TestFindingsJSONFollowsEdits: a pull's findings JSON, made from the
// last version's with the changed findings encoded, is the encoding of
// every finding of the version (as the protocol package encodes them),
// whatever the edit did (a finding added, removed, moved or the same),
// and the JSON kept for an earlier version is never altered by a later
// one.
func TestFindingsJSONFollowsEdits(t *testing.T) {
	u := uri.File("/tmp/pull.conf")
	versions := []string{
		brokenLines(60, -1, ""),
		brokenLines(60, 30, "m30 = 2\n"),           // the middle finding fixed
		brokenLines(60, 31, "m31 = rate(\n"),       // and one added next to it
		brokenLines(60, 0, "m0 = 1\n"),             // the first one fixed
		brokenLines(60, 59, "m59 = )\n"),           // one added at the end
		brokenLines(60, 30, "m30 = 2\n"),           // back to an earlier version
		"",                                         // nothing at all
		brokenLines(60, 30, "m30 = avg(1 +\n"),     // and all again
		brokenLines(60, 30, "m30 = avg(1 + 2 +\n"), // a finding's message the same, its column not
	}
	var c diagnosticJSON
	type kept struct {
		snap *snapshot
		json []byte
	}
	var made []kept
	for i, text := range versions {
		snap := parsedSnapshot(t, u, int32(i+1), text)
		if text != "" && snap.findings.Len() < 15 {
			t.Fatalf("version %d: %d findings, want every third line's", i+1, snap.findings.Len())
		}
		got, err := snap.findingsJSON(&c, "https://docs.example/")
		if err != nil {
			t.Fatal(err)
		}
		want, err := protocol.Marshal(diagnostics(snap, "https://docs.example/"))
		if err != nil {
			t.Fatal(err)
		}
		if list := "[" + string(got) + "]"; list != string(want) && !(len(got) == 0 && string(want) == "[]") {
			t.Errorf("version %d: findings JSON\n%s\nwant\n%s", i+1, list, want)
		}
		again, _ := snap.findingsJSON(&c, "https://docs.example/")
		if len(got) > 0 && unsafe.SliceData(again) != unsafe.SliceData(got) {
			t.Errorf("version %d: its findings JSON was made again", i+1)
		}
		made = append(made, kept{snap, bytes.Clone(got)})
	}
	for i, k := range made {
		if now, _ := k.snap.findingsJSON(&c, "https://docs.example/"); !bytes.Equal(now, k.json) {
			t.Errorf("version %d: its findings JSON changed after later versions were made", i+1)
		}
	}
}

// TestLinksJSONOncePerVersion: a version's links are encoded on the
// first request and copied after, and they are documentLinks' encoding;
// after an edit within a line, the next version's are too, and only the
// edited definition was encoded again: the others' JSON is the kept one.
func TestLinksJSONOncePerVersion(t *testing.T) {
	u := uri.File("/tmp/links.conf")
	text := "# pcp-derive-lsp: ignore[unknown-metric]\n" + brokenLines(30, -1, "")
	snap := parsedSnapshot(t, u, 1, text)
	var defs definitionLinks
	first, err := snap.linksJSON("", &defs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := protocol.Marshal(documentLinks(snap, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, want) || !bytes.Contains(first, []byte("pmregisterderived")) || !bytes.Contains(first, []byte("unknown-metric")) {
		t.Errorf("links JSON\n%s\nwant\n%s", first, want)
	}
	if again, _ := snap.linksJSON("", &defs); unsafe.SliceData(again) != unsafe.SliceData(first) {
		t.Error("the links were encoded again for the same version")
	}
	kept := maps.Clone(defs.json)

	// "m4 = rate(disk.dev.read) + 4" becomes "m4 = rate(disk.dev.read) + 40".
	at := strings.Index(text, "+ 4\n") + len("+ 4")
	edited := text[:at] + "0" + text[at:]
	cfg := snap.res.Config
	res, reparsed := analysis.Reparse(snap.res, u.FsPath(), grammar.NewText([]byte(edited)), cfg,
		analysis.Options{Change: &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}})
	if !reparsed {
		t.Fatal("the edit was not read from its line alone")
	}
	next := newSnapshot(snap.cfg, u, 2, 2, res.Files[0].File.Text, res)
	got, err := next.linksJSON("", &defs)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := protocol.Marshal(documentLinks(next, "")); !bytes.Equal(got, want) {
		t.Errorf("links JSON after the edit\n%s\nwant\n%s", got, want)
	}
	again := 0
	for _, def := range next.file.Definitions.All() {
		if !strings.Contains(def.Expr, "(") {
			continue // never looked up
		}
		js, ok := kept[def]
		if !ok {
			again++
			continue
		}
		if now := defs.json[def]; len(js) > 0 && unsafe.SliceData(now) != unsafe.SliceData(js) {
			t.Errorf("%s: its links were encoded again, not kept", def.Name)
		}
	}
	if again != 1 {
		t.Errorf("%d definitions encoded again after an edit of one", again)
	}
}

// TestDefinitionLinksHeld: however a run of versions was made (each read
// whole, every definition new; or edited within a line, every other
// definition shared), the links' JSON kept for a document holds at most
// half as many definitions again as the latest version looked up (and
// linksSlack): a key keeps its definition alive. Each version's links are
// documentLinks' encoding, and after an edit within a line only the
// edited definition's were encoded again, across a sorting out of the
// earlier versions' too. (Two generations kept five versions' after
// versions read whole.)
func TestDefinitionLinksHeld(t *testing.T) {
	u := uri.File("/tmp/held.conf")
	base := brokenLines(4500, -1, "")
	for _, steps := range []string{"wwwwww", "wwllll", "wlwlwl", "llwwll"} {
		t.Run(steps, func(t *testing.T) {
			var defs definitionLinks
			text := base
			snap := parsedSnapshot(t, u, 1, text)
			for i, step := range steps {
				v := int32(i + 2)
				prev, prevJSON := snap, maps.Clone(defs.json)
				if step == 'w' {
					snap = parsedSnapshot(t, u, v, text)
				} else {
					text, snap = editedInLine(t, snap, text, 3*i+1)
				}
				got, err := snap.linksJSON("", &defs)
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := protocol.Marshal(documentLinks(snap, "")); !bytes.Equal(got, want) {
					t.Fatalf("version %d: links JSON is not documentLinks' encoding", v)
				}
				looked := 0
				for _, def := range snap.file.Definitions.All() {
					if strings.Contains(def.Expr, "(") {
						looked++
					}
				}
				if held, most := len(defs.json), looked+looked/2+linksSlack; held > most {
					t.Errorf("version %d (%c): %d definitions' links held for a version of %d, want at most %d", v, step, held, looked, most)
				}
				if step == 'l' {
					checkKeptLinks(t, v, prev, snap, prevJSON, defs.json)
				}
			}
		})
	}
}

// editedInLine is text with line k's "+ k" made "+ k0", and its
// snapshot, read from snap's by the line alone.
func editedInLine(t *testing.T, snap *snapshot, text string, k int) (string, *snapshot) {
	t.Helper()
	at := strings.Index(text, fmt.Sprintf("m%d = rate(disk.dev.read) + %d", k, k))
	at += strings.IndexByte(text[at:], '\n')
	edited := text[:at] + "0" + text[at:]
	res, reparsed := analysis.Reparse(snap.res, snap.uri.FsPath(), grammar.NewText([]byte(edited)), snap.res.Config,
		analysis.Options{Change: &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}})
	if !reparsed {
		t.Fatalf("the edit of line %d was not read from its line alone", k)
	}
	return edited, newSnapshot(snap.cfg, snap.uri, snap.version+1, uint64(snap.version+1), res.Files[0].File.Text, res)
}

// checkKeptLinks fails t unless the definitions next shares with prev
// kept their links' JSON (before, then now), and one alone is new.
func checkKeptLinks(t *testing.T, v int32, prev, next *snapshot, before, now map[*grammar.Definition][]byte) {
	t.Helper()
	shared := map[*grammar.Definition]bool{}
	for _, def := range prev.file.Definitions.All() {
		shared[def] = true
	}
	anew := 0
	for _, def := range next.file.Definitions.All() {
		switch js := before[def]; {
		case !strings.Contains(def.Expr, "("):
		case !shared[def]:
			anew++
		case len(js) > 0 && unsafe.SliceData(now[def]) != unsafe.SliceData(js):
			t.Errorf("version %d: the links of %s were encoded again, not kept", v, def.Name)
		}
	}
	if anew != 1 {
		t.Errorf("version %d: %d definitions new after an edit of one line", v, anew)
	}
}
