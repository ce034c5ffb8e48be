package pmconfig

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ascii"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// SpecMetric is what the metadata says of a spec's metric.
type SpecMetric struct {
	Spec *Spec
	// Known: a metric or a namespace subtree of that name exists (a
	// registered formula's metric counts when it is valid).
	Known, Leaf bool
	Desc        pmapi.Desc // for a leaf
}

// Check checks the specs of d against the metadata source, with rep the
// checker's verdicts on d.File's formulas (nil when not checked). It
// returns findings of its own and silent ones: what pmrep says about a
// formula the checker already reported (Silent), for the run's outcome.
func (d *Doc) Check(ctx context.Context, src pmclient.Source, rep *checker.Report) ([]Finding, []SpecMetric, error) {
	if d.Tool == Dstat {
		found, err := d.checkColumns(ctx, src, rep)
		return found, nil, err
	}
	formulas := map[*grammar.Definition]*checker.Metric{}
	if rep != nil {
		for _, m := range rep.Metrics.All() {
			formulas[m.Def] = m
		}
	}
	out, ask := d.specsToLookUp()
	pmids, errs, findings, err := d.lookUp(ctx, src, out, ask)
	if err != nil {
		return nil, nil, err
	}
	var leafPMIDs []pmapi.PMID
	var leafIdx []int
	suggest := checker.NameSuggester(ctx, src)
	for k, i := range ask {
		sp := d.Specs[i]
		if errs[k] == nil {
			out[i].Known, out[i].Leaf = true, true
			leafPMIDs = append(leafPMIDs, pmids[k])
			leafIdx = append(leafIdx, i)
			continue
		}
		def := d.registeredFormula(sp)
		if def == nil && rep != nil {
			// A derived metric libpcp loaded on its own
			// ($PCP_DERIVED_CONFIG), checked with the file.
			if m, ok := rep.ByName.Lookup(sp.Metric); ok && d.regs[m.Def] == nil && !d.ownDefinition(m.Def) {
				def = m.Def
			}
		}
		if def != nil {
			if f, known, found := d.formulaVerdict(sp.Metric, d.sectionScope(sp), i, def, formulas[def], &out[i]); found {
				if !known {
					findings = append(findings, f)
				}
				continue
			}
		}
		if !errors.Is(errs[k], pmclient.ErrUnknownName) && errs[k] != nil {
			if kids, err := src.Children(ctx, sp.Metric); err == nil && len(kids) > 0 {
				out[i].Known = true // a subtree: every leaf under it
				continue
			}
		} else if kids, err := src.Children(ctx, sp.Metric); err == nil && len(kids) > 0 {
			out[i].Known = true
			continue
		}
		findings = append(findings, d.unknownMetric(ctx, src, sp, i, suggest))
	}
	descs, derrs, err := src.Descs(ctx, leafPMIDs)
	if err != nil {
		return nil, nil, fmt.Errorf("looking up the descriptors of %s: %w", d.INI.Path, err)
	}
	for k, i := range leafIdx {
		if derrs[k] == nil {
			out[i].Desc = descs[k]
		}
	}
	instances := map[pmapi.InDom]*indomInstances{}
	for i := range out {
		sm := &out[i]
		if !sm.Known || !sm.Leaf {
			continue
		}
		findings = append(findings, d.checkInstances(ctx, src, sm, i, instances)...)
		findings = append(findings, d.checkUnit(*sm, i)...)
	}
	return findings, out, nil
}

// specsToLookUp are the specs, and the indexes of those whose metric
// pmrep looks up: not a misspelt spec word's, nor one whose formula's
// syntax error stops the run first.
func (d *Doc) specsToLookUp() (out []SpecMetric, ask []int) {
	out = make([]SpecMetric, len(d.Specs))
	for i, sp := range d.Specs {
		out[i].Spec = sp
		if sp.keyProblem {
			continue
		}
		if def := sp.Formula; def != nil && !def.Registered && d.registeredFormula(sp) == nil {
			continue // the syntax error stops the run first
		}
		ask = append(ask, i)
	}
	return out, ask
}

