package explain

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestDeepJSONDecodes: the JSON of a tree 2,000 deep decodes with
// encoding/json (deeper trees nest past its limit of 10,000 levels, each
// node being an object in an array).
func TestDeepJSONDecodes(t *testing.T) {
	a := openArchive(t, "testdata/golden")
	rep := check(t, a, "deep.m = "+strings.Repeat("sample.long.one + ", 2000)+"1\n", pcpver.V7_2_2)
	x := explainName(t, a, rep, "deep.m", Options{})
	var js bytes.Buffer
	if err := WriteJSON(&js, x); err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Root struct {
			Values []struct {
				Value float64 `json:"value"`
			} `json:"values"`
		} `json:"root"`
	}
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded.Root.Values) != 1 || decoded.Root.Values[0].Value != 2001 {
		t.Errorf("root values %+v, want 2001", decoded.Root.Values)
	}
}

// TestDeepExpressions: a 10,000-node expression (a chain of 5,000
// additions, and 9,000 nested negations) explains without recursion in
// our code, in memory proportional to it, and prints in text and JSON of
// bounded line length (node text shortened, indentation capped).
func TestDeepExpressions(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		nodes      int
	}{
		{"chain", strings.Repeat("sample.long.one + ", 5000) + "1", 10001},
		{"nested", strings.Repeat("-", 9000) + "sample.long.one", 9001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := openArchive(t, "testdata/golden")
			rep := check(t, a, "deep.m = "+tc.expr+"\n", pcpver.V7_2_2)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			x := explainName(t, a, rep, "deep.m", Options{})
			var text, js bytes.Buffer
			if err := WriteText(&text, x, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, x); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			count := 0
			walk(x.Root, func(*Node) { count++ })
			if count != tc.nodes {
				t.Errorf("%d nodes, want %d", count, tc.nodes)
			}
			if x.Root.Empty() || len(x.Origins) != 0 {
				t.Errorf("no values at the root: %s", x.Root.Explanation())
			}
			lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
			if len(lines) != count+2 {
				t.Errorf("%d text lines for %d nodes and 2 header lines", len(lines), count)
			}
			for _, l := range lines {
				if len(l) > 600 {
					t.Fatalf("a text line of %d bytes: %.200s…", len(l), l)
				}
			}
			if perNode := js.Len() / count; perNode > 1000 {
				t.Errorf("JSON of %d bytes: %d per node", js.Len(), perNode)
			}
			if open, closed := bytes.Count(js.Bytes(), []byte("{")), bytes.Count(js.Bytes(), []byte("}")); open != closed || open < 2*count {
				t.Errorf("JSON has %d { and %d }", open, closed)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d nodes: %d bytes of text, %d of JSON, %d allocated (%d per node)", count, text.Len(), js.Len(), alloc, alloc/uint64(count))
			if alloc/uint64(count) > 10000 {
				t.Errorf("%d bytes allocated per node", alloc/uint64(count))
			}
		})
	}
}

// TestExplanationHeldPerNode: a finished explanation holds its nodes
// flat, about 80 bytes a node with its value (a 40-byte node, its
// syntax node's place, its place among its parent's children, a 16-byte
// value), beside the syntax tree the check already holds. It was about
// 160 when a node was 96 bytes with a slice of children and of 48-byte
// values of its own (63.5 MB live for a 262,143-node tree, 42 MB now with
// the syntax tree's 21). The tree here has 16,383 nodes. Not under -race,
// whose detector allocates beside the heap it measures.
func TestExplanationHeldPerNode(t *testing.T) {
	if testsize.Race {
		t.Skip("the detector allocates beside what is measured")
	}
	expr := "1.001"
	for range 13 {
		expr = "(" + expr + "+" + expr + ")"
	}
	a := openArchive(t, "testdata/golden")
	rep := check(t, a, "tree.m = "+expr+"\n", pcpver.V7_2_2)
	if m, ok := rep.ByName.Lookup("tree.m"); !ok || m.Status != checker.Valid {
		t.Fatal("tree.m: not valid")
	}
	// Explained once first, so what that lets go of or caches for good
	// (the check's nodes, the archive's reads) is not counted.
	_ = explainName(t, a, rep, "tree.m", Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := explainName(t, a, rep, "tree.m", Options{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	count := 0
	walk(x.Root, func(*Node) { count++ })
	if count != 1<<14-1 || x.Root.Empty() {
		t.Fatalf("%d nodes, root empty %v", count, x.Root.Empty())
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d nodes: %d bytes held (%d per node)", count, held, held/int64(count))
	if perNode := held / int64(count); perNode > 100 {
		t.Errorf("the explanation holds %d bytes per node, want at most 100", perNode)
	}
	runtime.KeepAlive(x)
}
