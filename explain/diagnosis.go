package explain

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// diagnosis finds where values vanish and words every node: one
// explanation's reading of its values (not package analysis, which checks
// configs).
type diagnosis struct {
	ctx context.Context
	x   *Explanation
	m   *checker.Metric
	// phrasing has the report and m's nodes as the check inferred them
	// (only those metadata.special keeps).
	phrasing
	src   pmclient.Source
	prev  observations // the sample before, for delta() and rate()
	names *instanceNames
	// prevIndex is prev by node, made at the first lookup.
	prevIndex map[grammar.Node]observation
	samples   int
	// replayed: the record explained was picked from a window
	// (Target.Replayed).
	replayed bool
}

func (a *diagnosis) run() {
	a.staticBranches()
	postOrder(a.x.Root, a.vanish)
	a.notEvaluated(a.x.Root, nil)
	walk(a.x.Root, func(p *Node) {
		for _, n := range p.Children() {
			a.notEvaluated(n, p)
		}
	})
	a.collectOrigins()
}

// staticBranches marks a novalue() that a static guard (PCP 6.2.2+)
// selects: libpcp never evaluates it, the ternary simply has no values,
// and that is where they vanish.
func (a *diagnosis) staticBranches() {
	walk(a.x.Root, func(n *Node) {
		t, ok := n.Syntax().(*grammar.Ternary)
		if !ok || !n.Evaluated() {
			return
		}
		ni := a.nodes[t]
		if ni == nil || ni.Bind == checker.BindBoth {
			return
		}
		chosen := n.Children()[1]
		if ni.Bind == checker.BindElse {
			chosen = n.Children()[2]
		}
		if chosen.Kind() == KindNovalue {
			chosen.evaluated = true
			chosen.troubled().emptyBecause = fmt.Sprintf("`novalue()`: the guard %s is decided when libpcp binds the metric and always chooses this branch, which has no value by design", quote(n.Children()[0]))
		}
	})
}

// vanish decides, children first, whether a node that has no values (or
// fails) is where they vanish (EmptyBecause) or has none because a child
// has none (EmptyAt).
func (a *diagnosis) vanish(n *Node) {
	if !n.Empty() || n.EmptyBecause() != "" {
		return
	}
	if n.Err() != nil {
		for _, c := range n.Children() {
			if c.Evaluated() && c.Err() != nil {
				n.troubled().emptyAt = originOf(c)
				return
			}
		}
		n.troubled().emptyBecause = a.errorReason(n)
		return
	}
	switch syn := n.Syntax().(type) {
	case *grammar.Metric:
		n.troubled().emptyBecause = a.metricReason(n, syn)
		return
	case *grammar.Novalue:
		return // by design; a ternary says when it matters
	case *grammar.Call:
		switch syn.Func {
		case "anon":
			n.troubled().emptyBecause = "`anon()` has no values by design"
			return
		case "delta", "rate":
			if c := n.Children()[0]; !c.Empty() {
				n.troubled().emptyBecause = a.historyReason(n, syn.Func, c)
				return
			}
		}
	case *grammar.Ternary:
		a.ternaryVanish(n)
		return
	case *grammar.Binary:
		if !n.Children()[0].Empty() && !n.Children()[1].Empty() && n.Children()[0].Evaluated() && n.Children()[1].Evaluated() {
			n.troubled().emptyBecause = a.disjoint(n.Children()[0], n.Children()[1])
			return
		}
	case *grammar.Matchinst:
		if c := n.Children()[0]; !c.Empty() {
			if syn.Invert {
				n.troubled().emptyBecause = fmt.Sprintf("every instance of %s matches `/%s/`, and `matchinst(!…)` keeps those that do not", quote(c), syn.Pattern)
			} else {
				n.troubled().emptyBecause = fmt.Sprintf("no instance of %s matches `/%s/`", quote(c), syn.Pattern)
			}
			return
		}
	case *grammar.Filter:
		if c := n.Children()[0]; !c.Empty() {
			n.troubled().emptyBecause = a.instanceReason(n, quote(c), syn.Inst.Name)
			return
		}
	}
	if c := firstEmpty(n); c != nil {
		n.troubled().emptyAt = originOf(c)
		return
	}
	switch syn := n.Syntax().(type) {
	case *grammar.Rescale:
		n.troubled().emptyBecause = fmt.Sprintf("%s cannot be converted to %q", quote(n.Children()[0]), syn.Units)
	default:
		n.troubled().emptyBecause = "libpcp computes no value here"
	}
}

