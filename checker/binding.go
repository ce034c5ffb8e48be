package checker

import (
	"context"
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// operandNames are the metric names a node makes libpcp look up.
func operandNames(n grammar.Node) []string {
	switch n := n.(type) {
	case *grammar.Metric:
		return []string{n.Name}
	case *grammar.Call:
		if n.Func == "anon" {
			return nil
		}
	case *grammar.Mkconst:
		return metaNames(n.Specs)
	case *grammar.Novalue:
		return metaNames(n.Specs)
	}
	return nil
}

func metaNames(specs []grammar.Spec) []string {
	var out []string
	for _, s := range specs {
		if s.Key == "meta" {
			out = append(out, s.Value)
		}
	}
	return out
}

func (c *checkRun) lookup(ctx context.Context, src pmclient.Source, names []string) error {
	found, noDesc, err := pmclient.ResolveNames(ctx, src, names)
	for _, r := range found {
		c.descs[r.Name] = r.Desc
		c.known[r.Name] = true
	}
	for _, n := range noDesc {
		c.noDesc[n] = true
	}
	return err
}

// underTop says whether a name's first component is in top: only such a
// name can be a metric.
func underTop(top map[string]bool) func(name string) bool {
	return func(name string) bool {
		first, _, _ := strings.Cut(name, ".")
		return top[first]
	}
}

// unboundMeta is a meta=NAME whose metric does not bind, which hides the
// derived metric before PCP 7.1 (and is an error from 7.1 on).
type unboundMeta struct {
	name string
	at   grammar.Span
}

func (e *unboundMeta) Error() string { return "unknown metric " + e.name + " in meta=" }

// operandsNote spells out what libpcp abbreviates as <expr>: the inferred
// metadata of the failing node's operands.
func (c *checkRun) operandsNote(m *Metric, n grammar.Node) string {
	var ops []grammar.Node
	switch n := n.(type) {
	case *grammar.Binary:
		ops = []grammar.Node{n.L, n.R}
	case *colonNode:
		ops = []grammar.Node{n.t.Then, n.t.Else}
	case *grammar.Ternary:
		ops = []grammar.Node{n.Cond}
	case *grammar.Unary:
		ops = []grammar.Node{n.X}
	case *grammar.Call:
		ops = []grammar.Node{n.Arg}
	case *grammar.Rescale:
		ops = []grammar.Node{n.X}
	}
	var parts []string
	for _, op := range ops {
		if ni := m.nodes[op]; ni != nil {
			parts = append(parts, grammar.Format(op)+" is "+c.descText(ni.Desc))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// unknownOperands lists names that fail to bind; defined() tolerates them.
func (c *checkRun) unknownOperands(tree grammar.Node) []string {
	var out []string
	grammar.Walk(tree, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Call:
			if n.Func == "defined" {
				if name, bad := c.brokenDerivedInDefined(n); bad {
					out = append(out, name)
				}
			}
			if n.Func == "defined" || n.Func == "anon" {
				return false
			}
		case *grammar.Ternary:
			if c.opts.Version.Has(pcpver.LazyTernary) {
				return false // bound lazily
			}
		case *grammar.Metric:
			if _, ok := c.bindable(n.Name); !ok {
				out = append(out, n.Name)
			}
		}
		return true
	})
	return out
}

// brokenDerivedInDefined: before libpcp 6.2.2, defined(D) of a derived metric
// D that does not bind (a semantic error, an unknown operand) fails the
// whole binding, so the metric using it is hidden; defined() of a name
// that is not a metric at all is simply 0.
func (c *checkRun) brokenDerivedInDefined(n *grammar.Call) (string, bool) {
	mt, ok := n.Arg.(*grammar.Metric)
	if !ok || c.opts.Version.Has(pcpver.LazyTernary) {
		return "", false
	}
	if _, derived := c.report.ByName.Lookup(mt.Name); !derived {
		return "", false
	}
	if _, ok := c.bindable(mt.Name); ok {
		return "", false
	}
	return mt.Name, true
}

// registeredDerived reports whether name is a derived metric of the
// config that libpcp registered (so pmLookupName finds it, whether or not
// it binds) and that is not an alias leading back to self (libpcp 7.2.2
// recurses until it crashes on those).
func (c *checkRun) registeredDerived(name, self string) bool {
	for range maxAliasChain {
		other, ok := c.report.ByName.Lookup(name)
		if !ok || !other.Def.Registered {
			return false
		}
		tree, err := other.Def.Tree()
		if err != nil {
			return true
		}
		next, alias := grammar.Unwrap(tree).(*grammar.Metric)
		if !alias || next.Inst != nil {
			return true
		}
		if next.Name == self {
			return false
		}
		name = next.Name
	}
	return false // a longer chain of aliases: leave it as unknown
}

// maxAliasChain bounds the walk along aliases of aliases.
const maxAliasChain = 64

// nestedDerived returns the first operand naming another derived metric.
func (c *checkRun) nestedDerived(m *Metric, tree grammar.Node) string {
	if mt, ok := grammar.Unwrap(tree).(*grammar.Metric); ok && mt.Inst == nil {
		return "" // an alias
	}
	name := ""
	grammar.Walk(tree, func(n grammar.Node) bool {
		if mt, ok := n.(*grammar.Metric); ok && name == "" {
			if other, ok := c.report.ByName.Lookup(mt.Name); ok && other != m {
				if _, real := c.descs[mt.Name]; !real {
					name = mt.Name
				}
			}
		}
		return name == ""
	})
	return name
}

// crashingOperand returns the first of names that is a derived metric
// libpcp crashes on (Crashes), where libpcp binds derived operands
// (before 6.2.2).
func (c *checkRun) crashingOperand(names []string) (string, bool) {
	if c.opts.Version.Has(pcpver.NestedDerivedError) {
		return "", false
	}
	for _, name := range names {
		if m, ok := c.report.ByName.Lookup(name); ok && m.Status == Crashes {
			return name, true
		}
	}
	return "", false
}

// bindable resolves a name like pmLookupName + pmLookupDesc in a context
// that has the config's derived metrics: real metrics first, then valid
// derived metrics (nesting, which PCP 6 binds but cannot fetch).
func (c *checkRun) bindable(name string) (pmapi.Desc, bool) {
	if d, ok := c.descs[name]; ok {
		return d, true
	}
	if m, ok := c.report.ByName.Lookup(name); ok {
		c.ensure(m)
		if m.Status == Valid {
			return m.Desc, true
		}
	}
	if name == "event.flags" || name == "event.missed" {
		return pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}, true
	}
	if c.mapToNovalue && !c.noDesc[name] {
		// novalue()'s own metadata, and no value ever.
		return pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.Type32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}, true
	}
	return pmapi.Desc{}, false
}

