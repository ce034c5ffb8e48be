package checker

import (
	"maps"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// NodeInfo is what the checker knows about one node of a definition.
type NodeInfo struct {
	Desc pmapi.Desc
	// MulScale and DivScale are the factors libpcp applies to this
	// operand's values to reconcile unit scales with its sibling (§6.4).
	MulScale, DivScale float64
	// Bind says which branches of a ternary libpcp binds and evaluates:
	// a static guard (PCP 6.2.2+) selects one, and the other is never
	// fetched.
	Bind Bind
}

// Bind is the branches of a ternary that libpcp binds.
type Bind int

const (
	BindBoth Bind = iota // the guard is decided per instance at fetch
	BindThen             // the guard is statically true
	BindElse             // the guard is statically false
)

// Nodes is the inferred metadata of the checked nodes of one metric's
// syntax tree. Read-only.
type Nodes map[grammar.Node]*NodeInfo

// internFrom is the size of a tree's map of nodes from which its records
// are interned: a small tree's are not worth a table.
const internFrom = 64

// info is n's metadata inferred so far (the defaults when none). A copy:
// a record in nodes is never changed, as interned ones are shared.
func (in *inferrer) info(n grammar.Node) (ni NodeInfo, ok bool) {
	if p := in.nodes[n]; p != nil {
		return *p, true
	}
	return NodeInfo{MulScale: 1, DivScale: 1}, false
}

// put records n's metadata. A big tree's records are interned (a handful
// of distinct ones), shared by its nodes: the check's map of a
// 262,143-node tree was 29 MB, 19 of them a 48-byte record per node
// (parentheses included), the height of explain's heap.
func (in *inferrer) put(n grammar.Node, ni NodeInfo) {
	if len(in.nodes) < internFrom {
		in.nodes[n] = &ni
		return
	}
	if in.interned == nil {
		in.interned = map[NodeInfo]*NodeInfo{}
	}
	p := in.interned[ni]
	if p == nil {
		p = &ni
		in.interned[ni] = p
	}
	in.nodes[n] = p
}

// set records a node's descriptor. Not inlined: desc, which calls it,
// recurses, and the map access inlined into every frame of a deep tree
// made each a third larger.
//
//go:noinline
func (in *inferrer) set(n grammar.Node, d pmapi.Desc) pmapi.Desc {
	ni, _ := in.info(n)
	ni.Desc = d
	in.put(n, ni)
	if in.final != nil {
		in.finish(n)
	}
	return d
}

// finish passes n's operands on to final, now that n is set: their
// metadata is final (an operator scales its operands before it is set).
func (in *inferrer) finish(n grammar.Node) {
	kids, k := grammar.Operands(n)
	for _, kid := range kids[:k] {
		if ni := in.nodes[kid]; ni != nil {
			delete(in.nodes, kid)
			in.final(kid, ni)
		}
	}
}

// inference is what inferring a metric's nodes again needs besides its
// report's descriptors (Report.Operands, ByName): the release rules and
// settings of the check that checked it. One is shared by every metric
// a check checked; it holds no report, so a metric carried into a later
// report (Recheck) keeps no earlier one alive.
type inference struct {
	version pcpver.Version
	inDoms  *pmapi.InDomEquivalence
	// mapToNovalue and noDesc are the check's: "#control
	// option_novalue=1" and the names in the namespace without a
	// descriptor (read-only once the check looked them up).
	mapToNovalue bool
	noDesc       map[string]bool
}

// NodesOf is the inferred metadata of every node of m's syntax tree
// that libpcp's check reached (what hover, inlay hints, explain and
// the evaluator show), exactly as Check computed it. A check keeps a
// metric's nodes only while it checks and advises it (they cost more
// than the config's text); they are inferred again here, from the
// descriptors the check bound, on the first call for m and kept with the
// report. Safe for concurrent use; the result is read-only.
func (r *Report) NodesOf(m *Metric) Nodes {
	if r == nil || m == nil || !m.inferred {
		return nil
	}
	if m.nodes != nil {
		return m.nodes // kept by the check (see release)
	}
	if n, ok := r.nodes.Load(m); ok {
		return n.(Nodes)
	}
	// Two callers may infer at once; both get the first one stored.
	n, _ := r.nodes.LoadOrStore(m, r.InferNodes(m))
	return n.(Nodes)
}

// InferNodes is NodesOf without keeping the result: for a caller that
// reads a metric's nodes once (explain, before it samples) and would
// otherwise keep them with the report. A caller that needs each node's
// metadata once, in no order of its own, uses InferEach, with no map of
// every node (the evaluator's compile).
func (r *Report) InferNodes(m *Metric) Nodes {
	if r == nil || m == nil || !m.inferred || m.inference == nil {
		return nil
	}
	if m.nodes != nil {
		return m.nodes
	}
	tree, err := m.Def.Tree()
	if err != nil {
		return nil
	}
	nodes := Nodes{}
	// The error, if any, is the one the check reported; the nodes are
	// those inferred before it, as the check left them.
	_, _ = r.inferRun(m).newInferrer(nil, nodes).desc(tree)
	return nodes
}

// inferRun is a run that infers m's nodes again with its check's rules.
func (r *Report) inferRun(m *Metric) *checkRun {
	env := m.inference
	return &checkRun{
		opts:         Options{Version: env.version, InDoms: env.inDoms},
		report:       r,
		descs:        r.Operands,
		noDesc:       env.noDesc,
		mapToNovalue: env.mapToNovalue,
		// checking stays false: every metric has its verdict, so binding
		// a derived operand reads it rather than checking it.
	}
}

// InferEach is InferNodes without a map of every node: it tells f each
// node's metadata once it is final, holding meanwhile only the nodes
// whose operator is not yet inferred. A node is final when its operator
// is set (an operator scales its operands first), so f is told an
// operator's operands, in order, as the operator is set, and the root
// last: every node after all of its subtree. A 262,143-node tree's map
// was 34 MB beside the evaluator's plan compiled from it. Nodes the
// inference did not reach are not told; after a check's error, those it
// reached whose operator it did not are told last, in tree order. The
// NodeInfo is read-only (nodes may share one record): a caller that keeps
// none holds no map of every node.
func (r *Report) InferEach(m *Metric, f func(grammar.Node, *NodeInfo)) {
	if r == nil || m == nil || !m.inferred || m.inference == nil {
		return
	}
	tree, err := m.Def.Tree()
	if err != nil {
		return
	}
	if m.nodes != nil {
		// Kept by the check: told in the order the inference would.
		finalInOrder(tree, m.nodes, f)
		return
	}
	c := r.inferRun(m)
	nodes := Nodes{}
	in := c.newInferrer(nil, nodes)
	in.final = f
	_, _ = in.desc(tree)
	tellRest(tree, nodes, f)
}

// finalInOrder tells f the nodes of a map the check kept in the order
// InferEach tells them: walking the tree in post-order, a node's operands
// as the node is passed, then the rest as tellRest does.
func finalInOrder(tree grammar.Node, nodes Nodes, f func(grammar.Node, *NodeInfo)) {
	rest := maps.Clone(nodes)
	type item struct {
		n    grammar.Node
		down bool // its operands are on the stack
	}
	stack := []item{{tree, false}}
	for len(stack) > 0 {
		it := &stack[len(stack)-1]
		kids, k := grammar.Operands(it.n)
		if !it.down {
			it.down = true
			for i := k - 1; i >= 0; i-- {
				if kids[i] != nil {
					stack = append(stack, item{kids[i], false})
				}
			}
			continue
		}
		n := it.n
		stack = stack[:len(stack)-1]
		if nodes[n] == nil {
			continue
		}
		for _, kid := range kids[:k] {
			if ni := rest[kid]; ni != nil {
				delete(rest, kid)
				f(kid, ni)
			}
		}
	}
	tellRest(tree, rest, f)
}

// tellRest tells f the nodes left in nodes, in tree order: the root, and
// after an error the nodes whose operator was not set.
func tellRest(tree grammar.Node, nodes Nodes, f func(grammar.Node, *NodeInfo)) {
	if len(nodes) == 0 {
		return
	}
	grammar.Walk(tree, func(n grammar.Node) bool {
		if ni := nodes[n]; ni != nil {
			f(n, ni)
		}
		return true
	})
}

// release lets go what only a metric's check and advice needed, once
// they are done: its file (a metric Recheck carries into the reports of
// later versions would keep the whole text and every definition of the
// version it was checked in alive), and its nodes, unless its inference
// bound a derived metric whose own check was still under way (itself,
// or another in a cycle): that one bound as not (yet) valid, which
// inferring again, with every verdict known, would not repeat; the few
// such metrics keep their nodes.
func (m *Metric) release() {
	m.file = nil
	if !m.boundUnfinished {
		m.nodes = nil
	}
}

// newInferrer infers into nodes with the check's binding rules, for m
// while the check checks it (nil when inferring again, afterwards).
func (c *checkRun) newInferrer(m *Metric, nodes Nodes) *inferrer {
	// noteUnfinished marks m when it binds a derived metric whose own
	// check is under way (release keeps its nodes then).
	noteUnfinished := func(name string) {
		if m == nil {
			return
		}
		if _, real := c.descs[name]; !real {
			if other := c.report.ByName.Metric(name); other != nil && other.state == checking {
				m.boundUnfinished = true
			}
		}
	}
	bindable := func(name string) (pmapi.Desc, bool) {
		noteUnfinished(name)
		return c.bindable(name)
	}
	leaf := func(n *grammar.Metric) (pmapi.Desc, bool) { return bindable(n.Name) }
	in := c.inferrerBase()
	in.nodes, in.leaf, in.bound = nodes, leaf, leaf
	if c.mapToNovalue {
		in.mappedToNovalue = func(n *grammar.Metric) bool {
			noteUnfinished(n.Name)
			return c.mapsToNovalue(n.Name)
		}
	}
	in.constDesc = func(n grammar.Node) (pmapi.Desc, error) { return constDesc(n, c.opts.Version, bindable) }
	if m != nil && m.file != nil && m.file.SpecZero(m.Def) {
		expr := m.Def.Expr
		in.specZero = true
		in.mkconstBefore = func(off int) bool { return grammar.MkconstSpecsIn(expr[:min(off, len(expr))]) }
	}
	return &in
}

// inferrerBase is the part of every inferrer of the check that binds no
// name: made once, its functions shared (a check of a million metrics
// made four million of them).
func (c *checkRun) inferrerBase() inferrer {
	if c.baseInferrer == nil {
		c.baseInferrer = &inferrer{
			version: c.opts.Version,
			equivalent: func(a, b pmapi.InDom) bool {
				return c.opts.Version.Has(pcpver.EquivInDoms) && c.opts.InDoms.Equivalent(a, b)
			},
			unitsOf:     func(s string) (pmapi.Units, error) { u, _, err := grammar.ParseUnits(s, c.opts.Version); return u, err },
			convertible: func(a, b pmapi.Units) bool { _, _, err := ConvFactors(c.opts.Version)(a, b); return err == nil },
			unitsText:   func(u pmapi.Units) string { return u.Format(c.opts.Version.Has(pcpver.ExtraUnits)) },
		}
	}
	return *c.baseInferrer
}

// inferenceOf is the check's inference settings, made once.
func (c *checkRun) inferenceOf() *inference {
	if c.inference == nil {
		c.inference = &inference{version: c.opts.Version, inDoms: c.opts.InDoms, mapToNovalue: c.mapToNovalue, noDesc: c.noDesc}
	}
	return c.inference
}
