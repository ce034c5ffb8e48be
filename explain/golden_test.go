package explain

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestGolden: the text and JSON forms of every definition of
// testdata/golden.conf, explained against the archive committed beside it
// (so values and times never change), equal the files in testdata/golden
// (go test -update rewrites them).
func TestGolden(t *testing.T) {
	config, err := os.ReadFile("testdata/golden.conf")
	if err != nil {
		t.Fatal(err)
	}
	a := openArchive(t, "testdata/golden")
	rep := check(t, a, string(config), pcpver.V7_2_2)
	for m := range rep.Metrics.Values() {
		a.Rewind()
		x := explainName(t, a, rep, m.Def.Name, Options{})
		var text, js bytes.Buffer
		if err := WriteText(&text, x, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, x); err != nil {
			t.Fatal(err)
		}
		var indented bytes.Buffer
		if err := json.Indent(&indented, js.Bytes(), "", "  "); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", m.Def.Name, err, js.String())
		}
		golden.File(t, filepath.Join("testdata", "golden", m.Def.Name+".txt"), text.String())
		golden.File(t, filepath.Join("testdata", "golden", m.Def.Name+".json"), indented.String()+"\n")
		golden.File(t, filepath.Join("testdata", "golden", m.Def.Name+".md"), Markdown(x, TextOptions{}))
	}
}
