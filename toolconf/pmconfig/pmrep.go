package pmconfig

import (
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"os"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// pmrepKeys are pmrep's option keys (self.keys) in every release; the
// release-dependent ones are added by optionKeys.
var pmrepKeys = strings.Fields(`source output derived header globals samples interval type precision daemonize
	timestamp unitinfo colxrow separate_header fixed_header delay width delimiter extcsv width_force
	extheader repeat_header timefmt interpol dynamic_header overall_rank overall_rank_alt sort_metric
	count_scale space_scale time_scale version count_scale_force space_scale_force time_scale_force
	type_prefer precision_force limit_filter limit_filter_force live_filter rank invert_filter predicate
	names_change speclocal instances ignore_incompat ignore_unknown omit_flat include_labels include_texts`)

// OptionKeys are pmrep's option keys in release v.
func OptionKeys(v pcpver.Version) map[string]bool {
	keys := map[string]bool{}
	for _, k := range pmrepKeys {
		keys[k] = true
	}
	if v.AtLeast(pcpver.V6_0_3) {
		keys["instinfo"] = true
	}
	if v.AtLeast(pcpver.Version{Major: 7, Minor: 1, Patch: 4}) {
		keys["csv_unitinfo"] = true
	}
	return keys
}

// SpecWords are pmconfig's metricspec words, in their order.
var SpecWords = []string{"label", "instances", "unit", "type", "width", "precision", "limit", "formula"}

func isSpecWord(w string) bool {
	for _, s := range SpecWords {
		if s == w {
			return true
		}
	}
	return false
}

// Field is one spec of a metric: where its text is.
type Field struct {
	Entry *Entry // the line it is on
	Text  string
	Value Value // its text with the map to the file
}

// Spec is one metric of a section: a compact line or a verbose
// declaration with its spec lines.
type Spec struct {
	Section *Section
	Decl    *Entry // the compact line, or "key = metric"
	Key     string
	// Metric is the metric's name: the key of a compact line, the value
	// of a verbose declaration; MetricOff and MetricEnd are where it is.
	Metric               string
	MetricOff, MetricEnd int
	Compact              bool
	// Fields by spec word (label, instances, unit, type, width,
	// precision, limit, formula); Instances holds each pattern of a
	// compact line's quoted list.
	Fields    map[string]Field
	Instances []Field
	// Formula is the definition pmrep registers for it, nil for none.
	Formula *grammar.Definition
	// replaced: a later declaration of the key in the section replaced
	// it; keyProblem: its key is a misspelt spec (a finding says so).
	replaced, keyProblem bool
	keyFinding           int // the index in Doc.Findings of keyProblem's finding
}

// pyInt is Python's int() of a string: white space around, a sign,
// digits with single underscores between them.
func pyInt(s string) (int, bool) {
	s = strings.TrimFunc(s, IsPySpace)
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	return n, err == nil
}

// readPmrep reads the sections as pmrep does, run with every metricset.
func (d *Doc) readPmrep() []pendingReg {
	keys := OptionKeys(d.Version)
	path := d.INI.Path
	header := "Failed to read configuration file '" + path + "':"
	empty52 := d.Version.Less(pcpver.V6_0_3)
	var regs []pendingReg
	// The interpolation of every value: 6.0+ copies every section with
	// items(), so one bad "%" anywhere stops every run.
	sections := append([]*Section(nil), d.INI.Sections...)
	if d.INI.Default != nil {
		sections = append(sections, d.INI.Default)
	}
	for _, s := range sections {
		for _, e := range s.Entries {
			if _, err := d.INI.Interpolate(s, e); err != nil {
				scope := s.Name
				if !d.Version.Less(pcpver.V6_0_3) || s.Name == "options" || s.Name == "global" || s.Name == "DEFAULT" {
					scope = ""
				}
				f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.INIInterpolation, Message: err.Message},
					Section: scope, Phase: PhaseMetrics, Fatal: true, Order: e.Line,
					Tool: []string{"Traceback (most recent call last):", "configparser." + err.Class + ": " + err.Python}}, err.Off, err.End)
				f.PCP = f.Tool
				if err.Doubled {
					f.Fixes = []grammar.Fix{{Title: "Write % as %%", Safe: true, Edits: []grammar.Edit{{Range: d.Range(err.Off, err.Off+1), NewText: "%%"}}}}
				}
			}
		}
	}
	if d.INI.Default != nil {
		for _, e := range d.INI.Default.Entries {
			if !keys[e.Key] {
				d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityWarning, Code: codes.PmrepOption,
					Message: fmt.Sprintf("[DEFAULT] puts %q in every section: it becomes a metric spec of every metricset and an unknown option of [options]", e.Key)}}, e.KeyOff, e.KeyEnd)
			}
		}
	}
	for _, s := range d.INI.Sections {
		switch s.Name {
		case "options":
			for _, e := range d.entries(s) {
				v, ok := d.value(s, e)
				if !ok {
					continue
				}
				switch {
				case !keys[e.Key]:
					f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.PmrepOption,
						Message: fmt.Sprintf("%q is not a pmrep %s option: pmrep refuses the file", e.Key, d.Version)},
						Phase: PhaseOptions, Fatal: true, Order: e.Line,
						Tool: []string{header, fmt.Sprintf("Unknown option %s in [options].", e.Key)}}, e.KeyOff, e.KeyEnd)
					f.PCP = f.Tool
					if empty52 {
						f.PCP, f.Tool = f.Tool[1:], f.Tool[1:]
					}
				case v.Text == "" && !empty52:
					d.emptyValue(s, e, true, PhaseOptions)
				default:
					regs = append(regs, d.optionValue(s, e, v)...)
				}
			}
		case "global":
			for _, e := range d.entries(s) {
				if keys[e.Key] {
					msg := "Section [global] contains options."
					if empty52 {
						msg = "No options allowed in [global] section."
					}
					f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.PmrepOption,
						Message: fmt.Sprintf("%q is an option key: [global] may hold metric specs only, and pmrep refuses the file", e.Key)},
						Phase: PhaseMetrics, Fatal: true, Order: e.Line, Tool: []string{header, msg}}, e.KeyOff, e.KeyEnd)
					f.PCP = f.Tool
				}
			}
			regs = append(regs, d.metricset(s, keys, nil)...)
		default:
			for _, e := range d.entries(s) {
				if !keys[e.Key] {
					continue
				}
				v, ok := d.value(s, e)
				switch {
				case !ok:
				case v.Text == "" && !empty52:
					d.emptyValue(s, e, true, PhaseOptions)
				default:
					regs = append(regs, d.optionValue(s, e, v)...)
				}
			}
			regs = append(regs, d.metricset(s, keys, d.INI.Section("global"))...)
		}
	}
	d.skipRepeated(regs)
	return regs
}

