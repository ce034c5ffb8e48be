package pmconfig

import (
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// metricset reads the metric lines of section s (a metricset or
// [global]) as parse_metric_info does, and returns the registrations of
// their formulas.
func (d *Doc) metricset(s *Section, keys map[string]bool, global *Section) []pendingReg {
	header := "Failed to read configuration file '" + d.INI.Path + "':"
	scope := s.Name
	if s.Name == "global" {
		scope = ""
	}
	byKey := map[string]*Spec{}
	var order []*Spec
	var regs []pendingReg
	fatal := func(e *Entry, off, end int, code, msg string, tool string, fixes ...grammar.Fix) {
		f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: code, Message: msg, Fixes: fixes},
			Section: scope, Phase: PhaseMetrics, Fatal: true, Order: e.Line, Tool: []string{header, tool}}, off, end)
		if strings.HasPrefix(tool, "too many values") && d.Version.Less(pcpver.V6_0_3) {
			// 5.2 does not catch the ValueError.
			f.Tool = []string{"Traceback (most recent call last):", "ValueError: " + strings.TrimSuffix(tool, ".")}
		}
		f.PCP = f.Tool
	}
	for _, e := range d.entries(s) {
		if keys[e.Key] {
			continue
		}
		v, ok := d.value(s, e)
		if !ok {
			continue
		}
		if v.Text == "" && !d.Version.Less(pcpver.V6_0_3) {
			d.emptyValue(s, e, false, PhaseMetrics)
			continue
		}
		key := e.Key
		parts := strings.Split(key, ".")
		second := ""
		if len(parts) > 1 {
			second = parts[1]
		}
		compact := strings.Contains(v.Text, ",") || (len(parts) > 1 && !isSpecWord(second))
		if strings.Contains(v.Text, ",") && len(parts) > 1 && second == "formula" {
			compact = false
		}
		switch {
		case compact:
			sp := d.compactSpec(s, e, v)
			d.compactKey(sp, e, v, parts, scope, byKey[parts[0]] != nil)
			byKey[key] = sp
			order = append(order, sp)
		case len(parts) == 1:
			sp := &Spec{Section: s, Decl: e, Key: key, Metric: strings.TrimSpace(v.Text), MetricOff: v.Offset(0), MetricEnd: v.End, Fields: map[string]Field{}}
			if q := v.Text; len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
				sp.Metric = q // pmrep keeps the quotes of a metric name
			}
			if old := byKey[key]; old != nil {
				old.replaced = true
			}
			byKey[key] = sp
			order = append(order, sp)
		case len(parts) > 2:
			fatal(e, e.KeyOff, e.KeyEnd, codes.SpecKey,
				fmt.Sprintf("a key with %q second and more dots after it: pmconfig cannot split it into key and spec, and pmrep refuses the file", second),
				unpackError(d.Version, len(parts))+".")
		default:
			sp := byKey[parts[0]]
			if sp == nil {
				fatal(e, e.KeyOff, e.KeyOff+len(parts[0]), codes.SpecUndeclared,
					fmt.Sprintf("%s.%s comes before any %s = METRIC line in [%s]: pmrep refuses the file", parts[0], second, parts[0], s.Name),
					fmt.Sprintf("Undeclared metric key %s.", parts[0]))
				continue
			}
			text := v.Text
			fv := v
			if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
				text = text[1 : len(text)-1]
				fv = sub(v, 1, len(v.Text)-1)
			}
			sp.Fields[second] = Field{Entry: e, Text: text, Value: fv}
			if second == "formula" {
				regs = append(regs, d.formula(sp, e, fv, scope))
			}
		}
	}
	for _, sp := range order {
		if !sp.replaced {
			if sp.keyProblem {
				d.Findings[sp.keyFinding].Order = len(d.Specs) // met when pmrep looks it up
			}
			d.specValues(sp, len(d.Specs))
			d.Specs = append(d.Specs, sp)
		}
	}
	return regs
}