// lookUp looks the asked specs' metrics up, and the names of the rejected
// formulas: one whose name is a metric already is never registered
// (pmconfig looks the name up first), which a finding says.
func (d *Doc) lookUp(ctx context.Context, src pmclient.Source, specs []SpecMetric, ask []int) ([]pmapi.PMID, []error, []Finding, error) {
	names := make([]string, 0, len(ask))
	for _, i := range ask {
		names = append(names, specs[i].Spec.Metric)
	}
	var rejected []*grammar.Definition
	for _, def := range d.File.Definitions.All() {
		if !def.Verdict.OK && d.regs[def] != nil {
			rejected = append(rejected, def)
			names = append(names, def.Name)
		}
	}
	pmids, errs, err := src.LookupNames(ctx, names)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("looking up the metrics of %s: %w", d.INI.Path, err)
	}
	var findings []Finding
	for k, def := range rejected {
		if errs[len(ask)+k] == nil {
			findings = append(findings, Finding{Diagnostic: grammar.Diagnostic{Range: def.NameRange, Severity: grammar.SeverityWarning, Code: codes.SpecIgnored,
				Message: fmt.Sprintf("%s is a metric of %s already: pmrep skips this formula without registering it (its syntax error is never seen) and shows the real metric", def.Name, src.Describe())},
				Section: d.sectionScope(d.regs[def]), Masks: def})
		}
	}
	return pmids[:len(ask)], errs[:len(ask)], findings, nil
}

// formulaVerdict is what the checker's verdict m on def, the formula of
// metric (the i-th metric pmconfig looks up, in the runs of scope),
// makes of it: valid (sm, when not nil, gets its metadata; known), or a
// silent finding with what the tool prints (the checker reported why).
// found is false without a verdict.
func (d *Doc) formulaVerdict(metric, scope string, i int, def *grammar.Definition, m *checker.Metric, sm *SpecMetric) (f Finding, known, found bool) {
	switch {
	case m == nil:
		return Finding{}, false, false
	case m.Status == checker.Valid || m.Status == checker.Masked:
		if sm != nil {
			sm.Known, sm.Leaf, sm.Desc = true, true, m.Desc
		}
		return Finding{}, true, true
	}
	// The checker reported why; the tool names the metric only.
	var lines []string
	switch {
	case m.Status == checker.SemanticError:
		lines = append(lines, fmt.Sprintf("Semantic error: derived metric %s: %s: %s", def.Name, m.Rendering(), m.Message()))
	case m.Status == checker.Unbound && d.reportsAllUnknown() && len(m.Unknown()) > 0:
		lines = append(lines, fmt.Sprintf("Semantic error: derived metric %s: operand %s: Unknown operand metric", def.Name, m.Unknown()[0]))
	}
	lines = append(lines, d.invalidMetric(metric))
	return Finding{Diagnostic: grammar.Diagnostic{Range: def.NameRange}, Section: scope,
		Phase: PhaseLookup, Fatal: true, Order: i, Tool: lines, Silent: true, Accumulate: d.reportsAllUnknown()}, false, true
}