// emptyValue reports a key with no value (6.0+ refuses it).
func (d *Doc) emptyValue(s *Section, e *Entry, option bool, phase Phase) {
	msg := fmt.Sprintf("No value set for %s in [%s].", e.Key, s.Name)
	if option {
		msg = fmt.Sprintf("No value set for option %s in [%s].", e.Key, s.Name)
	}
	scope := s.Name
	if s.Name == "options" || s.Name == "global" {
		scope = ""
	}
	f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.PmrepEmptyValue,
		Message: fmt.Sprintf("%s has no value: pmrep %s refuses the file", e.Key, d.Version)},
		Section: scope, Phase: phase, Fatal: true, Order: e.Line,
		Tool: []string{"Failed to read configuration file '" + d.INI.Path + "':", msg}}, e.KeyOff, e.KeyEnd)
	f.PCP = f.Tool
}

// optionValue checks an option's value where pmrep has rules for it,
// and returns the registrations of a derived option.
func (d *Doc) optionValue(s *Section, e *Entry, v Value) []pendingReg {
	scope := s.Name
	if s.Name == "options" {
		scope = ""
	}
	text := v.Text
	bad := func(sev grammar.Severity, msg string, fatal bool, tool ...string) {
		f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: sev, Code: codes.PmrepOption, Message: msg},
			Section: scope, Phase: PhaseValidate, Fatal: fatal, Order: e.Line, Tool: tool}, v.Offset(0), v.End)
		f.PCP = tool
	}
	unq := text
	if len(unq) >= 2 && unq[0] == '"' && unq[len(unq)-1] == '"' {
		unq = unq[1 : len(unq)-1]
	}
	switch e.Key {
	case "derived":
		return d.derivedOption(s, e, v)
	case "version":
		if n, ok := pyInt(text); !ok || n != 1 {
			bad(grammar.SeverityError, "pmrep knows config version 1 only", true,
				fmt.Sprintf("Incompatible configuration file version (read v%s, need v1).", unq))
		}
	case "output":
		if text != "stdout" && text != "csv" && text != "archive" {
			bad(grammar.SeverityError, "output is stdout, csv or archive", true, "Error while parsing options: Invalid output target specified.")
		}
	case "rank", "limit_filter", "limit_filter_force":
		if _, ok := pyInt(text); !ok && !isBoolWord(text) {
			bad(grammar.SeverityError, e.Key+" takes an integer", true, fmt.Sprintf("Error while reading option %s: Integer expected.", e.Key))
		}
	case "width", "width_force", "precision", "precision_force":
		n, ok := pyInt(text)
		if isBoolWord(text) {
			n, ok = boolValue(text), true
		}
		if !ok || n < 0 {
			prefix := "Error while reading option " + e.Key + ": "
			if d.Version.Less(pcpver.V6_0_3) {
				prefix = "Error while parsing options: "
			}
			msg := e.Key + " takes an integer of 0 or more"
			if strings.ContainsAny(text, "#;") {
				msg += " (a comment after a value is part of the value: configparser has no inline comments)"
			}
			bad(grammar.SeverityError, msg, true, prefix+"Non-negative integer expected.")
		}
	case "repeat_header":
		if n, ok := pyInt(text); text != "auto" && (!ok || n < 0) && !isBoolWord(text) {
			bad(grammar.SeverityError, "repeat_header takes auto or an integer of 0 or more", true, "Error while reading option repeat_header: Non-negative integer expected.")
		}
	case "type", "type_prefer":
		if text != "raw" && text != "default" && text != "rate" {
			bad(grammar.SeverityWarning, fmt.Sprintf("%s = %s is the default (rate conversion): pmrep only knows raw", e.Key, text), false)
		}
	case "header", "instinfo", "unitinfo", "csv_unitinfo", "globals", "timestamp", "delay", "daemonize", "ignore_incompat",
		"ignore_unknown", "live_filter", "overall_rank", "overall_rank_alt", "invert_filter", "omit_flat", "include_labels",
		"include_texts", "extcsv", "extheader", "fixed_header", "dynamic_header", "separate_header", "interpol":
		if !isBoolWord(text) {
			if _, ok := pyInt(text); !ok {
				bad(grammar.SeverityWarning, fmt.Sprintf("%q is neither a true nor a false word to pmrep (true True y yes Yes / false False n no No): it compares with 1, so this is off", text), false)
			}
		}
	}
	return nil
}