// mapsToNovalue reports whether option_novalue binds name as novalue():
// a name that is neither a real metric nor a derived metric that binds.
// libpcp then puts a novalue() node in its place, which a ternary
// branch may be (the other branch's metadata wins).
func (c *checkRun) mapsToNovalue(name string) bool {
	if !c.mapToNovalue || c.noDesc[name] {
		return false
	}
	_, real := c.descs[name]
	return unboundName(name, real, c.report.ByName)
}

// unboundName reports whether name, real or not as the source says, is
// neither a real metric, nor libpcp's built-in event.flags and
// event.missed, nor a derived metric that binds.
func unboundName(name string, real bool, byName MetricNames) bool {
	if real || name == "event.flags" || name == "event.missed" {
		return false
	}
	m, ok := byName.Lookup(name)
	return !ok || m.Status != Valid
}

func (c *checkRun) leaf(n *grammar.Metric) (pmapi.Desc, bool) { return c.bindable(n.Name) }

func (c *checkRun) reportUnbound(f *grammar.File, m *Metric, tree grammar.Node) {
	first := true
	guards := 0
	var body string // the guarded expression, formatted once
	grammar.Walk(tree, func(n grammar.Node) bool {
		if call, ok := n.(*grammar.Call); ok && (call.Func == "defined" || call.Func == "anon") {
			if name, bad := c.brokenDerivedInDefined(call); bad {
				c.diag(f, m, exprRange(f, m.Def, call.Arg.(*grammar.Metric).At), codes.UnknownMetric,
					fmt.Sprintf("%s is a derived metric that does not bind: libpcp 6 then fails defined(%s) and silently hides %s", name, name, m.Def.Name), nil)
			}
			return false
		}
		mt, ok := n.(*grammar.Metric)
		if !ok {
			return true
		}
		if _, ok := c.bindable(mt.Name); ok {
			return true
		}
		reported := c.opts.Version.Has(pcpver.UnknownOperandReported)
		msg := fmt.Sprintf("unknown metric %s: libpcp silently hides %s", mt.Name, m.Def.Name)
		switch {
		case c.noDesc[mt.Name]:
			msg = fmt.Sprintf("%s has no descriptor (its PMDA does not describe it): libpcp silently hides %s", mt.Name, m.Def.Name)
		case reported:
			msg = fmt.Sprintf("unknown metric %s: libpcp 7.1+ reports \"Unknown operand metric\" and hides %s", mt.Name, m.Def.Name)
		}
		var pcp []string
		if reported && first {
			// libpcp stops binding at the first operand it cannot bind.
			pcp = []string{fmt.Sprintf("Semantic error: derived metric %s: operand %s: Unknown operand metric", m.Def.Name, mt.Name)}
		}
		first = false
		rg := exprRange(f, m.Def, mt.At)
		if c.missingPMDA(f, m, mt.Name, rg, pcp) {
			return true
		}
		listed := c.diag(f, m, rg, codes.UnknownMetric, msg, pcp)
		if listed != nil && c.opts.Version.Has(pcpver.Novalue) && guards < maxGuardFixes && len(m.Def.Expr) <= maxGuardedExpr {
			// PCP 6.2.2+: a metric that may be missing is guarded, and the
			// derived metric simply has no value where it is.
			guards++
			if body == "" {
				body = grammar.Format(tree)
				if _, isTernary := grammar.Unwrap(tree).(*grammar.Ternary); isTernary {
					body = "(" + body + ")"
				}
			}
			text := fmt.Sprintf("defined(%s) ? %s : novalue()", mt.Name, body)
			listed.Fixes = append(listed.Fixes, grammar.Fix{Title: "Guard it: " + text,
				Edits: []grammar.Edit{{Range: exprRange(f, m.Def, grammar.Span{Start: 0, End: int32(len(m.Def.Expr))}), NewText: text}}})
		}
		return true
	})
}

