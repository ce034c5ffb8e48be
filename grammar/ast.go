package grammar

import "strings"

// Span is a half-open byte range [Start, End) of an expression's text,
// 32-bit as every position in a file is (Pos; a Token's offsets): a tree
// has one in every node, and a 1 MB expression has 400,000 nodes.
type Span struct{ Start, End int32 }

// Contains reports whether the byte at offset off is in the span.
func (s Span) Contains(off int) bool { return int(s.Start) <= off && off < int(s.End) }

// Node is an expression tree node. Spans are relative to the expression
// text (the part after "="); Definition.ExprPos maps them into the file.
type Node interface{ Span() Span }

// Metric is a metric name, optionally with an [instance] filter.
type Metric struct {
	At   Span
	Name string
	Inst *InstName
}

// InstName is a "[name]" instance filter; Name has escapes removed.
type InstName struct {
	At   Span
	Name string
}

// Number is an integer or double literal, kept as written (libpcp prints
// literals as written in its messages).
type Number struct {
	At   Span
	Text string
}

// Double reports whether the literal is a double: it has a decimal point
// (read from the text rather than kept: a byte more would put a Number in
// the allocator's next size class, and a big tree has one per leaf).
func (n *Number) Double() bool { return strings.Contains(n.Text, ".") }

// Mkconst is mkconst(NUMBER, spec, ...).
type Mkconst struct {
	At    Span
	Value Number
	Specs []Spec
}

// Novalue is novalue(spec, ...), legal only as a ternary branch (pcp7).
type Novalue struct {
	At    Span
	Specs []Spec
}

// Spec is one "key=value" of a mkconst or novalue spec list.
type Spec struct {
	At      Span
	Key     string // type, semantics, units, indom or meta
	Value   string // a string's contents, or the name or number as written
	Quoted  bool   // Value was a "string"
	ValueAt Span
}

// Call is a one-argument function: avg count delta max min sum anon rate
// instant defined scalar. Arg is a *Metric for the name-only functions.
type Call struct {
	At   Span
	Func string
	Arg  Node
}

// Rescale is rescale(expr, "units").
type Rescale struct {
	At      Span
	X       Node
	Units   string
	UnitsAt Span
}

// Matchinst is matchinst([!]/pattern/, expr).
type Matchinst struct {
	At        Span
	Invert    bool
	Pattern   string // escapes removed, as libpcp compiles it
	PatternAt Span
	X         Node
}

// Filter is "(expr)[instance]".
type Filter struct {
	At   Span
	X    Node
	Inst InstName
}

// Paren is a parenthesised expression, kept so spans and formatting are
// exact; it has no meaning of its own.
type Paren struct {
	At Span
	X  Node
}

// Unary is "-x" or "!x".
type Unary struct {
	At Span
	Op string
	X  Node
}

// Binary is one of + - * / < <= == >= > != && ||.
type Binary struct {
	At   Span
	Op   string
	OpAt Span
	L, R Node
}

// Ternary is "cond ? then : else".
type Ternary struct {
	At               Span
	Cond, Then, Else Node
}

func (n *Metric) Span() Span    { return n.At }
func (n *Number) Span() Span    { return n.At }
func (n *Mkconst) Span() Span   { return n.At }
func (n *Novalue) Span() Span   { return n.At }
func (n *Call) Span() Span      { return n.At }
func (n *Rescale) Span() Span   { return n.At }
func (n *Matchinst) Span() Span { return n.At }
func (n *Filter) Span() Span    { return n.At }
func (n *Paren) Span() Span     { return n.At }
func (n *Unary) Span() Span     { return n.At }
func (n *Binary) Span() Span    { return n.At }
func (n *Ternary) Span() Span   { return n.At }

// Unwrap removes parentheses: libpcp keeps no node for them.
func Unwrap(n Node) Node {
	for {
		p, ok := n.(*Paren)
		if !ok {
			return n
		}
		n = p.X
	}
}

// Walk calls f for n and every node below it, parents first; f returning
// false skips a node's children.
func Walk(n Node, f func(Node) bool) {
	// An explicit stack, not recursion: a hostile line of a hundred
	// thousand operators is a tree as deep, and a goroutine stack that
	// deep costs every garbage collection a scan of it.
	stack := make([]Node, 0, 32)
	stack = append(stack, n)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || !f(n) {
			continue
		}
		kids, k := Operands(n)
		for i := k - 1; i >= 0; i-- { // the first operand on top: source order
			stack = append(stack, kids[i])
		}
	}
}

// Operands are a node's operands in source order (a ternary: guard, then,
// else), in an array so that walking a tree allocates nothing; k says how
// many there are. Leaves (metrics, numbers, mkconst, novalue) have none.
func Operands(n Node) (kids [3]Node, k int) {
	switch n := n.(type) {
	case *Call:
		return [3]Node{n.Arg}, 1
	case *Rescale:
		return [3]Node{n.X}, 1
	case *Matchinst:
		return [3]Node{n.X}, 1
	case *Filter:
		return [3]Node{n.X}, 1
	case *Paren:
		return [3]Node{n.X}, 1
	case *Unary:
		return [3]Node{n.X}, 1
	case *Binary:
		return [3]Node{n.L, n.R}, 2
	case *Ternary:
		return [3]Node{n.Cond, n.Then, n.Else}, 3
	}
	return kids, 0
}

// Depth is how many levels of operators a tree has above its deepest
// leaf, not counting parentheses (libpcp keeps no node for them). It walks
// with an explicit stack: a left-associative chain (a + b + c + ...) is as
// deep as it is long, with no parser limit on its length.
func Depth(n Node) int {
	type level struct {
		n     Node
		depth int
	}
	deepest := 0
	stack := []level{{n, 0}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top.n == nil {
			continue
		}
		kids, k := Operands(top.n)
		below := top.depth + 1
		if _, paren := top.n.(*Paren); paren {
			below = top.depth
		}
		if k == 0 {
			deepest = max(deepest, top.depth)
		}
		for i := range k {
			stack = append(stack, level{kids[i], below})
		}
	}
	return deepest
}
