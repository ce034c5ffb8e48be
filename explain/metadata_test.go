package explain

import (
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestInferMetadataEqualsNodes: the metadata explain takes as the check
// infers each node again (no map of every node) is that of the check's
// map of the nodes: every node's descriptor, in build's order, and the
// entries the diagnosis reads more of. Scaled operands, parentheses, a
// guard decided at bind and a check's error included.
func TestInferMetadataEqualsNodes(t *testing.T) {
	a := openArchive(t, "testdata/golden")
	exprs := []string{
		"sample.bin + 2 * ((sample.bin) - 3) / 4",
		"sample.ulong.count.kilo + sample.ulong.count.base * (sample.ulong.count.kilo)",
		"defined(no.such.metric) ? no.such.metric : sample.long.one + 1",
		"rate(sample.seconds) * 100",
		"matchinst(/bin-[12]00/, sample.bin) + sample.long.one",
		"sample.bin + sample.string.hullo",
	}
	special := 0
	for _, expr := range exprs {
		rep := check(t, a, "x.y = "+expr+"\n", pcpver.V7_2_2)
		m, ok := rep.ByName.Lookup("x.y")
		if !ok {
			t.Fatalf("%s: not checked", expr)
		}
		syntax, err := m.Def.Tree()
		if err != nil {
			t.Fatal(err)
		}
		nodes := rep.NodesOf(m)
		for _, md := range []struct {
			name string
			metadata
		}{{"inferred", inferMetadata(syntax, rep, m)}, {"from the map", newMetadata(syntax, nodes)}} {
			i, described := 0, 0
			syntaxPostOrder(syntax, func(syn grammar.Node, _ int) {
				got := md.interned[md.descs[i]]
				i++
				want := nodes[syn]
				if _, kept := md.special[syn]; want != nil && kept != (want.Bind != checker.BindBoth || scaled(want)) {
					t.Errorf("%s: %s: %T at %v special %v", expr, md.name, syn, syn.Span(), kept)
				}
				switch {
				case want == nil && got != nil:
					t.Errorf("%s: %s: node %d: descriptor %v, want none", expr, md.name, i, *got)
				case want != nil && (got == nil || *got != want.Desc):
					t.Errorf("%s: %s: node %d: descriptor %v, want %v", expr, md.name, i, got, want.Desc)
				case want != nil:
					described++
				}
			})
			if described == 0 || i != len(md.descs) {
				t.Errorf("%s: %s: %d of %d nodes described", expr, md.name, described, len(md.descs))
			}
		}
		special += len(newMetadata(syntax, nodes).special)
	}
	if special == 0 {
		t.Error("no scaled operand or guard decided at bind among the expressions")
	}
}
