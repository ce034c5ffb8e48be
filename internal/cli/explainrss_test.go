package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainPeakRSS runs the built binary's explain on the two big
// expressions of issue #41 against the golden archive and holds its peak
// resident memory to a ceiling. The goal is 20 times the input
// plus 40 MB (42 MB for the chain, 60 MB for the tree); that is not met
// yet, and the ceilings here are what this build reaches with room for a
// loaded machine, below what it cost before (docs/limits.md, "explain of
// a big expression").
//
//   - A chain of 20,000 terms (120 KB, 40,000 nodes): 86 to 107 MB before,
//     as the evaluator, the checker's inference and the plan's compiler
//     recursed a level per term in frames of 1,000, 630 and 420 bytes (a
//     goroutine stack of 32 MB, copied as it doubled); 60 to 67 MB after.
//   - A balanced tree of 262,143 nodes (1 MB) with --format json: 356 to
//     465 MB before, when every node had the evaluator's per-node state,
//     a copy of its descriptor and an entry in a map of nodes, and its
//     parentheses were recorded as nodes of their own; 250 to 320 MB after.
func TestExplainPeakRSS(t *testing.T) {
	bin, dir := peakRSSBinary(t, "explain of a 20,000-term chain and of a 262,143-node tree")
	chain := "x = sample.long.one" + strings.Repeat(" + 1.5", 20000-1) + "\n"
	tree := "x = " + balanced(17, "1.001") + "\n"
	for _, tc := range []struct {
		name, config string
		format       string
		ceiling      int64 // bytes
		nodes        int
	}{
		{"chain", chain, "text", 80 << 20, 2*20000 - 1},
		{"tree", tree, "json", 340 << 20, 1<<18 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := filepath.Join(dir, tc.name+".conf")
			if err := os.WriteFile(config, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			r := peakRSS(t, bin, []string{"explain", "--format", tc.format, "--archive", explainArchive, config, "x"})
			if r.status != ExitOK {
				t.Fatalf("exit %d, want %d\n%s", r.status, ExitOK, r.stderr)
			}
			// The whole tree is explained: a line per node after the two
			// of the header, or a JSON document with every node.
			if got := explainedNodes(t, tc.format, r.stdout); got != tc.nodes {
				t.Errorf("%d nodes explained, want %d", got, tc.nodes)
			}
			goal := int64(20*len(tc.config) + 40<<20)
			t.Logf("%s of %d bytes: peak RSS %d MB (ceiling %d MB; the issue's goal %d MB)", tc.name, len(tc.config), r.peak>>20, tc.ceiling>>20, goal>>20)
			if r.peak > tc.ceiling {
				t.Errorf("explain of the %s (%d bytes) peaked at %d MB RSS, over its ceiling of %d MB", tc.name, len(tc.config), r.peak>>20, tc.ceiling>>20)
			}
		})
	}
}

// explainedNodes counts the nodes of explain's output.
func explainedNodes(t *testing.T, format, out string) int {
	t.Helper()
	if format == "text" {
		return strings.Count(out, "\n") - 2
	}
	type node struct {
		Children []*node `json:"children"`
	}
	var doc struct{ Root *node }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Root == nil {
		t.Fatalf("not an explanation: %v\n%.300s", err, out)
	}
	n, stack := 0, []*node{doc.Root}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], x.Children...)
		n++
	}
	return n
}

// balanced is a fully parenthesised sum of 2^depth leaves.
func balanced(depth int, leaf string) string {
	s := leaf
	for range depth {
		s = "(" + s + "+" + s + ")"
	}
	return s
}