// firstEmpty is the first child, in evaluation order, that has no values
// (novalue() aside: only a ternary decides what it means).
func firstEmpty(n *Node) *Node {
	for _, c := range n.Children() {
		if c.Empty() && c.Kind() != KindNovalue {
			return c
		}
	}
	return nil
}

// originOf is where a node's emptiness comes from: itself, or the node it
// points at.
func originOf(n *Node) *Node {
	if n.EmptyAt() != nil {
		return n.EmptyAt()
	}
	return n
}

func (a *diagnosis) ternaryVanish(n *Node) {
	guard, then, els := n.Children()[0], n.Children()[1], n.Children()[2]
	if ni := a.nodes[n.Syntax()]; ni != nil && ni.Bind != checker.BindBoth {
		chosen := then
		if ni.Bind == checker.BindElse {
			chosen = els
		}
		if chosen.Empty() {
			n.troubled().emptyAt = originOf(chosen)
		}
		return
	}
	if guard.Empty() {
		n.troubled().emptyAt = originOf(guard)
		return
	}
	for _, b := range []*Node{then, els} {
		if b.Kind() != KindNovalue && b.Empty() {
			n.troubled().emptyAt = originOf(b)
			return
		}
	}
	novalue := then
	if then.Kind() != KindNovalue {
		novalue = els
	}
	every := "for every instance"
	if guard.numValues() == 1 {
		every = "for its only value"
	}
	n.troubled().emptyBecause = fmt.Sprintf("the guard %s chose the branch that has no value (%s) %s", quote(guard), quote(novalue), every)
}

// metricReason says why a metric operand has no values.
func (a *diagnosis) metricReason(n *Node, mt *grammar.Metric) string {
	name := "`" + mt.Name + "`"
	if _, bound := a.rep.Operands[mt.Name]; !bound {
		if _, derived := a.rep.ByName.Lookup(mt.Name); !derived {
			return fmt.Sprintf("%s is not in the namespace of %s", name, a.src.Describe())
		}
	}
	if mt.Inst != nil {
		return a.instanceReason(n, name, mt.Inst.Name)
	}
	if recording(a.src) {
		return fmt.Sprintf("%s has no values in this record of the archive", name)
	}
	return fmt.Sprintf("%s returned no values (its PMDA has none to report now)", name)
}

// instanceReason says why selecting instance inst of what left nothing.
func (a *diagnosis) instanceReason(n *Node, what, inst string) string {
	if n.Desc() == nil || n.Desc().InDom == pmapi.InDomNull {
		return fmt.Sprintf("%s is singular: it has no instance %q", what, inst)
	}
	if a.instanceExists(n.Desc().InDom, inst) {
		return fmt.Sprintf("%s returned no value for instance `%s`", what, inst)
	}
	var some []string
	for _, in := range a.sortedInstances(n.Desc().InDom) {
		if len(some) == 3 {
			some = append(some, "…")
			break
		}
		some = append(some, in)
	}
	have := ""
	if len(some) > 0 {
		have = " (it has " + strings.Join(some, ", ") + ")"
	}
	return fmt.Sprintf("no instance of %s is named `%s`%s", what, inst, have)
}

// instanceExists matches a name as libpcp's pmLookupInDom does: live, the
// PMDA decides; in an archive, the full name or the part before the first
// space.
func (a *diagnosis) instanceExists(indom pmapi.InDom, inst string) bool {
	if lk, ok := a.src.(pmclient.InstanceLookuper); ok {
		_, err := lk.LookupInstance(a.ctx, indom, inst)
		return err == nil
	}
	for _, name := range a.names.list(indom) {
		short, _, _ := strings.Cut(name, " ")
		if name == inst || short == inst {
			return true
		}
	}
	return false
}