// checkColumns is what pcp-dstat meets when pmconfig looks its plugins'
// columns up (each a derived metric dstat.PLUGIN.COLUMN, in file
// order): one the checker refused stops it as it stops pmrep, naming
// the column's metric, and so does one whose instances the source
// refuses (pmconfig lists every metric's instances).
func (d *Doc) checkColumns(ctx context.Context, src pmclient.Source, rep *checker.Report) ([]Finding, error) {
	if rep == nil {
		return nil, nil
	}
	formulas := map[*grammar.Definition]*checker.Metric{}
	for _, m := range rep.Metrics.All() {
		formulas[m.Def] = m
	}
	refused := map[pmapi.InDom]pmclient.Error{}
	shown := map[pmapi.InDom]bool{} // a finding shows the refusal
	var out []Finding
	for i, def := range d.File.Definitions.All() {
		plugin, ok := d.columns[def]
		if !ok || !def.Registered {
			continue // a syntax error stops the run when it registers
		}
		m := formulas[def]
		f, known, found := d.formulaVerdict(def.Name, plugin, i, def, m, nil)
		switch {
		case found && !known:
			out = append(out, f)
		case found && m.Desc.InDom != pmapi.InDomNull:
			pe, seen := refused[m.Desc.InDom]
			if !seen {
				_, err := src.Instances(ctx, m.Desc.InDom)
				if err != nil && !errors.As(err, &pe) {
					return nil, fmt.Errorf("listing the instances of %s: %w", def.Name, err)
				}
				if pe == pmclient.ErrUnknownInDom {
					pe = 0
				}
				refused[m.Desc.InDom] = pe
			}
			if pe != 0 {
				tool := []string{fmt.Sprintf("%s metric %s (%s %s).", d.incompatibleWord(), def.Name, pe.Name(), pe.Error())}
				out = append(out, Finding{Diagnostic: grammar.Diagnostic{Range: def.NameRange, Severity: grammar.SeverityWarning, Code: codes.SpecInstances,
					Message: fmt.Sprintf("%s refuses the instances of %s (%s): pcp-dstat stops there unless it is allowed them (a local: context with credentials)", src.Describe(), def.Name, pe.Error()), PCP: tool},
					Section: plugin, Phase: PhaseLookup, Fatal: true, Order: i, Tool: tool, Silent: shown[m.Desc.InDom]})
				shown[m.Desc.InDom] = true
			}
		}
	}
	return out, nil
}

// ownDefinition says whether def is one of the file's own (a derived
// option's item).
func (d *Doc) ownDefinition(def *grammar.Definition) bool {
	for _, x := range d.File.Definitions.All() {
		if x == def {
			return true
		}
	}
	return false
}

// registeredFormula is the definition pmrep uses for sp's metric: its own
// formula, or the earlier one of the same name its own gave way to.
func (d *Doc) registeredFormula(sp *Spec) *grammar.Definition {
	if sp.Formula != nil && sp.Formula.Registered {
		return sp.Formula
	}
	if sp.Formula == nil {
		return nil
	}
	for _, def := range d.File.Definitions.All() {
		if def.Registered && def.Name == sp.Formula.Name {
			if other := d.regs[def]; other == nil || other.Section == sp.Section || other.Section.Name == "global" {
				return def
			}
		}
	}
	return nil
}

func (d *Doc) sectionScope(sp *Spec) string {
	if sp.Section.Name == "global" {
		return ""
	}
	return sp.Section.Name
}

func (d *Doc) invalidMetric(name string) string {
	if d.Version.AtLeast(pcpver.Version{Major: 7, Minor: 1}) {
		return fmt.Sprintf("Unknown metric %s (PM_ERR_NAME Unknown metric name).", name)
	}
	return fmt.Sprintf("Invalid metric %s (PM_ERR_NAME Unknown metric name).", name)
}

