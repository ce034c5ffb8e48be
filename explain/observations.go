package explain

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// observation is what the evaluator reported for one node in one sample.
type observation struct {
	vals []evaluator.Value
	err  error
}

// observed is an observation with its node.
type observed struct {
	syn grammar.Node
	observation
}

// observations are one metric's observations in one sample, in the order
// the evaluator made them: it reports a node after its operands, left to
// right, which is the explanation tree's post-order, so the tree takes them
// in one merge. A list, not a map keyed by node: at 56 bytes an
// observation, where a map's entry cost about 130 (a power-of-two table of
// 56-byte slots), a third of a big tree's live heap while it is explained.
type observations []observed

// index maps each node to its observation (the last, if one was observed
// twice), for the few lookups the diagnosis makes of the sample before.
func (o observations) index() map[grammar.Node]observation {
	m := make(map[grammar.Node]observation, len(o))
	for _, ob := range o {
		m[ob.syn] = ob.observation
	}
	return m
}

// merge gives the nodes of a tree their observations as the tree is
// built, in post-order: set is called with each observed node. With
// consume, an observation is dropped from the list once its node has it
// (Explain's own recorder, used once), so the evaluator's values go as the
// explanation's come, while the nodes are made.
type merge struct {
	o       observations
	next    int
	consume bool
	set     func(*Node, observation)
}

// visit takes the next observation if it is the node's. Nodes come in
// post-order; one libpcp did not evaluate has none and is passed.
func (m *merge) visit(n *Node) {
	if m.next < len(m.o) && m.o[m.next].syn == n.Syntax {
		m.set(n, m.o[m.next].observation)
		if m.consume {
			m.o[m.next] = observed{}
		}
		m.next++
	}
}

// finish matches any observations the merge did not take (an evaluator
// that reported in another order, or a node twice) through an index, the
// later observation winning as a map's would. It reports whether the
// merge took them all.
func (m *merge) finish(root *Node) (inOrder bool) {
	if m.next == len(m.o) {
		return true
	}
	rest := m.o[m.next:].index()
	walk(root, func(n *Node) {
		if ob, ok := rest[n.Syntax]; ok {
			m.set(n, ob)
		}
	})
	return false
}
