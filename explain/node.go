package explain

import (
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Kind is what a node of the tree is; String gives it in the words of
// the JSON output. A byte, not a string: a big expression has one per
// node.
type Kind uint8

// The kinds of node. Parentheses are no node of their own (libpcp keeps
// none for them).
const (
	KindMetric   Kind = iota // a metric name, maybe with [instance]
	KindConstant             // a number or mkconst()
	KindNovalue              // novalue()
	KindFunction             // avg count defined delta instant matchinst max min rate rescale scalar sum anon
	KindFilter               // (expr)[instance]
	KindOperator             // unary - ! and the binary operators
	KindTernary              // guard ? then : else
)

var kindNames = [...]string{
	KindMetric:   "metric",
	KindConstant: "constant",
	KindNovalue:  "novalue",
	KindFunction: "function",
	KindFilter:   "filter",
	KindOperator: "operator",
	KindTernary:  "ternary",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Node is one subexpression with what a sample computed for it, read
// through its methods.
//
// A big expression has a Node per subexpression, so the nodes of an
// explanation are flat: one slice of 40-byte records (the tree's
// post-order, the root last) whose children, values and syntax nodes are
// ranges of, or places in, slices the whole tree shares; what only some
// nodes have (an error, the reason values vanish, why it is not
// evaluated) is in a map beside them; what can be derived (its span's
// text, its phrase, a value's text and instance name) is made when asked.
// A *Node stays valid as long as its Explanation.
type Node struct {
	t          *tree
	start, end int32 // its span in the expression
	index      int32 // its place in t.nodes and t.syntax
	kids       int32 // its first child in t.kids
	vals       int32 // its first value in t.values
	nvals      int32
	desc       int32 // its descriptor in t.descs (0: none)
	nkids      uint8
	kind       Kind
	evaluated  bool
}

// tree is what the nodes of one explanation share.
type tree struct {
	// nodes are in post-order, in blocks: they never move, and a block
	// is made as the sample's observations the nodes take go.
	nodes blocks[Node]
	// kids are every node's children, each node's together, in order.
	kids   []*Node
	syntax blocks[grammar.Node] // by node index: the grammar node (parentheses removed)
	// values are every node's values, each node's together, as words;
	// texts are those a word does not give back (strings, aggregates).
	values []value
	texts  map[int32]string
	// descs are the interned descriptors nodes point into; descs[0] is
	// nil (no metadata).
	descs   []*pmapi.Desc
	trouble map[int32]*trouble
	// names are the instance names of the domains of evaluated nodes.
	names map[pmapi.InDom]map[int32]string
	expr  string
	phrasing
}

// value is one of a node's values in the flat form: Value without what
// is derived (its text, when its word gives it back; its instance's
// name; whether it is a number).
type value struct {
	inst int32
	word wordKind
	bits uint64
}

// trouble is what a node has when its values are missing or it is not
// computed: few nodes of a big tree.
type trouble struct {
	err          error
	emptyBecause string
	emptyAt      *Node
	notEvaluated string
}

// Syntax is the grammar node (parentheses removed).
func (n *Node) Syntax() grammar.Node { return *n.t.syntax.at(n.index) }

// Kind is what the node is.
func (n *Node) Kind() Kind { return n.kind }

// Desc is the metadata inferred for it; nil when the check inferred none
// (a definition libpcp refuses).
func (n *Node) Desc() *pmapi.Desc { return n.t.descs[n.desc] }

// Evaluated reports that the sample computed this node; libpcp skips
// some (see NotEvaluated).
func (n *Node) Evaluated() bool { return n.evaluated }

// Children are its operands, in order.
func (n *Node) Children() []*Node {
	end := int(n.kids) + int(n.nkids)
	return n.t.kids[n.kids:end:end]
}

// Values are its values, all instances, made when asked.
func (n *Node) Values() []Value {
	out := make([]Value, n.nvals)
	for i := range out {
		out[i] = n.value(i)
	}
	return out
}

// numValues is len(n.Values()) without making them.
func (n *Node) numValues() int { return int(n.nvals) }

// value is its i-th value.
func (n *Node) value(i int) Value {
	at := n.vals + int32(i)
	v, typ := n.t.values[at], n.valueType()
	text, ok := n.t.texts[at]
	if !ok {
		text = formatValue(typ, v)
	}
	out := v.full(typ, text)
	if d := n.Desc(); d != nil && d.InDom != pmapi.InDomNull && !out.Singular() {
		out.Instance = n.t.names[d.InDom][v.inst]
	}
	return out
}

// hasInstances reports a value of an instance.
func (n *Node) hasInstances() bool {
	for _, v := range n.t.values[n.vals : n.vals+n.nvals] {
		if v.inst != pmclient.InNull {
			return true
		}
	}
	return false
}

// valueType is the type its values have.
func (n *Node) valueType() pmapi.Type {
	if d := n.Desc(); d != nil {
		return d.Type
	}
	return pmapi.TypeDouble
}

// Span is the node's byte range in the expression.
func (n *Node) Span() grammar.Span { return grammar.Span{Start: n.start, End: n.end} }

// Text is the node's source text, parentheses around it excluded.
func (n *Node) Text() string {
	sp, expr := n.Span(), n.t.expr
	if sp.Start >= 0 && sp.Start <= sp.End && int(sp.End) <= len(expr) {
		return expr[sp.Start:sp.End]
	}
	return ""
}

// Explanation is a short phrase in plain words of what the node
// computes, with why it has no values when it has none. It is worded
// when asked (a big tree's phrases are not all kept).
func (n *Node) Explanation() string { return n.t.phrase(n) }

// Err is the node's error.
func (n *Node) Err() error { return n.trouble().err }

// EmptyBecause is set on a node where values vanish: the reason, naming
// what is missing.
func (n *Node) EmptyBecause() string { return n.trouble().emptyBecause }

// EmptyAt is, for a node that has no values (or fails) because a node
// below it has none, the node where they vanished.
func (n *Node) EmptyAt() *Node { return n.trouble().emptyAt }

// NotEvaluated says why libpcp does not compute this node ("" when it
// does).
func (n *Node) NotEvaluated() string { return n.trouble().notEvaluated }

// trouble is the node's trouble (none: the zero one).
func (n *Node) trouble() trouble {
	if tr := n.t.trouble[n.index]; tr != nil {
		return *tr
	}
	return trouble{}
}

// troubled is the node's trouble, made on first use.
func (n *Node) troubled() *trouble {
	tr := n.t.trouble[n.index]
	if tr == nil {
		tr = &trouble{}
		n.t.trouble[n.index] = tr
	}
	return tr
}

// Empty reports a node that was computed and has no values or failed.
func (n *Node) Empty() bool { return n.evaluated && (n.nvals == 0 || n.Err() != nil) }

// setObservation gives the node what the sample computed for it: its
// values join the tree's (a node given a second observation keeps the
// later one).
func (n *Node) setObservation(o observation) {
	n.evaluated = true
	t := n.t
	typ := n.valueType()
	n.vals, n.nvals = int32(len(t.values)), int32(o.len())
	for i := range int(n.nvals) {
		v, text, keep := compactValue(typ, o.value(i))
		if keep {
			if t.texts == nil {
				t.texts = map[int32]string{}
			}
			t.texts[int32(len(t.values))] = text
		}
		t.values = append(t.values, v)
	}
	if err := o.err(); err != nil {
		n.troubled().err = err
	}
}

// build makes the explain tree of a syntax tree, parentheses removed.
// Nodes are made in post-order (operands before their operator, left to
// right, the order the evaluator observes them), each with its metadata,
// and each is given to made (nil: none) once its children are its. The
// nodes come in blocks as they are made, so that the observations they
// take go while they come (made lets go of them), not after all the
// explanation is alive beside them; the children and values slices (8
// and 16 bytes a node) are made at their size, values being how many
// the nodes will be given, since growing them kept old and new alive.
func build(syntax grammar.Node, md metadata, t *tree, values int, made func(*Node)) *Node {
	size := len(md.descs)
	t.nodes = blocks[Node]{make([]Node, 0, min(size, blockSize))} // a small tree's at its size
	t.syntax = blocks[grammar.Node]{make([]grammar.Node, 0, min(size, blockSize))}
	t.kids = make([]*Node, 0, max(size-1, 0))
	t.values = make([]value, 0, values)
	t.descs = md.interned
	t.trouble = map[int32]*trouble{}
	var done []*Node // made nodes whose parent is not made yet
	i := 0
	syntaxPostOrder(syntax, func(syn grammar.Node, kids int) {
		sp := syn.Span()
		n := t.nodes.add(Node{t: t, start: int32(sp.Start), end: int32(sp.End), index: int32(i), desc: md.descs[i], kind: kindOf(syn)})
		t.syntax.add(syn)
		i++
		if kids > 0 {
			n.kids, n.nkids = int32(len(t.kids)), uint8(kids)
			t.kids = append(t.kids, done[len(done)-kids:]...)
			done = done[:len(done)-kids]
		}
		if made != nil {
			made(n)
		}
		done = append(done, n)
	})
	return done[0]
}

// syntaxChildren are the subexpressions of a node that are nodes of the
// tree: a name in defined() or anon() is not an expression.
func syntaxChildren(n grammar.Node) []grammar.Node {
	switch n := n.(type) {
	case *grammar.Call:
		if n.Func == "defined" || n.Func == "anon" {
			return nil
		}
	}
	kids, k := grammar.Operands(n)
	return kids[:k]
}

func kindOf(n grammar.Node) Kind {
	switch n.(type) {
	case *grammar.Metric:
		return KindMetric
	case *grammar.Number, *grammar.Mkconst:
		return KindConstant
	case *grammar.Novalue:
		return KindNovalue
	case *grammar.Filter:
		return KindFilter
	case *grammar.Unary, *grammar.Binary:
		return KindOperator
	case *grammar.Ternary:
		return KindTernary
	}
	return KindFunction
}

// walk visits every node, parents before children, without recursion.
func walk(root *Node, f func(*Node)) {
	stack := []*Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f(n)
		kids := n.Children()
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
}

// postOrder visits every node, children (left to right) before parents:
// the order of the flat slice.
func postOrder(root *Node, f func(*Node)) {
	for _, block := range root.t.nodes {
		for i := range block {
			f(&block[i])
		}
	}
}

// blocks is a slice made in blocks of blockSize: an element never
// moves, and the whole is never copied as it grows.
type blocks[T any] [][]T

// blockSize is the elements of a block: 40 KB of nodes.
const blockSize = 1024

// add appends v and returns where it is. Every block but the last is
// full; the first may be made smaller (for fewer elements in all).
func (b *blocks[T]) add(v T) *T {
	if len(*b) == 0 || len((*b)[len(*b)-1]) == cap((*b)[len(*b)-1]) {
		*b = append(*b, make([]T, 0, blockSize))
	}
	last := &(*b)[len(*b)-1]
	*last = append(*last, v)
	return &(*last)[len(*last)-1]
}

// at is the i-th element.
func (b blocks[T]) at(i int32) *T { return &b[i/blockSize][i%blockSize] }