// unknownMetric is the finding for a spec whose metric does not exist:
// the compact form written the wrong way round, or a name to correct.
func (d *Doc) unknownMetric(ctx context.Context, src pmclient.Source, sp *Spec, i int, suggest func(string) []string) Finding {
	f := Finding{Diagnostic: grammar.Diagnostic{Range: d.Range(sp.MetricOff, sp.MetricEnd), Severity: grammar.SeverityError, Code: codes.SpecUnknownMetric},
		Section: d.sectionScope(sp), Phase: PhaseLookup, Fatal: true, Order: i, Tool: []string{d.invalidMetric(sp.Metric)}, Accumulate: d.reportsAllUnknown()}
	f.PCP = f.Tool
	if label, ok := sp.Fields["label"]; ok && sp.Compact {
		if _, errs, err := src.LookupNames(ctx, []string{strings.TrimSpace(label.Text)}); err == nil && errs[0] == nil {
			code := codes.SpecCompactReversed
			f.Code = code
			f.Message = fmt.Sprintf("%s is no metric, but its label %s is: the compact form is METRIC = label,instances,unit,type,width,precision", sp.Metric, label.Text)
			rest := strings.TrimPrefix(sp.Decl.Value.Text, label.Text)
			f.Fixes = []grammar.Fix{{Title: "Swap the metric and the label", Edits: []grammar.Edit{{
				Range:   d.Range(sp.Decl.KeyOff, sp.Decl.Value.End),
				NewText: strings.TrimSpace(label.Text) + " = " + sp.Key + rest}}}}
			return f
		}
	}
	f.Message = fmt.Sprintf("metric %s is not in the namespace of the metadata source: pmrep stops with \"Invalid metric\"", sp.Metric)
	if sugg := suggest(sp.Metric); len(sugg) > 0 {
		f.Message += "; did you mean " + strings.Join(sugg, ", ") + "?"
		for _, s := range sugg {
			f.Fixes = append(f.Fixes, grammar.Fix{Title: "Change to " + s, Edits: []grammar.Edit{{Range: f.Range, NewText: s}}})
		}
	}
	return f
}

// checkInstances matches the spec's instance patterns as check_metric
// does: digits match an instance whose name starts with that number, a
// plain word a process's base name, anything else an anchored regex.
func (d *Doc) checkInstances(ctx context.Context, src pmclient.Source, sm *SpecMetric, i int, cache map[pmapi.InDom]*indomInstances) []Finding {
	pats := sm.Spec.Instances
	if f, ok := sm.Spec.Fields["instances"]; ok {
		pats = []Field{f}
	}
	if sm.Desc.InDom == pmapi.InDomNull {
		return nil
	}
	// pmrep lists the instances of every metric with an instance
	// domain (pmGetInDom), filter or not: a pmcd that refuses them stops
	// it.
	entry, ok := cache[sm.Desc.InDom]
	if !ok {
		insts, err := src.Instances(ctx, sm.Desc.InDom)
		entry = &indomInstances{insts: insts}
		if errors.As(err, &entry.refused) && entry.refused == pmclient.ErrUnknownInDom {
			entry.refused = 0
		}
		cache[sm.Desc.InDom] = entry
	}
	if pe := entry.refused; pe != 0 && d.optionTrue(sm.Spec.Section, "ignore_incompat") {
		return nil // pmrep drops the metric without a word
	}
	if pe := entry.refused; pe != 0 {
		// Shown once an instance domain; every metric of it stops a run.
		f := Finding{Diagnostic: grammar.Diagnostic{Range: d.Range(sm.Spec.MetricOff, sm.Spec.MetricEnd), Severity: grammar.SeverityWarning, Code: codes.SpecInstances,
			Message: fmt.Sprintf("%s refuses the instances of %s (%s): pmrep stops there unless it is allowed them (a local: context with credentials); so do the other metrics of its instance domain", src.Describe(), sm.Spec.Metric, pe.Error())},
			Section: d.sectionScope(sm.Spec), Phase: PhaseLookup, Fatal: true, Order: i, Silent: entry.reported,
			Tool: []string{fmt.Sprintf("%s metric %s (%s %s).", d.incompatibleWord(), sm.Spec.Metric, pe.Name(), pe.Error())}}
		entry.reported = true
		return []Finding{f}
	}
	insts := entry.insts
	if len(pats) == 0 || len(insts) == 0 {
		return nil
	}
	var out []Finding
	matched := false
	for _, p := range pats {
		hit, err := matchInstances(p.Text, insts)
		if err != nil {
			f := Finding{Diagnostic: grammar.Diagnostic{Range: d.Range(p.Value.Offset(0), p.Value.End), Severity: grammar.SeverityError, Code: codes.SpecInstances,
				Message: fmt.Sprintf("instance pattern %q is not a valid regular expression: pmrep stops", p.Text)},
				Section: d.sectionScope(sm.Spec), Phase: PhaseLookup, Fatal: true, Order: i, Tool: []string{fmt.Sprintf("Invalid regex '%s': %s.", p.Text, err)}}
			out = append(out, f)
			return out
		}
		matched = matched || hit
	}
	if !matched {
		var list []string
		for _, p := range pats {
			list = append(list, p.Text)
		}
		names := make([]string, 0, 5)
		for _, in := range insts[:min(len(insts), 5)] {
			names = append(names, in.Name)
		}
		more := ""
		if len(insts) > 5 {
			more = fmt.Sprintf(" (and %d more)", len(insts)-5)
		}
		at := pats[0].Value
		out = append(out, Finding{Diagnostic: grammar.Diagnostic{Range: d.Range(at.Offset(0), pats[len(pats)-1].Value.End), Severity: grammar.SeverityWarning, Code: codes.SpecInstances,
			Message: fmt.Sprintf("%s matches none of the %d instances of %s now (%s%s): pmrep drops the metric without a word", strings.Join(list, ","), len(insts), sm.Spec.Metric, strings.Join(names, ", "), more)},
			Section: d.sectionScope(sm.Spec), Phase: PhaseLookup, Order: i, dropped: true})
	}
	return out
}