// missingPMDA reports an unknown metric whose top-level name belongs to a
// PCP PMDA that has no metrics in the source at all: the PMDA is not
// installed there, which on a host of a fleet is expected (PCP's own
// shipped configs name many PMDAs), so it is a warning, given once per
// PMDA and file; the others of that PMDA are hints pointing at it. A
// misspelt name under an installed PMDA stays an error.
func (c *checkRun) missingPMDA(f *grammar.File, m *Metric, name string, rg grammar.Range, pcp []string) bool {
	if c.noDesc[name] {
		return false
	}
	root, pmdas := pmdaOf(name)
	if pmdas == "" {
		return false
	}
	if top, _ := c.topNames(); top == nil || top[root] {
		return false
	}
	if c.pmdaReported == nil {
		c.pmdaReported = map[*grammar.File]map[string]pmdaWarning{}
	}
	if c.pmdaReported[f] == nil {
		c.pmdaReported[f] = map[string]pmdaWarning{}
	}
	if c.pmdaFresh != nil {
		c.pmdaFresh[root] = append(c.pmdaFresh[root], m)
	}
	agent := strings.ReplaceAll(pmdas, ",", " or ")
	if w, seen := c.pmdaReported[f][root]; seen {
		c.diagAs(f, m, rg, grammar.SeverityHint, codes.PMDAMissing,
			fmt.Sprintf("no %s.* metrics here (see line %d): libpcp hides %s", root, w.line, m.Def.Name), pcp)
		return true
	}
	c.pmdaReported[f][root] = pmdaWarning{line: int(rg.Start.Line), metric: m.Def.Name}
	c.diag(f, m, rg, codes.PMDAMissing,
		fmt.Sprintf("no %s.* metrics in %s: the %s PMDA is not installed there, so libpcp hides %s and every other metric that uses %s.*", root, c.report.Source, agent, m.Def.Name, root), pcp)
	return true
}

// pmdaWarning is where a file's warning that a PMDA is missing is: its
// line, which the hints of the PMDA's other metrics name, and the metric
// it is in.
type pmdaWarning struct {
	line   int
	metric string
}

// topNamesOf returns a function that lists the namespace's top-level
// names, asking the source once, when first called: nil when it cannot
// say, with the source's error if it failed.
func topNamesOf(ctx context.Context, src pmclient.Source) func() (map[string]bool, error) {
	var top map[string]bool
	var err error
	asked := false
	return func() (map[string]bool, error) {
		if !asked {
			asked = true
			var children []pmclient.Child
			if children, err = src.Children(ctx, ""); err == nil && len(children) > 0 {
				top = map[string]bool{}
				for _, ch := range children {
					top[ch.Name] = true
				}
			}
		}
		return top, err
	}
}
