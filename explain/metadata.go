package explain

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// metadata is what an explanation keeps of the check's node metadata
// (checker.Nodes, a map entry and a 48-byte record per node, parentheses
// included: 29 MB of a 262,143-node tree, a quarter of its live heap when
// the explanation was complete). It keeps each node's descriptor, interned
// (a big tree has a handful of distinct ones), in the order build makes
// the nodes, and the few entries the diagnosis reads more of: a ternary
// whose guard libpcp decides at bind, an operand libpcp scales. The
// check's map can go before the explanation's nodes are made.
type metadata struct {
	descs    []int32       // each node's place in interned (0: the check inferred none)
	interned []*pmapi.Desc // interned[0] is nil
	special  checker.Nodes
}

// newMetadata takes what the explanation of tree needs of nodes.
func newMetadata(tree grammar.Node, nodes checker.Nodes) metadata {
	md := metadata{special: checker.Nodes{}, interned: []*pmapi.Desc{nil}}
	interned := map[pmapi.Desc]int32{}
	syntaxPostOrder(tree, func(syn grammar.Node, _ int) {
		ni := nodes[syn]
		if ni == nil {
			md.descs = append(md.descs, 0)
			return
		}
		d, ok := interned[ni.Desc]
		if !ok {
			d = int32(len(md.interned))
			desc := ni.Desc
			md.interned = append(md.interned, &desc)
			interned[ni.Desc] = d
		}
		md.descs = append(md.descs, d)
		if ni.Bind != checker.BindBoth || scaled(ni) {
			md.special[syn] = ni
		}
	})
	return md
}

// scaled reports an operand libpcp scales to match its sibling's units.
func scaled(ni *checker.NodeInfo) bool {
	return ni.MulScale != 0 && ni.DivScale != 0 && ni.MulScale != ni.DivScale
}

// syntaxPostOrder visits the nodes of the explanation of a syntax tree
// (parentheses removed, see syntaxChildren), children before parents,
// left to right, each with its number of children, with an explicit
// stack. build and newMetadata both walk it, so the i-th node one makes
// is the i-th the other saw; it is the order the evaluator observes them.
func syntaxPostOrder(tree grammar.Node, visit func(syn grammar.Node, kids int)) {
	type item struct {
		syn  grammar.Node
		kids int // -1 until its children are on the stack
	}
	stack := []item{{grammar.Unwrap(tree), -1}}
	for len(stack) > 0 {
		it := &stack[len(stack)-1]
		if it.kids < 0 {
			kids := syntaxChildren(it.syn)
			it.kids = len(kids)
			for i := len(kids) - 1; i >= 0; i-- {
				stack = append(stack, item{grammar.Unwrap(kids[i]), -1})
			}
			continue
		}
		syn, kids := it.syn, it.kids
		stack = stack[:len(stack)-1]
		visit(syn, kids)
	}
}