// compactKey reports the compact spec sp whose key has a dot: a spec
// word with a comma in its value (x.instances = a,b), or a misspelt spec
// word of a declared key (util.lable, when declared says util is), which
// pmrep reads as the name of a metric.
func (d *Doc) compactKey(sp *Spec, e *Entry, v Value, parts []string, scope string, declared bool) {
	if len(parts) < 2 {
		return
	}
	key, second := e.Key, parts[1]
	var f *Finding
	switch {
	case isSpecWord(second):
		// x.instances = a,b: the comma made a compact spec of a
		// metric named x.instances.
		msg := fmt.Sprintf("the comma makes this a compact spec of a metric named %q, not the %s of %s", key, second, parts[0])
		if second == "instances" {
			msg += ": write one regular expression, e.g. (a|b)"
		}
		f = d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.SpecKey, Message: msg},
			Section: scope, Phase: PhaseLookup, Fatal: true, Order: e.Line,
			Tool: []string{d.invalidMetric(key)}, Accumulate: d.reportsAllUnknown()}, v.Offset(0), v.End)
		if second == "instances" && !strings.ContainsAny(v.Text, "\"'()|") {
			alts := strings.Split(v.Text, ",")
			for i := range alts {
				alts[i] = strings.TrimSpace(alts[i])
			}
			f.Fixes = []grammar.Fix{{Title: "Match them with one regular expression", Safe: true, Edits: []grammar.Edit{{Range: d.Range(v.Offset(0), v.End), NewText: "(" + strings.Join(alts, "|") + ")"}}}}
		}
	case declared:
		// util.lable: a typo of a spec word, read as a metric.
		word := nearestSpecWord(second)
		msg := fmt.Sprintf("%q is not a spec word (%s), so pmrep reads %q as a compact spec of a metric of that name", second, strings.Join(SpecWords, " "), key)
		f = d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.SpecKey, Message: msg},
			Section: scope, Phase: PhaseLookup, Fatal: true, Order: e.Line,
			Tool: []string{d.invalidMetric(key)}, Accumulate: d.reportsAllUnknown()}, e.KeyOff, e.KeyEnd)
		if word != "" {
			at := e.KeyOff + len(parts[0]) + 1
			f.Fixes = []grammar.Fix{{Title: "Change to " + parts[0] + "." + word, Safe: true, Edits: []grammar.Edit{{Range: d.Range(at, at+len(second)), NewText: word}}}}
		}
	default:
		return
	}
	f.PCP = f.Tool
	sp.keyProblem, sp.keyFinding = true, len(d.Findings)-1
}

// specValues checks the type, width, precision and limit of a spec as
// validate_metrics reads them: once the metric is found, a width or
// precision that is not a whole number (a width below 0) stops pmrep;
// other types than raw, and every limit, are ignored.
func (d *Doc) specValues(sp *Spec, i int) {
	scope := sp.Section.Name
	if scope == "global" {
		scope = ""
	}
	for _, w := range []string{"width", "precision"} {
		f, ok := sp.Fields[w]
		if !ok || f.Text == "" {
			continue
		}
		if n, ok := pyInt(f.Text); !ok || (w == "width" && n < 0) {
			d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.SpecValue,
				Message: fmt.Sprintf("%s %q is not a whole number%s: pmrep stops once it finds %s", w, f.Text, map[bool]string{true: " of 0 or more", false: ""}[w == "width"], sp.Metric)},
				Section: scope, Phase: PhaseLookup, Fatal: true, Order: setupStep(i, stepWidth),
				Tool: []string{"Non-negative integer expected: " + sp.Metric}}, f.Value.Offset(0), f.Value.End)
		}
	}
	if f, ok := sp.Fields["type"]; ok && f.Text != "" && f.Text != "raw" {
		d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityWarning, Code: codes.SpecValue,
			Message: fmt.Sprintf("type %q means nothing to pmrep: only raw changes anything (no rate conversion); this is the default", f.Text)},
			Section: scope}, f.Value.Offset(0), f.Value.End)
	}
	if f, ok := sp.Fields["limit"]; ok && f.Text != "" {
		fix := grammar.Fix{Title: "Remove the ignored limit", Safe: true}
		if !sp.Compact {
			fix.Edits = []grammar.Edit{{Range: d.Range(f.Entry.Start, f.Entry.End), NewText: ""}}
		}
		fd := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityWarning, Code: codes.SpecIgnored,
			Message: "pmrep ignores a metric's limit (the precision overwrites it): only the limit_filter option (-8) filters values"},
			Section: scope}, f.Value.Offset(0), f.Value.End)
		if fix.Edits != nil {
			fd.Fixes = []grammar.Fix{fix}
		}
	}
}

// formula is the registration of sp's formula.
func (d *Doc) formula(sp *Spec, e *Entry, v Value, scope string) pendingReg {
	name := strings.TrimFunc(sp.Metric, IsPySpace)
	a, b := strip([]byte(v.Text), 0, len(v.Text))
	if k := strings.IndexByte(v.Text[a:b], ';'); k >= 0 {
		d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.SpecValue,
			Message: "pmconfig splits its list of derived metrics on \";\": the formula ends here, and the rest is read as another NAME=EXPR item"},
			Section: scope}, v.Offset(a+k), v.Offset(a+k+1))
		b = a + k
	}
	reg := grammar.Registration{Name: name, NameRange: d.Range(sp.MetricOff, sp.MetricEnd), Expr: v.Text[a:b], Runs: runsOf(v, a, b),
		Range: d.Range(e.Start, v.End), Line: e.Line}
	if sp.Compact {
		reg.NameRange = d.Range(sp.Decl.KeyOff, sp.Decl.KeyEnd)
	}
	return pendingReg{reg: reg, spec: sp, scope: scope}
}

