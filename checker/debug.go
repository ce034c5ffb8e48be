package checker

import (
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// BindDebug is what libpcp prints under PCP_DEBUG=derive after loading
// files (grammar.DeriveDebug) when a tool binds every metric they
// register, in order: the model is `pminfo -Dderive -d NAMES...` asked
// for each registered name. Per metric: a real metric's warning that it
// masks the definition, the bind_expr error of the first operand that
// does not bind (PCP 7.1+: its "Semantic error"), the semantic error,
// and, with option_novalue, each operand mapped to novalue(). From 6.2.2
// (proved: 6.2.0 prints the old forms, 6.3.8 the new) pminfo's second
// lookup of the names prints each masking warning again at the end.
//
// Left out, as traces of how a tool walks the namespace rather than of
// the config: the __dmgetpmid, __dmbind and __dmtraverse lines (their
// order and form follow pminfo's lookups and change in every release),
// and pminfo's own "Error: NAME: Unknown metric name".
func (r *Report) BindDebug(files []*grammar.File) []string {
	registered := map[*grammar.Definition]int{}
	n := 2 // event.flags and event.missed come first (grammar.DeriveDebug)
	for _, f := range files {
		for _, d := range f.Definitions.All() {
			if d.Registered {
				registered[d] = n
				n++
			}
		}
	}
	indexOf := func(name string) (int, bool) {
		if m, ok := r.ByName.Lookup(name); ok {
			i, ok := registered[m.Def]
			return i, ok
		}
		return 0, false
	}
	reworked := r.Version.Has(pcpver.NestedDerivedError)
	var out, masks []string
	for _, m := range r.Metrics.All() {
		i, ok := registered[m.Def]
		if !ok {
			continue
		}
		name := m.Def.Name
		if reworked && m.Status != Masked {

			out = append(out, r.maskedOperandLines(m, registered)...)
		}
		switch m.Status {
		case Masked:
			line := fmt.Sprintf("Warning: %s: derived name matches metric %s: derived ignored", name, m.Desc.PMID)
			if reworked {
				line = fmt.Sprintf("Warning: %s [%s host context] masks global derived metric [511.0.%d] with the same name", name, m.Desc.PMID, i+1)
				masks = append(masks, line)
			}
			out = append(out, line)
		case SemanticError:
			out = append(out, fmt.Sprintf("Semantic error: derived metric %s: %s: %s", name, m.Rendering(), m.Message()))
		case Unbound:
			out = append(out, r.unboundLine(m, indexOf)...)
		case Valid:
			out = append(out, r.novalueLines(m)...)
		}
	}
	return append(out, masks...)
}

// maskedOperandLines are the masking warnings 6.2.2+ prints binding
// m's operands that name a masked derived metric, left to right, up to
// the first operand that does not bind.
func (r *Report) maskedOperandLines(m *Metric, registered map[*grammar.Definition]int) []string {
	tree, err := m.Def.Tree()
	if err != nil {
		return nil
	}
	stop := "" // binding stops at the first operand that does not bind
	if unknown := m.Unknown(); m.Status == Unbound && len(unknown) > 0 {
		stop = unknown[0]
	}
	var out []string
	stopped := false
	grammar.Walk(tree, func(n grammar.Node) bool {
		mt, ok := n.(*grammar.Metric)
		if stopped || !ok {
			return !stopped
		}
		if stopped = mt.Name == stop; stopped {
			return false
		}
		if d, ok := r.ByName.Lookup(mt.Name); ok && d.Status == Masked {
			if i, ok := registered[d.Def]; ok {
				out = append(out, fmt.Sprintf("Warning: %s [%s host context] masks global derived metric [511.0.%d] with the same name", mt.Name, d.Desc.PMID, i+1))
			}
		}
		return true
	})
	return out
}

// unboundLine is libpcp's word on the first operand of m that does not
// bind: before 7.1 a bind_expr error (a derived operand that failed is
// named with its PMID), from 7.1 a semantic error.
func (r *Report) unboundLine(m *Metric, indexOf func(string) (int, bool)) []string {
	unknown := m.Unknown()
	if len(unknown) == 0 {
		return nil
	}
	op, name := unknown[0], m.Def.Name
	if r.Version.Has(pcpver.UnknownOperandReported) {
		return []string{fmt.Sprintf("Semantic error: derived metric %s: operand %s: Unknown operand metric", name, op)}
	}
	scope := "derived metric"
	if r.Version.Has(pcpver.NestedDerivedError) {
		scope = "global derived metric"
	}
	if i, ok := indexOf(op); ok {
		return []string{fmt.Sprintf("bind_expr: error: %s %s: operand (%s [511.0.%d]): Derived metric definition failed", scope, name, op, i+1)}
	}
	return []string{fmt.Sprintf("bind_expr: error: %s %s: operand: %s: Unknown metric name", scope, name, op)}
}

// novalueLines are libpcp's warnings for each operand of a valid m that
// option_novalue (7.1.1+) bound as novalue() (checkRun.mapsToNovalue),
// defined()'s included.
func (r *Report) novalueLines(m *Metric) []string {
	if !r.mapsToNovalue {
		return nil
	}
	tree, err := m.Def.Tree()
	if err != nil {
		return nil
	}
	var out []string
	grammar.Walk(tree, func(n grammar.Node) bool {
		if mt, ok := n.(*grammar.Metric); ok {
			if _, real := r.Operands[mt.Name]; unboundName(mt.Name, real, r.ByName) {
				out = append(out, fmt.Sprintf("Warning: derived metric %s: operand %q not found, mapped to novalue()", m.Def.Name, mt.Name))
			}
		}
		return true
	})
	return out
}