func isBoolWord(s string) bool {
	switch s {
	case "true", "True", "y", "yes", "Yes", "false", "False", "n", "no", "No":
		return true
	}
	return false
}

func boolValue(s string) int {
	switch s {
	case "true", "True", "y", "yes", "Yes":
		return 1
	}
	return 0
}

// derivedOption reads a derived option as set_attr and validate_metrics
// do: split on ";" (or on "," when it has no ";"); an item starting with
// "/" or "." is a file, any other NAME=EXPR.
func (d *Doc) derivedOption(s *Section, e *Entry, v Value) []pendingReg {
	scope := s.Name
	if s.Name == "options" {
		scope = ""
	}
	sep := byte(';')
	if strings.IndexByte(v.Text, ';') < 0 {
		sep = ','
	}
	var regs []pendingReg
	start := 0
	for i := 0; i <= len(v.Text); i++ {
		if i < len(v.Text) && v.Text[i] != sep {
			continue
		}
		item := v.Text[start:i]
		a := start
		start = i + 1
		if item == "" {
			continue
		}
		if item[0] == '/' || item[0] == '.' {
			d.DerivedFiles = append(d.DerivedFiles, item)
			if item[0] == '/' {
				if st, err := os.Stat(item); err != nil || !st.Mode().IsRegular() {
					why := "No such file or directory"
					if err == nil {
						why = "Not a regular file"
					} else if os.IsPermission(err) {
						why = "Permission denied"
					}
					f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.DerivedOption,
						Message: fmt.Sprintf("derived config %s cannot be loaded here (%s): pmrep stops", item, strings.ToLower(why))},
						Section: scope, Phase: PhaseRegister, Fatal: true, Order: 0,
						Tool: []string{"Failed to load derived metric definitions from file '" + item + "':", why + "."}}, v.Offset(a), v.Offset(i))
					f.PCP = f.Tool
				}
			}
			continue
		}
		eq := strings.IndexByte(item, '=')
		if eq < 0 {
			f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: codes.DerivedOption,
				Message: fmt.Sprintf("%q is neither a file (starting with / or .) nor NAME=EXPR: pmrep stops", item)},
				Section: scope, Phase: PhaseRegister, Fatal: true,
				Tool: []string{"Failed to register derived metric:", "Invalid syntax (expected metric=expression)."}}, v.Offset(a), v.Offset(i))
			f.PCP = f.Tool
			continue
		}
		na, nb := trimPy(item, 0, eq)
		ea, eb := trimPy(item, eq+1, len(item))
		reg := grammar.Registration{Name: item[na:nb], NameRange: d.Range(v.Offset(a+na), v.Offset(a+nb)),
			Expr: item[ea:eb], Runs: runsOf(v, a+ea, a+eb), Range: d.Range(v.Offset(a), v.Offset(i)), Line: e.Line}
		regs = append(regs, pendingReg{reg: reg, scope: scope})
		if sep == ',' && strings.Contains(v.Text, "(") {
			d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityWarning, Code: codes.DerivedOption,
				Message: "with no \";\" in it, pmrep turns every \",\" of derived into \";\": an expression with a \",\" is cut there (end the list with \";\" to keep commas)"},
				Section: scope}, v.Offset(0), v.End)
		}
	}
	return regs
}

// trimPy is the bounds of s[a:b] stripped of Python white space.
func trimPy(s string, a, b int) (int, int) {
	x, y := strip([]byte(s), a, b)
	return x, y
}

// runsOf maps value bytes [a, b) to the file.
func runsOf(v Value, a, b int) []grammar.ExprRun {
	var out []grammar.ExprRun
	for k, sp := range v.Spans {
		end := len(v.Text)
		if k+1 < len(v.Spans) {
			end = v.Spans[k+1].At
		}
		lo, hi := max(sp.At, a), min(end, b)
		if lo >= hi {
			continue
		}
		out = append(out, grammar.ExprRun{At: lo - a, Off: sp.Off + lo - sp.At})
	}
	if len(out) == 0 {
		out = []grammar.ExprRun{{At: 0, Off: v.Offset(a)}}
	}
	return out
}
