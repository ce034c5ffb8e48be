package checker

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Findings are the checker's findings of f, sorted by position. The list
// is the report's own: shared, never changed.
func (r *Report) Findings(f *grammar.File) pvec.Vec[grammar.Diagnostic] { return r.findings[f] }

// Diagnostics are the checker's findings of f, sorted by position, in a
// list of the caller's.
func (r *Report) Diagnostics(f *grammar.File) []grammar.Diagnostic { return r.findings[f].Collect() }

// doubleNovalue finds a ternary with novalue() in both branches of tree,
// the expression expr. Such an expression spells "novalue" twice: the
// others, almost all, are passed over without a walk of their trees.
func doubleNovalue(expr string, tree grammar.Node) (grammar.Span, bool) {
	var at grammar.Span
	if strings.Count(expr, "novalue") < 2 {
		return at, false
	}
	found := false
	grammar.Walk(tree, func(n grammar.Node) bool {
		if t, ok := n.(*grammar.Ternary); ok && !found {
			_, a := grammar.Unwrap(t.Then).(*grammar.Novalue)
			_, b := grammar.Unwrap(t.Else).(*grammar.Novalue)
			if a && b {
				at, found = t.Span(), true
			}
		}
		return !found
	})
	return at, found
}

// diag reports a finding with its code's default severity (codes).
func (c *checkRun) diag(f *grammar.File, m *Metric, rg grammar.Range, code, msg string, pcp []string) *grammar.Diagnostic {
	return c.diagAs(f, m, rg, codes.DefaultSeverity(code), code, msg, pcp)
}

// diagAs reports a finding with a severity of its own: the cases the
// registry notes (codes.Info.SeverityNote). It returns the finding, for
// fixes to be attached (valid until m's next).
func (c *checkRun) diagAs(f *grammar.File, m *Metric, rg grammar.Range, sev grammar.Severity, code, msg string, pcp []string) *grammar.Diagnostic {
	d := c.add(f, m, grammar.Diagnostic{Range: rg, Severity: sev, Code: code, Message: msg, PCP: pcp})
	if d != nil && code == "unknown-metric" {
		c.unknownAt[m.Def] = append(c.unknownAt[m.Def], len(c.findingsOf(f, m))-1)
	}
	return d
}

// add makes a finding of m, in f, and returns it (valid until m's next),
// or nil when it is only counted (Options.MaxPerCode), for callers to
// skip its fixes. Under Options.MaxPerCode it is held with m's other
// findings until m is checked and advised (listHeld), and capped then: a
// metric's check may check a metric defined after it first (its operand),
// and the findings listed must be the first of their kind in the file,
// as the analysis of an editor's buffer caps them (grammar.CapFindings),
// not the first made.
func (c *checkRun) add(f *grammar.File, m *Metric, d grammar.Diagnostic) *grammar.Diagnostic {
	if c.opts.MaxPerCode > 0 {
		if c.capOf(f).OmitIfFull(f, d) {
			// Every finding listed is of a metric before m: m's can only
			// be counted. (Its fixes, a "Guard it" rewrite of the whole
			// expression each, are not made for nothing.)
			c.omitted = true
			return nil
		}
		h := c.held[m]
		if h == nil {
			h = &heldFindings{f: f}
			if c.held == nil {
				c.held = map[*Metric]*heldFindings{}
			}
			c.held[m] = h
		}
		h.diags = append(h.diags, d)
		return &h.diags[len(h.diags)-1]
	}
	diags := append(c.diags[f], d)
	c.diags[f] = diags
	return &diags[len(diags)-1]
}

// findingsOf is the list m's findings in f are made in: held ones under
// Options.MaxPerCode, else f's.
func (c *checkRun) findingsOf(f *grammar.File, m *Metric) []grammar.Diagnostic {
	if c.opts.MaxPerCode > 0 {
		if h := c.held[m]; h != nil {
			return h.diags
		}
		return nil
	}
	return c.diags[f]
}

// heldFindings are a metric's findings not yet capped, and their file.
type heldFindings struct {
	f     *grammar.File
	diags []grammar.Diagnostic
}

// listHeld lists m's held findings (Options.MaxPerCode): those past the
// cap of their code and severity only counted, in a stand-in. A finding
// a suppression comment turns off (Options.Suppressed) is listed and not
// counted: the analysis drops it, and the cap is on what is shown.
func (c *checkRun) listHeld(m *Metric) {
	h := c.held[m]
	if h == nil {
		return
	}
	delete(c.held, m)
	f := h.f
	fc := c.capOf(f)
	for _, d := range h.diags {
		if fc.Omit(f, d) {
			c.omitted = true
			continue
		}
		c.diags[f] = append(c.diags[f], d)
	}
}