// sub is v's bytes [a, b) as a value of their own.
func sub(v Value, a, b int) Value {
	out := Value{Text: v.Text[a:b], End: v.Offset(b)}
	for _, r := range runsOf(v, a, b) {
		out.Spans = append(out.Spans, Span{At: r.At, Off: r.Off})
	}
	return out
}

// compactSpec reads "metric = label,instances,unit,type,width,precision,limit"
// as parse_metric_spec_instances does.
func (d *Doc) compactSpec(s *Section, e *Entry, v Value) *Spec {
	sp := &Spec{Section: s, Decl: e, Key: e.Key, Metric: e.Key, MetricOff: e.KeyOff, MetricEnd: e.KeyEnd, Compact: true, Fields: map[string]Field{}}
	text := v.Text
	// The instances field is the second of the value (the third of
	// key,value); with quotes anywhere, the quoted stretch from it.
	fieldAt := func(i int) (int, int, bool) {
		start := 0
		for k := 0; k < i; k++ {
			c := strings.IndexByte(text[start:], ',')
			if c < 0 {
				return 0, 0, false
			}
			start += c + 1
		}
		end := strings.IndexByte(text[start:], ',')
		if end < 0 {
			end = len(text) - start
		}
		return start, start + end, true
	}
	names := []string{"label", "instances", "unit", "type", "width", "precision", "limit"}
	rest := text
	if strings.ContainsAny(text, "\"'") {
		if a, _, ok := fieldAt(1); ok && a < len(text) {
			q := text[a]
			inst := text[a:]
			if k := strings.LastIndexByte(inst, q); k >= 0 {
				inst = inst[:k+1]
			}
			quoted := len(inst) > 2 && (q == '"' || q == '\'')
			body, off := inst, a
			if quoted {
				body, off = inst[1:len(inst)-1], a+1
			}
			i := 0
			for _, pat := range strings.Split(body, ",") {
				p := strings.Trim(pat, "\"'")
				lead := strings.Index(pat, p)
				sp.Instances = append(sp.Instances, Field{Entry: e, Text: p, Value: sub(v, off+i+lead, off+i+lead+len(p))})
				i += len(pat) + 1
			}
			rest = strings.Replace(text, inst, "", 1)
			_ = rest
		}
	}
	for i, name := range names {
		if name == "instances" && sp.Instances != nil {
			continue
		}
		a, b, ok := fieldAt(i)
		if !ok || a == b {
			continue
		}
		if name == "instances" {
			sp.Instances = []Field{{Entry: e, Text: text[a:b], Value: sub(v, a, b)}}
			continue
		}
		sp.Fields[name] = Field{Entry: e, Text: text[a:b], Value: sub(v, a, b)}
	}
	return sp
}

// nearestSpecWord is the spec word one or two edits from w, "" for none.
func nearestSpecWord(w string) string {
	best, bestD := "", 3
	for _, s := range SpecWords {
		if dist := levenshtein(w, s); dist < bestD {
			best, bestD = s, dist
		}
	}
	return best
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// skipRepeated marks the registrations pmconfig skips: a name already
// registered in the run (pmLookupName succeeds) keeps the first. A run
// registers the derived option's items, then [global]'s formulas, then
// its metricset's.
func (d *Doc) skipRepeated(regs []pendingReg) {
	first := map[string]int{} // "scope\x00name" → index
	// The shared scope first, as every run registers it first.
	for pass := 0; pass < 2; pass++ {
		for i := range regs {
			r := &regs[i]
			if (r.scope == "") != (pass == 0) {
				continue
			}
			if j, ok := first["\x00"+r.reg.Name]; ok {
				d.skipped(r, regs[j])
				continue
			}
			if r.scope != "" {
				if j, ok := first[r.scope+"\x00"+r.reg.Name]; ok {
					d.skipped(r, regs[j])
					continue
				}
			}
			first[r.scope+"\x00"+r.reg.Name] = i
		}
	}
}

func (d *Doc) skipped(r *pendingReg, by pendingReg) {
	r.reg.Skip = true
	d.Findings = append(d.Findings, Finding{Diagnostic: grammar.Diagnostic{Range: r.reg.NameRange, Severity: grammar.SeverityWarning, Code: codes.SpecIgnored,
		Message: fmt.Sprintf("%s already has a formula on line %d, registered first: pmconfig looks the name up and skips this one", r.reg.Name, by.reg.Line),
		Related: []grammar.Related{{Range: by.reg.NameRange, Message: "the formula used"}}}, Section: r.scope})
}

// unpackError is Python's ValueError for "a, b = parts" of n parts, as
// the Python the release runs on words it (3.14, with PCP 7.2, adds the
// count).
func unpackError(v pcpver.Version, n int) string {
	if v.AtLeast(pcpver.Version{Major: 7, Minor: 2}) {
		return fmt.Sprintf("too many values to unpack (expected 2, got %d)", n)
	}
	return "too many values to unpack (expected 2)"
}