func (a *diagnosis) sortedInstances(indom pmapi.InDom) []string {
	insts, _ := a.src.Instances(a.ctx, indom)
	out := make([]string, 0, len(insts))
	for _, in := range insts {
		out = append(out, in.Name)
	}
	return out
}

// historyReason says why delta() or rate() of an operand that has values
// has none: no previous sample, no instance in both, or (rate, PCP
// 6.2.1+) every counter went backwards.
func (a *diagnosis) historyReason(n *Node, fn string, c *Node) string {
	if a.prevIndex == nil && a.prev != nil {
		a.prevIndex = a.prev.index()
	}
	p, had := a.prevIndex[c.Syntax()]
	counter := "the operand " + quote(c)
	if c.Desc() != nil && c.Desc().Sem == pmapi.SemCounter {
		counter = "the counter " + quote(c)
	}
	switch {
	case a.prev == nil:
		why := ""
		switch {
		case recording(a.src) && a.replayed:
			why = " (this is the archive's first record of it)"
		case recording(a.src):
			why = " (the archive has no record of it before this one or after it)"
		}
		return fmt.Sprintf("%s has one sample, and %s() needs two%s", counter, fn, why)
	case !had:
		return fmt.Sprintf("%s was not evaluated in the previous sample, and %s() needs two", counter, fn)
	case p.err() != nil:
		return fmt.Sprintf("%s failed in the previous sample (%v), and %s() needs two samples with values", counter, p.err(), fn)
	case p.len() == 0:
		return fmt.Sprintf("%s had no values in the previous sample, and %s() needs two", counter, fn)
	}
	before := map[int32]bool{}
	for i := range p.len() {
		before[p.value(i).Inst] = true
	}
	common := 0
	for _, v := range c.Values() {
		if before[v.Inst] {
			common++
		}
	}
	if common == 0 {
		return fmt.Sprintf("no instance of %s has a value in both this sample and the previous one, and %s() compares the two", quote(c), fn)
	}
	if fn == "rate" && a.rep.Version.Has(pcpver.RateSkipsBackwards) {
		return fmt.Sprintf("%s went backwards since the previous sample for every instance (a reset or wrap), and rate() leaves such instances out (PCP %s and later)", counter, pcpver.RateSkipsBackwards.Since())
	}
	return fmt.Sprintf("%s() computes no value here", fn)
}

// disjoint says that two operands with values share no instance.
func (a *diagnosis) disjoint(l, r *Node) string {
	return fmt.Sprintf("the operands share no instance (%s vs %s)", instanceSummary(l), instanceSummary(r))
}

func instanceSummary(n *Node) string {
	var parts []string
	for i, v := range n.Values() {
		if i == 2 {
			parts = append(parts, fmt.Sprintf("… %d in all", n.numValues()))
			break
		}
		name := v.Instance
		if name == "" {
			name = fmt.Sprint(v.Inst)
		}
		parts = append(parts, "`"+name+"`")
	}
	return strings.Join(parts, ", ")
}

// errorReason words an error that starts at this node.
func (a *diagnosis) errorReason(n *Node) string {
	err := n.Err()
	if mt, ok := n.Syntax().(*grammar.Metric); ok {
		name := "`" + mt.Name + "`"
		if other, derived := a.rep.ByName.Lookup(mt.Name); derived && errors.Is(err, pmclient.ErrNoAgent) {
			return fmt.Sprintf("%s is itself a derived metric (line %d), and PCP %s fetches a derived operand from no agent: %v", name, other.Def.Line, a.rep.Version, err)
		}
		if errors.Is(err, pmclient.ErrUnknownName) {
			return fmt.Sprintf("%s is not in the namespace of %s", name, a.src.Describe())
		}
		return fmt.Sprintf("fetching %s failed: %v", name, err)
	}
	if mi, ok := n.Syntax().(*grammar.Matchinst); ok {
		if _, cerr := regexp.CompilePOSIX(mi.Pattern); cerr != nil {
			return fmt.Sprintf("the pattern `/%s/` does not compile: %v", mi.Pattern, err)
		}
	}
	return err.Error()
}

