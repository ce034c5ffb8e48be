package checker

import (
	"context"
	"maps"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Refs says which derived metrics name which metrics in their
// expressions, so an edit rechecks the metrics that use what it changed.
// It is immutable: a base index from a whole check and the metrics
// changed since, layered over it.
type Refs struct {
	base    map[string][]string // operand name → metrics using it
	changed map[string][]string // metric → its operands now (nil: gone)
}

// maxChangedRefs bounds the layer of changes before the index is built
// again from the report.
const maxChangedRefs = 512

// NewRefs indexes a report's metrics.
func NewRefs(rep *Report) *Refs {
	base := map[string][]string{}
	for _, m := range rep.Metrics {
		for _, op := range metricOperands(m) {
			base[op] = append(base[op], m.Def.Name)
		}
	}
	return &Refs{base: base, changed: map[string][]string{}}
}

// users are the metrics whose expressions name op.
func (r *Refs) users(op string) []string {
	var out []string
	for _, m := range r.base[op] {
		if _, ok := r.changed[m]; !ok {
			out = append(out, m)
		}
	}
	for m, ops := range r.changed {
		for _, o := range ops {
			if o == op {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// metricOperands are the names a metric's expression looks up.
func metricOperands(m *Metric) []string {
	tree, err := m.Def.Tree()
	if err != nil {
		return nil
	}
	var out []string
	grammar.Walk(tree, func(n grammar.Node) bool {
		out = append(out, operandNames(n)...)
		return true
	})
	return out
}

// Recheck is Check of one file f that grammar.Reparse made from the file
// prev checked: it checks again only the definitions that changed and the
// metrics that use them (refs says which; nil builds it), and moves the
// verdicts and findings of the others. ok is false when the change may
// reach further (findings that point at other lines, a #control line, a
// check of several files): call Check then. The findings equal Check's.
func Recheck(ctx context.Context, prev *Report, refs *Refs, f *grammar.File, src pmclient.Source, opts Options) (_ *Report, _ *Refs, ok bool, _ error) {
	if prev == nil || len(prev.Files) != 1 || prev.Version != opts.Version {
		return nil, nil, false, nil
	}
	pf := prev.Files[0]
	if (pf.OptionNovalue == nil) != (f.OptionNovalue == nil) || (pf.OptionNovalue != nil && *pf.OptionNovalue != *f.OptionNovalue) {
		return nil, nil, false, nil
	}
	if pf.Path != f.Path || len(f.Src)-len(pf.Src) != moveOf(pf, f) {
		return nil, nil, false, nil
	}
	for _, d := range prev.Diagnostics[pf] {
		if crossLine(d) {
			return nil, nil, false, nil
		}
	}
	if refs == nil {
		refs = NewRefs(prev)
	}
	pd, nd := pf.Definitions, f.Definitions
	p := 0
	for p < min(len(pd), len(nd)) && pd[p] == nd[p] {
		p++
	}
	delta := len(f.Src) - len(pf.Src)
	s := 0
	for s < min(len(pd), len(nd))-p && sameDefinition(pd[len(pd)-1-s], nd[len(nd)-1-s], delta) {
		s++
	}
	oldChanged, newChanged := pd[p:len(pd)-s], nd[p:len(nd)-s]
	// The metrics to check again: the changed ones and, transitively,
	// those that use a changed name.
	again := map[string]bool{}
	var queue []string
	for _, d := range append(append([]*grammar.Definition(nil), oldChanged...), newChanged...) {
		if !again[d.Name] {
			again[d.Name] = true
			queue = append(queue, d.Name)
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, u := range refs.users(name) {
			if !again[u] {
				again[u] = true
				queue = append(queue, u)
			}
		}
	}
	if len(again) > maxChangedRefs {
		return nil, nil, false, nil
	}

	// ByName starts as the earlier check's (a map clone copies its table
	// without hashing again); the names from the change on are replaced
	// below, the ones before it keep their metric, and names the change
	// removed are deleted after.
	byName := maps.Clone(prev.ByName)
	rep := &Report{Files: []*grammar.File{f}, ByName: byName,
		Diagnostics: map[*grammar.File][]grammar.Diagnostic{}, Source: src.Describe(), Version: opts.Version}
	c := &checkRun{opts: opts, report: rep, descs: map[string]pmapi.Desc{}, known: map[string]bool{}, noDesc: map[string]bool{},
		checking: true, unknownAt: map[*grammar.Definition][]int{}}
	c.mapToNovalue = f.OptionNovalue != nil && *f.OptionNovalue && opts.Version.Has(pcpver.ControlLines)
	c.topNames = topNamesOf(ctx, src)
	var fresh []*Metric
	prevOf := prevMetrics{prev: prev, pd: pd}
	for i, d := range nd {
		if !d.Registered {
			continue
		}
		var m *Metric
		switch old := prevOf.metric(i, p, len(nd)-s, len(pd)-len(nd)); {
		case old == nil || again[d.Name]:
			m = &Metric{Def: d, file: f}
			fresh = append(fresh, m)
		case i < p:
			// Before the change: the same definition, the same metric
			// (its file is read only while it is checked).
			m = old
		default:
			// A copy in this file (the earlier one's text is not kept).
			moved := *old
			moved.Def = d // (and no file: checked already, Metric.release)
			m = &moved
		}
		rep.Metrics = append(rep.Metrics, m)
		if i >= p {
			rep.ByName[d.Name] = m
		}
	}
	for _, d := range oldChanged {
		// Still the earlier metric: the name is no longer registered (a
		// name has at most one registered definition: libpcp refuses a
		// second).
		if m, ok := rep.ByName[d.Name]; ok && m.Def == d {
			delete(rep.ByName, d.Name)
		}
	}
	// Look up what the fresh metrics name; the others keep their verdicts.
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, m := range fresh {
		add(m.Def.Name)
		for _, op := range metricOperands(m) {
			add(op)
		}
	}
	if err := c.lookup(ctx, src, names); err != nil {
		return nil, nil, false, err
	}
	for _, m := range fresh {
		c.ensure(m)
	}
	c.adviseSome(ctx, src, fresh)
	freshDiags := rep.Diagnostics[f]
	for _, d := range freshDiags {
		if crossLine(d) {
			return nil, nil, false, nil
		}
	}
	// The operands: the earlier check's and the fresh lookups.
	rep.Operands = maps.Clone(prev.Operands)
	if rep.Operands == nil {
		rep.Operands = make(map[string]pmapi.Desc, len(c.descs))
	}
	for k, v := range c.descs {
		rep.Operands[k] = v
	}
	// The findings: the earlier ones outside what was checked again
	// (moved when after the change), and the fresh ones.
	head := len(pf.Src)
	if p < len(pd) {
		head = pd[p].Range.Start.Offset
	}
	tail := len(pf.Src)
	if s > 0 {
		tail = pd[len(pd)-s].Range.Start.Offset
	}
	var out []grammar.Diagnostic
	for _, d := range prev.Diagnostics[pf] {
		off := d.Range.Start.Offset
		if def := pf.DefinitionAt(off); def != nil && def.Registered && again[def.Name] {
			continue
		}
		switch {
		case off < head:
			out = append(out, d)
		case off >= tail:
			out = append(out, d.Moved(delta))
		}
	}
	sortFindings(freshDiags)
	out = mergeFindings(out, freshDiags)
	if len(out) > 0 {
		rep.Diagnostics[f] = out
	}
	// The index, with the fresh metrics' operands layered over.
	next := &Refs{base: refs.base, changed: make(map[string][]string, len(refs.changed)+len(again))}
	for k, v := range refs.changed {
		next.changed[k] = v
	}
	for _, d := range oldChanged {
		next.changed[d.Name] = nil
	}
	for _, m := range fresh {
		next.changed[m.Def.Name] = metricOperands(m)
	}
	if len(next.changed) > maxChangedRefs {
		next = NewRefs(rep)
	}
	return rep, next, true, nil
}

// crossLine says whether a finding depends on other definitions' places
// (a missing PMDA reported once per file, a cycle of derived metrics).
func crossLine(d grammar.Diagnostic) bool {
	return d.Code == "pmda-missing" || (d.Code == "libpcp-crash" && strings.Contains(d.Message, "depends on itself")) || len(d.Related) > 0
}

// moveOf is how far f's definitions after the change moved from pf's
// (the length difference, when Reparse made f).
func moveOf(pf, f *grammar.File) int { return len(f.Src) - len(pf.Src) }

// sameDefinition says whether b is a moved by delta, with the same text
// and syntax tree.
func sameDefinition(a, b *grammar.Definition, delta int) bool {
	if a.Name != b.Name || a.Expr != b.Expr || a.Registered != b.Registered || a.Verdict != b.Verdict ||
		b.Range.Start.Offset-a.Range.Start.Offset != delta || a.Line != b.Line || a.Range.Start.Line != b.Range.Start.Line {
		return false
	}
	if !a.Registered {
		return true
	}
	ta, ea := a.Tree()
	tb, eb := b.Tree()
	return ta == tb && (ea == nil) == (eb == nil)
}

// prevMetrics finds the earlier check's metric of a definition by
// walking the earlier definitions alongside its metrics (one per
// registered definition, in order), so that no name is hashed per
// definition on every keystroke.
type prevMetrics struct {
	prev *Report
	pd   []*grammar.Definition
	j, k int // pd[j] is the next definition, prev.Metrics[k] the next metric
}

// metric is the earlier metric of new definition i: the same index before
// the change (i < p), moved by the difference in counts after it
// (i >= q), none in between. Calls come with i increasing.
func (w *prevMetrics) metric(i, p, q, shift int) *Metric {
	var at int
	switch {
	case i < p:
		at = i
	case i >= q:
		at = i + shift
	default:
		return nil
	}
	for ; w.j < at; w.j++ {
		if w.pd[w.j].Registered {
			w.k++
		}
	}
	if w.k < len(w.prev.Metrics) && w.prev.Metrics[w.k].Def == w.pd[at] {
		return w.prev.Metrics[w.k]
	}
	if m, ok := w.prev.ByName[w.pd[at].Name]; ok && m.Def == w.pd[at] {
		return m // a check that did not list its metrics in order
	}
	return nil
}

func sortFindings(diags []grammar.Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Offset < diags[j].Range.Start.Offset })
}

// mergeFindings merges two lists sorted by start offset.
func mergeFindings(a, b []grammar.Diagnostic) []grammar.Diagnostic {
	if len(b) == 0 {
		return a
	}
	out := make([]grammar.Diagnostic, 0, len(a)+len(b))
	i, k := 0, 0
	for i < len(a) || k < len(b) {
		if k == len(b) || (i < len(a) && a[i].Range.Start.Offset <= b[k].Range.Start.Offset) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[k])
			k++
		}
	}
	return out
}

// adviseSome is advise for the given metrics only.
func (c *checkRun) adviseSome(ctx context.Context, src pmclient.Source, metrics []*Metric) {
	a := c.newAdvisor(ctx, src)
	for _, m := range metrics {
		a.advise(m)
		m.release()
	}
}