// indomInstances is what the source said of an instance domain's
// instances: the list, or the PCP error it refused them with.
type indomInstances struct {
	insts    []pmclient.Instance
	refused  pmclient.Error
	reported bool // a finding shows the refusal
}

var procWord = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// matchInstances reports whether pattern selects any of insts.
func matchInstances(pattern string, insts []pmclient.Instance) (bool, error) {
	if ascii.IsDigits(pattern) && len(insts) > 0 && ascii.IsDigits(firstWord(insts[0].Name)) {
		for _, in := range insts {
			if w := firstWord(in.Name); ascii.IsDigits(w) && trimZeros(w) == trimZeros(pattern) {
				return true, nil
			}
		}
	}
	if procWord.MatchString(pattern) && len(insts) > 0 && strings.Contains(insts[0].Name, " ") && ascii.IsDigits(firstWord(insts[0].Name)) {
		for _, in := range insts {
			if f := strings.Fields(in.Name); len(f) > 1 && procBase(f[1]) == pattern {
				return true, nil
			}
		}
	}
	re, err := regexp.Compile(`\A(?:` + pattern + `)\z`)
	if err != nil {
		return false, err
	}
	for _, in := range insts {
		if re.MatchString(in.Name) {
			return true, nil
		}
	}
	return false, nil
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func trimZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return "0"
	}
	return t
}

// procBase is get_proc_basename: the base name of a process's command
// (without a trailing ":" of kernel threads' names).
func procBase(s string) string {
	if strings.HasSuffix(s, ":") {
		s = s[:len(s)-1]
	}
	if k := strings.LastIndexByte(s, '/'); k >= 0 {
		s = s[k+1:]
	}
	return s
}

// incompatibleWord is how pmrep names a metric it found but cannot use.
func (d *Doc) incompatibleWord() string {
	if d.Version.AtLeast(pcpver.Version{Major: 7, Minor: 1}) {
		return "Incompatible"
	}
	return "Invalid"
}

// optionTrue says whether a run of section has option key set to a
// value Python finds true, as set_attr leaves it (the true and false
// words are 1 and 0, a number is itself, any other text a non-empty
// string).
func (d *Doc) optionTrue(s *Section, key string) bool {
	value, set := d.runOption(s, key)
	if !set {
		return false
	}
	if isBoolWord(value) {
		return boolValue(value) == 1
	}
	if n, ok := pyInt(value); ok {
		return n != 0
	}
	return value != ""
}

// runOption is the text of option key in a run of section s, as
// written: [options] first, then the section's own; set is false when
// neither has the key.
func (d *Doc) runOption(s *Section, key string) (value string, set bool) {
	for _, sec := range []*Section{d.INI.Section("options"), s} {
		if e := sec.Get(key); e != nil {
			if v, ok := d.value(sec, e); ok {
				value, set = v.Text, true
			}
		}
	}
	return value, set
}