// notEvaluated says why libpcp skips a node, whose parent is p (nil for
// the root).
func (a *diagnosis) notEvaluated(n, p *Node) {
	if n.Evaluated() || n.NotEvaluated() != "" {
		return
	}
	switch {
	case p == nil:
		n.troubled().notEvaluated = "not evaluated"
	case !p.Evaluated():
		n.troubled().notEvaluated = "not evaluated, as the node above it is not"
	default:
		n.troubled().notEvaluated = a.skipped(p, n)
	}
}

func (a *diagnosis) skipped(p, n *Node) string {
	switch syn := p.Syntax().(type) {
	case *grammar.Binary:
		return "not evaluated: the left operand failed"
	case *grammar.Ternary:
		guard := p.Children()[0]
		if ni := a.nodes[syn]; ni != nil && ni.Bind != checker.BindBoth {
			side := "`then` branch"
			if ni.Bind == checker.BindElse {
				side = "`else` branch"
			}
			if n == guard {
				return "decided when libpcp binds the metric (PCP 6.2.2 and later): it always chooses the " + side
			}
			return "not evaluated: the guard always chooses the other branch"
		}
		if guard.Err() != nil {
			return "not evaluated: the guard failed"
		}
		return "not evaluated: the guard has no values"
	}
	return "not evaluated"
}

func (a *diagnosis) collectOrigins() {
	postOrder(a.x.Root, func(n *Node) {
		if n.EmptyBecause() != "" {
			a.x.Origins = append(a.x.Origins, n)
		}
	})
}

// analyseUnusable explains a definition libpcp will not evaluate: refused,
// hidden, masked or registered without an expression.
func analyseUnusable(x *Explanation, m *checker.Metric, src pmclient.Source) {
	root := x.Root
	unknown := map[string]bool{}
	for _, u := range m.Unknown() {
		unknown[u] = true
	}
	switch {
	case m.Status == checker.Unbound && len(unknown) > 0:
		// Children before parents: a node above an unknown name has no
		// values because of the first unknown name below it.
		postOrder(root, func(n *Node) {
			if mt, ok := n.Syntax().(*grammar.Metric); ok && unknown[mt.Name] {
				n.evaluated = true
				n.troubled().emptyBecause = fmt.Sprintf("`%s` is not in the namespace of %s, so libpcp does not define %s", mt.Name, src.Describe(), subject(x))
				return
			}
			for _, c := range n.Children() {
				if c.Evaluated() {
					n.evaluated = true
					n.troubled().emptyAt = originOf(c)
					return
				}
			}
		})
	default:
		root.evaluated = true
		root.troubled().emptyBecause = unusableReason(x, m, src)
	}
	walk(root, func(n *Node) {
		if !n.Evaluated() {
			n.troubled().notEvaluated = "not evaluated: libpcp does not evaluate this definition"
		}
	})
	a := &diagnosis{x: x, m: m, phrasing: root.t.phrasing, src: src}
	a.collectOrigins()
}

// subject names what is explained: the metric, or the expression.
func subject(x *Explanation) string {
	if x.Name == "" {
		return "the expression"
	}
	return "`" + x.Name + "`"
}

func unusableReason(x *Explanation, m *checker.Metric, src pmclient.Source) string {
	switch {
	case m.Broken:
		return "libpcp registers this definition without an expression it can evaluate (both branches are `novalue()`): it never has values"
	case m.Status == checker.SemanticError:
		return fmt.Sprintf("libpcp refuses the definition: Semantic error: %s: %s", m.Rendering(), m.Message())
	case m.Status == checker.Masked:
		return fmt.Sprintf("%s has a metric named `%s`: libpcp gives that one, not this definition", src.Describe(), m.Def.Name)
	case m.Status == checker.Unbound:
		return fmt.Sprintf("an operand is not in the namespace of %s, so libpcp does not define %s", src.Describe(), subject(x))
	}
	return "libpcp does not register this definition (run check for why)"
}
