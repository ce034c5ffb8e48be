package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestDefinitionInDerivedOptionFile: go-to-definition on a metric of a
// pmrep formula that a file named by the derived option defines, outside
// the workspace, lands on the definition in that file; a relative path
// (pmrep's working directory's) is not read.
func TestDefinitionInDerivedOptionFile(t *testing.T) {
	outside := t.TempDir()
	derived := filepath.Join(outside, "extra.conf")
	if err := os.WriteFile(derived, []byte("# extra\nmy.extra = hinv.ncpu * 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	text := "[options]\nderived = " + derived + ";./missing.conf\n[s]\nx = my.x\nx.formula = my.extra + 1\ny = my.y\ny.formula = my.other + 1\n"
	srv, rec, ctx := sessionIn(t, `{"source": {"metadata": "embedded"}, "dialect": "pcp6"}`, root)
	u := uri.File(filepath.Join(root, "pmrep", "x.conf"))
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "pcp-derived", Version: 1, Text: text}})
	rec.wait(t, u)
	at := func(line, char uint32) protocol.DefinitionResult {
		res, err := srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: line, Character: char}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	loc, ok := at(4, uint32(strings.Index("x.formula = my.extra + 1", "extra"))).(*protocol.Location)
	if !ok {
		t.Fatalf("definition of my.extra: got %#v, want the location in %s", at(4, 14), derived)
	}
	if loc.URI != uri.File(derived) || loc.Range.Start != (protocol.Position{Line: 1, Character: 0}) || loc.Range.End.Character != uint32(len("my.extra")) {
		t.Errorf("definition of my.extra at %s %+v, want %s line 2, columns 0-8", loc.URI, loc.Range, derived)
	}
	if res := at(6, 14); res != nil {
		t.Errorf("definition of my.other, defined nowhere: %#v, want none", res)
	}
}
