package checker

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Nodes is the inferred metadata of the checked nodes of one metric's
// syntax tree. Read-only.
type Nodes map[grammar.Node]*NodeInfo

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
// walks every metric once (the evaluator compiles them all) and would
// otherwise keep all their nodes with the report.
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
	env := m.inference
	c := &checkRun{
		opts:         Options{Version: env.version, InDoms: env.inDoms},
		report:       r,
		descs:        r.Operands,
		noDesc:       env.noDesc,
		mapToNovalue: env.mapToNovalue,
		// checking stays false: every metric has its verdict, so binding
		// a derived operand reads it rather than checking it.
	}
	nodes := Nodes{}
	// The error, if any, is the one the check reported; the nodes are
	// those inferred before it, as the check left them.
	_, _ = c.newInferrer(nil, nodes).desc(tree)
	return nodes
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
