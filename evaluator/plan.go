package evaluator

// A metric's plan: its nodes compiled into slots, once, at its first sample.

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// slot is what evaluating one node of one metric looks up: the check's
// inferred metadata, the node's state, and its children's slots. A
// metric's slots are compiled once, in a slice indexed by the slot numbers
// the evaluation passes down, so that no sample looks a node up in a map.
// A big expression has a slot per node (parentheses have none: a
// parenthesis is its inside), so it is packed in 56 bytes (it was 176, a 262,143-node tree's plan 66 MB): the
// descriptor is interned, scales other than 1 are apart, a constant keeps
// the one word of its value, and the buffers Next reuses are beside the
// plan (Evaluator.outs), made only by Next.
type slot struct {
	desc  *pmapi.Desc // the check's inferred metadata, interned (the zero Desc when it has none)
	scale *scales     // the unit scales the check inferred; nil for 1 and 1
	st    *nodeState  // shared by every metric the node is in; nil for a node that keeps none (keepsState)
	kids  [3]int32    // the children's slots, in the order of children
	// An operand's position in the evaluator's fetch list (leafBound: it
	// has a PMID), looked up at its first sample.
	leafAt    int32
	leafBound bool
	leafSet   bool
	bind      bindByte
	// A constant's value (of type desc.Type: see wordOf), computed at
	// its first sample.
	constSet  bool
	constWord uint64
}

// scales are the factors libpcp applies to an operand's values to
// reconcile unit scales with its sibling (checker.NodeInfo).
type scales struct{ mul, div float64 }

// bindByte is a checker.Bind in a byte, as a slot keeps it.
type bindByte uint8

// compile appends the slots of tree n (n's first, then each child's
// subtree in order; a parenthesis shares its inside's slot) to plan, with the metadata the check inferred for its
// nodes. An explicit stack, not recursion: a frame per level of a
// 20,000-term chain cost 8 MB of stack.
func (e *Evaluator) compile(nodes checker.Nodes, n grammar.Node, plan []slot) []slot {
	type item struct {
		n      grammar.Node
		parent int   // the parent's slot, -1 for the root
		kid    int32 // which child of the parent it is
	}
	stack := []item{{n, -1, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// A parenthesis has no slot: its values, descriptor and bind are
		// its inside's (libpcp keeps no node for it). The unit scales of
		// an operand are the check's for the operand as its operator
		// names it, the outermost parenthesis, so the inside's slot
		// carries those.
		n := grammar.Unwrap(it.n)
		var st *nodeState
		if keepsState(n) {
			if st = e.state[n]; st == nil {
				st = &nodeState{}
				e.state[n] = st
			}
		}
		id := len(plan)
		sl := slot{bind: bindByte(checker.BindBoth), st: st, kids: [3]int32{-1, -1, -1}}
		var d pmapi.Desc
		if ni := nodes[n]; ni != nil {
			d, sl.bind = ni.Desc, bindByte(ni.Bind)
		}
		if ni := nodes[it.n]; ni != nil && (ni.MulScale != 1 || ni.DivScale != 1) {
			sl.scale = &scales{ni.MulScale, ni.DivScale}
		}
		sl.desc = e.intern(d)
		plan = append(plan, sl)
		if it.parent >= 0 {
			plan[it.parent].kids[it.kid] = int32(id)
		}
		kids, k := grammar.Operands(n)
		for i := k - 1; i >= 0; i-- { // the first child on top
			if kids[i] != nil {
				stack = append(stack, item{kids[i], id, int32(i)})
			}
		}
	}
	return plan
}

// slotCount is how many slots compile makes of tree n: a node each,
// parentheses not counted.
func slotCount(n grammar.Node) int {
	count := 0
	grammar.Walk(n, func(n grammar.Node) bool {
		if _, paren := n.(*grammar.Paren); !paren {
			count++
		}
		return true
	})
	return count
}

// intern returns the one copy of d the plans share.
func (e *Evaluator) intern(d pmapi.Desc) *pmapi.Desc {
	if e.interned == nil {
		e.interned = map[pmapi.Desc]*pmapi.Desc{}
	}
	p := e.interned[d]
	if p == nil {
		p = new(pmapi.Desc)
		*p = d
		e.interned[d] = p
	}
	return p
}

// keepsState reports a node that keeps state from sample to sample (see
// nodeState): delta() and rate(), min() and max() of nothing, instance
// filters and matchinst. Only those get one: a state for every node cost
// 200 bytes a node, most of a big expression's plan.
func keepsState(n grammar.Node) bool {
	switch n := n.(type) {
	case *grammar.Call, *grammar.Filter, *grammar.Matchinst:
		return true
	case *grammar.Metric:
		return n.Inst != nil
	}
	return false
}
