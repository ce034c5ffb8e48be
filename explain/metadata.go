package explain

import (
	"cmp"
	"reflect"
	"slices"

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

// newMetadata takes what the explanation of tree needs of a map of its
// nodes (the check's, kept with the report: the editor's).
func newMetadata(tree grammar.Node, nodes checker.Nodes) metadata {
	return takeMetadata(tree, func(f func(grammar.Node, *checker.NodeInfo)) {
		for syn, ni := range nodes {
			f(syn, ni)
		}
	})
}

// inferMetadata takes what the explanation of m's tree needs as the
// check infers each node again (checker.Report.InferEach), without the
// check's map of every node (29 MB of a 262,143-node tree beside its
// syntax tree, the height of explain's heap before it sampled).
func inferMetadata(tree grammar.Node, rep *checker.Report, m *checker.Metric) metadata {
	return takeMetadata(tree, func(f func(grammar.Node, *checker.NodeInfo)) { rep.InferEach(m, f) })
}

// takeMetadata takes what the explanation of tree needs of the nodes
// tell tells, in any order (a node told twice keeps the later): each
// descriptor's place among the interned ones, by the node's identity in
// a slice sorted by it (16 bytes a node while it is taken, where a map
// costs two to four times that), then in the order build makes the nodes.
func takeMetadata(tree grammar.Node, tell func(func(grammar.Node, *checker.NodeInfo))) metadata {
	type told struct {
		syn  uintptr
		desc int32
	}
	size := 0
	syntaxPostOrder(tree, func(grammar.Node, int) { size++ })
	all := make([]told, 0, size)
	md := metadata{special: checker.Nodes{}, interned: []*pmapi.Desc{nil}}
	interned := map[pmapi.Desc]int32{}
	tell(func(syn grammar.Node, ni *checker.NodeInfo) {
		if _, paren := syn.(*grammar.Paren); paren || ni == nil {
			return // no node of the explanation
		}
		d, ok := interned[ni.Desc]
		if !ok {
			d = int32(len(md.interned))
			desc := ni.Desc
			md.interned = append(md.interned, &desc)
			interned[ni.Desc] = d
		}
		all = append(all, told{identity(syn), d})
		if ni.Bind != checker.BindBoth || scaled(ni) {
			md.special[syn] = ni
		}
	})
	slices.SortStableFunc(all, func(a, b told) int { return cmp.Compare(a.syn, b.syn) })
	md.descs = make([]int32, 0, size)
	syntaxPostOrder(tree, func(syn grammar.Node, _ int) {
		id := identity(syn)
		// The last told of syn: the first after it, less one.
		i, _ := slices.BinarySearchFunc(all, id+1, func(t told, id uintptr) int { return cmp.Compare(t.syn, id) })
		d := int32(0)
		if i > 0 && all[i-1].syn == id {
			d = all[i-1].desc
		}
		md.descs = append(md.descs, d)
	})
	return md
}

// identity is a syntax node's address: every grammar node is a pointer
// (the collector does not move what it points at).
func identity(n grammar.Node) uintptr {
	if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer {
		return v.Pointer()
	}
	return 0
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
