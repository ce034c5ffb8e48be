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
// It is kept in blocks of observationBlock, so that it never copies itself
// as it grows and a merge that consumes it lets each block go once taken.
type observations [][]observed

// observationBlock is the observations a block holds: a block of a big
// tree's list is 56 KB; a small expression's, growing by append, is its
// size.
const observationBlock = 1024

// add appends an observation.
func (o observations) add(ob observed) observations {
	if len(o) == 0 || len(o[len(o)-1]) == observationBlock {
		o = append(o, nil)
	}
	o[len(o)-1] = append(o[len(o)-1], ob)
	return o
}

// index maps each node to its observation (the last, if one was observed
// twice), for the few lookups the diagnosis makes of the sample before.
func (o observations) index() map[grammar.Node]observation {
	m := map[grammar.Node]observation{}
	for _, block := range o {
		for _, ob := range block {
			m[ob.syn] = ob.observation
		}
	}
	return m
}

// merge gives the nodes of a tree their observations as the tree is
// built, in post-order: set is called with each observed node. With
// consume, an observation is dropped from the list once its node has it
// (Explain's own recorder, used once), so the evaluator's values go as the
// explanation's come, while the nodes are made.
type merge struct {
	o        observations
	blk, obs int // the next observation: o[blk][obs]
	consume  bool
	set      func(*Node, observation)
}

// visit takes the next observation if it is the node's. Nodes come in
// post-order; one libpcp did not evaluate has none and is passed.
func (m *merge) visit(n *Node) {
	if m.blk == len(m.o) || m.o[m.blk][m.obs].syn != n.Syntax {
		return
	}
	block := m.o[m.blk]
	m.set(n, block[m.obs].observation)
	if m.consume {
		block[m.obs] = observed{}
	}
	if m.obs++; m.obs == len(block) {
		if m.consume {
			m.o[m.blk] = nil
		}
		m.blk, m.obs = m.blk+1, 0
	}
}

// finish matches any observations the merge did not take (an evaluator
// that reported in another order, or a node twice) through an index, the
// later observation winning as a map's would. It reports whether the
// merge took them all.
func (m *merge) finish(root *Node) (inOrder bool) {
	if m.blk == len(m.o) {
		return true
	}
	rest := append(observations{m.o[m.blk][m.obs:]}, m.o[m.blk+1:]...).index()
	walk(root, func(n *Node) {
		if ob, ok := rest[n.Syntax]; ok {
			m.set(n, ob)
		}
	})
	return false
}
