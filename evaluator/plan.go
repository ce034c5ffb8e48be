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
// parenthesis is its inside), so it is packed in 40 bytes (it was 176, a
// 262,143-node tree's plan 66 MB; 56 until its descriptor was a number
// and its scales and state one pointer, 14 MB of that tree's live heap
// as it was sampled): the descriptor is interned, the scales other than
// 1 and the state, which few nodes have, are apart, a constant keeps the
// one word of its value, and the buffers Next reuses are beside the plan
// (Evaluator.outs), made only by Next.
type slot struct {
	more *slotMore // the scales and the state; nil for scales of 1 and no state
	// A constant's value (of type desc.Type: see wordOf), computed at
	// its first sample.
	constWord uint64
	kids      [3]int32 // the children's slots, in the order of children
	desc      int32    // the check's inferred metadata: its place in Evaluator.descList (the zero Desc when it has none)
	// An operand's position in the evaluator's fetch list (leafBound: it
	// has a PMID), looked up at its first sample.
	leafAt    int32
	leafBound bool
	leafSet   bool
	bind      bindByte
	constSet  bool
}

// slotMore is what few of a plan's slots have: the unit scales the check
// inferred other than 1 and 1, and the node's state (keepsState), shared
// by every metric the node is in.
type slotMore struct {
	scale scales
	st    *nodeState
}

// scales are the factors libpcp applies to an operand's values to
// reconcile unit scales with its sibling (checker.NodeInfo).
type scales struct{ mul, div float64 }

// bindByte is a checker.Bind in a byte, as a slot keeps it.
type bindByte uint8

// compile makes the plan of metric m's tree from the metadata the check
// infers for its nodes, as it tells each once final (Report.InferEach),
// so that no map of every node is alive beside the plan (it was 34 MB of
// a 262,143-node tree's, the plan 21 MB). A node is told after its
// operands, so its slot is made after theirs and points at them; the
// root's is last, and compile returns its number too. A parenthesis has no
// slot: its values, descriptor and bind are its inside's (libpcp keeps no
// node for it), and the inside's slot carries the unit scales the check
// gave the operand its operator names, the outermost parenthesis. A node
// the inference did not reach (defined()'s and anon()'s operand, the
// branch a static guard leaves out) gets a slot without metadata.
func (e *Evaluator) compile(m *checker.Metric, tree grammar.Node) (plan []slot, root int32) {
	plan = make([]slot, 0, slotCount(tree)) // no copies as it grows
	// pending are the slots of the nodes told whose operator is not yet:
	// a handful at a time, not one per node.
	pending := map[grammar.Node]int32{}
	take := func(n grammar.Node) int32 {
		if id, ok := pending[n]; ok {
			delete(pending, n)
			return id
		}
		id := int32(len(plan))
		plan = e.bare(n, plan)
		return id
	}
	e.rep.InferEach(m, func(n grammar.Node, ni *checker.NodeInfo) {
		var id int32
		if p, paren := n.(*grammar.Paren); paren {
			id = take(p.X)
		} else {
			sl := slot{desc: e.intern(ni.Desc), bind: bindByte(ni.Bind), more: moreOf(e.stateOf(n)), kids: [3]int32{-1, -1, -1}}
			kids, k := grammar.Operands(n)
			for i, kid := range kids[:k] {
				if kid != nil {
					sl.kids[i] = take(kid)
				}
			}
			id = int32(len(plan))
			plan = append(plan, sl)
		}
		if ni.MulScale != 1 || ni.DivScale != 1 {
			more := slotMore{scale: scales{ni.MulScale, ni.DivScale}}
			if plan[id].more != nil {
				more.st = plan[id].more.st
			}
			plan[id].more = &more
		}
		pending[n] = id
	})
	return plan, take(tree)
}

// bare appends the slots of tree n, a subtree the check's inference did
// not reach, without metadata (n's first, then each operand's subtree in
// order; a parenthesis shares its inside's slot) to plan. An explicit
// stack, not recursion: a frame per level of a 20,000-term chain cost
// 8 MB of stack.
func (e *Evaluator) bare(n grammar.Node, plan []slot) []slot {
	type item struct {
		n      grammar.Node
		parent int   // the parent's slot, -1 for the root
		kid    int32 // which child of the parent it is
	}
	none := e.intern(pmapi.Desc{})
	stack := []item{{n, -1, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := grammar.Unwrap(it.n)
		id := len(plan)
		plan = append(plan, slot{desc: none, bind: bindByte(checker.BindBoth), more: moreOf(e.stateOf(n)), kids: [3]int32{-1, -1, -1}})
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

// stateOf is the state node n keeps from sample to sample, shared by
// every metric n is in; nil for a node that keeps none (keepsState).
func (e *Evaluator) stateOf(n grammar.Node) *nodeState {
	if !keepsState(n) {
		return nil
	}
	st := e.state[n]
	if st == nil {
		st = &nodeState{}
		e.state[n] = st
	}
	return st
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

// moreOf is the slotMore of a node with state st and scales of 1 (nil
// for no state).
func moreOf(st *nodeState) *slotMore {
	if st == nil {
		return nil
	}
	return &slotMore{scale: scales{1, 1}, st: st}
}

// intern returns d's place in the descriptors the plans share
// (Evaluator.descList).
func (e *Evaluator) intern(d pmapi.Desc) int32 {
	if e.interned == nil {
		e.interned = map[pmapi.Desc]int32{}
	}
	id, ok := e.interned[d]
	if !ok {
		id = int32(len(e.descList))
		e.descList = append(e.descList, d)
		e.interned[d] = id
	}
	return id
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