// capOf is f's count of findings for Options.MaxPerCode.
func (c *checkRun) capOf(f *grammar.File) *grammar.FindingCap {
	fc := c.capped[f]
	if fc == nil {
		fc = &grammar.FindingCap{Max: c.opts.MaxPerCode, Suppressed: c.opts.Suppressed}
		if c.capped == nil {
			c.capped = map[*grammar.File]*grammar.FindingCap{}
		}
		c.capped[f] = fc
	}
	return fc
}

// addStandIns lists each file's stand-ins for omitted findings.
func (c *checkRun) addStandIns() {
	for f, fc := range c.capped {
		c.diags[f] = append(c.diags[f], fc.StandIns()...)
	}
}

// exprRange maps an expression span to a file range.
func exprRange(f *grammar.File, d *grammar.Definition, s grammar.Span) grammar.Range {
	return f.ExprRange(d, int(s.Start), int(s.End))
}

// semanticFixes offers edits for semantic errors with an obvious cure.
func (c *checkRun) semanticFixes(last *grammar.Diagnostic, f *grammar.File, m *Metric, se *semErr) {
	if b, ok := se.node.(*grammar.Binary); ok && strings.Contains(se.msg, "counter") {
		// Counters combine after rate(); in pcp6 rate() takes a metric
		// name only.
		for _, x := range []grammar.Node{b.L, b.R} {
			ni := m.nodes[x]
			if ni == nil || ni.Desc.Sem != pmapi.SemCounter {
				continue
			}
			if _, isName := grammar.Unwrap(x).(*grammar.Metric); !isName && !c.opts.Version.Has(pcpver.DeltaOfExpr) {
				continue
			}
			text := "rate(" + grammar.Format(grammar.Unwrap(x)) + ")"
			last.Fixes = append(last.Fixes, grammar.Fix{Title: "Use the counter's rate: " + text,
				Edits: []grammar.Edit{{Range: exprRange(f, m.Def, x.Span()), NewText: text}}})
		}
		return
	}
	colon, ok := se.node.(*colonNode)
	if !ok || !strings.HasPrefix(se.msg, "Different ") {
		return
	}
	if strings.HasPrefix(se.msg, "Different units or scale") {
		// Same dimension, other scale: rescale the second branch.
		td, ed := m.nodes[colon.t.Then], m.nodes[colon.t.Else]
		if td != nil && ed != nil && sameDims(td.Desc.Units, ed.Desc.Units) && td.Desc.Units.String() != "" {
			text := fmt.Sprintf("rescale(%s, %q)", grammar.Format(grammar.Unwrap(colon.t.Else)), td.Desc.Units.Format(c.opts.Version.Has(pcpver.ExtraUnits)))
			last.Fixes = append(last.Fixes, grammar.Fix{Title: "Rescale the second branch: " + text,
				Edits: []grammar.Edit{{Range: exprRange(f, m.Def, colon.t.Else.Span()), NewText: text}}})
		}
	}
	// A bare literal branch is U32 and discrete: make it a constant with
	// the other branch's metadata.
	lit, other := colon.t.Else, colon.t.Then
	if _, isNum := grammar.Unwrap(lit).(*grammar.Number); !isNum {
		lit, other = colon.t.Then, colon.t.Else
	}
	num, isNum := grammar.Unwrap(lit).(*grammar.Number)
	od := m.nodes[other]
	if !isNum || od == nil {
		return
	}
	d := od.Desc
	text := fmt.Sprintf("mkconst(%s, type=%s, semantics=%s", num.Text, strings.ToLower(d.Type.String()), d.Sem)
	if u := d.Units.String(); u != "" {
		text += fmt.Sprintf(", units=%q", u)
	}
	text += ")"
	last.Fixes = append(last.Fixes, grammar.Fix{
		Title: "Give the constant the other branch's metadata: " + text,
		Edits: []grammar.Edit{{Range: exprRange(f, m.Def, lit.Span()), NewText: text}},
	})
	last.Message += "; a bare number is a 32-bit unsigned discrete constant: write " + text
}

// maxGuardFixes and maxGuardedExpr bound the "Guard it" fixes of a
// definition: each rewrites the whole expression, so one for each of a
// hostile line's ten thousand unknown names would cost gigabytes. An
// editor shows a few at a time anyway.
const (
	maxGuardFixes  = 8
	maxGuardedExpr = 64 << 10
)
