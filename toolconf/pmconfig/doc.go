package pmconfig

import (
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Tool is the program that reads a file.
type Tool int

const (
	// Pmrep is pmrep (and the pcp2* exporters): pmconfig with
	// interpolation, [options], [global] and metricsets.
	Pmrep Tool = iota
	// Dstat is pcp-dstat: plugins of columns, no interpolation.
	Dstat
)

func (t Tool) String() string { return [...]string{"pmrep", "pcp-dstat"}[t] }

// Phase is when in a run the tool meets a problem: it stops at the first
// fatal one, so the earliest phase is what a user sees.
type Phase int

const (
	PhaseRead     Phase = iota // configparser reading the file
	PhaseOptions               // read_options: [options] and a set's option keys
	PhaseMetrics               // prepare_metrics: interpolation, specs
	PhaseValidate              // validate_config: option values
	PhaseRegister              // derived items and formulas registered
	PhaseLookup                // metrics looked up and set up, in spec order
)

// Finding is a problem of the file with what the tool does about it.
type Finding struct {
	grammar.Diagnostic
	// Section is the metricset it belongs to ("" for all of them: the
	// file, [options], [global], [DEFAULT]).
	Section string
	Phase   Phase
	// Fatal: the tool stops there (when the section is run); Tool is
	// what it prints then.
	Fatal bool
	Tool  []string
	// Order sorts fatal findings of one phase as the tool meets them.
	Order int
	// Silent: what the tool prints about a problem another finding
	// reports already (a formula the checker refused), kept for the
	// run's outcome only; dropped: the metric leaves the run silently.
	Silent, dropped bool
	// Masks is a formula pmconfig never registers because its name is
	// a metric already (pmLookupName succeeds): libpcp's verdict on it,
	// a syntax error included, is never seen.
	Masks *grammar.Definition
	// Accumulate: a metric pmrep 7.1+ cannot find, which it reports and
	// goes on to the next, stopping once it has looked up every one.
	Accumulate bool
}

// reportsAllUnknown says whether the release's pmrep lists every
// unknown metric before it stops (7.1+), not only the first.
func (d *Doc) reportsAllUnknown() bool { return d.Version.AtLeast(pcpver.Version{Major: 7, Minor: 1}) }

// Options say which tool reads the file, as which release.
type Options struct {
	Tool    Tool
	Version pcpver.Version
	// Defined are the derived metrics libpcp has before the tool
	// registers any (its automatic load of $PCP_DERIVED_CONFIG), by
	// name, with the path of the file that defines each: pmconfig
	// looks a formula's name up first and skips it when it exists.
	Defined map[string]string
}

// Doc is one file as its tool reads it.
type Doc struct {
	Tool    Tool
	Version pcpver.Version
	INI     *INI
	// File holds the file's text and the derived metrics the tool
	// registers from it (grammar.Registered), for the analysis pipeline.
	File *grammar.File
	// Specs are the metric specs of every section, in file order.
	Specs []*Spec
	// Findings are the problems the reading found, without metadata.
	Findings []Finding
	// DerivedFiles are the derived config files the derived options name
	// (items starting with "/" or "."), as written, in file order.
	DerivedFiles []string
	// Registrations maps each formula's definition to its spec.
	regs map[*grammar.Definition]*Spec
	pos  *grammar.File // positions of the text
	// values are the interpolated values, by entry.
	values map[*Entry]Value
	// columns are pcp-dstat's column metrics, each with its plugin.
	columns map[*grammar.Definition]string
}

// Range is the file range of bytes [off, end).
func (d *Doc) Range(off, end int) grammar.Range {
	return grammar.Range{Start: d.pos.Pos(off), End: d.pos.Pos(end)}
}

// SpecOf is the spec whose formula d is, nil for another definition (a
// derived option's item).
func (d *Doc) SpecOf(def *grammar.Definition) *Spec { return d.regs[def] }

// Read reads a file of the tool's. text must not change afterwards.
func Read(path string, text *grammar.Text, opts Options) *Doc {
	ini := ReadINI(path, text.Bytes())
	d := &Doc{Tool: opts.Tool, Version: opts.Version, INI: ini, pos: &grammar.File{Text: text}, values: map[*Entry]Value{}, regs: map[*grammar.Definition]*Spec{}, columns: map[*grammar.Definition]string{}}
	for _, p := range ini.Problems {
		d.problem(p)
	}
	var regs []pendingReg
	switch opts.Tool {
	case Dstat:
		regs = d.readDstat()
	default:
		regs = d.readPmrep()
	}
	for i := range regs {
		r := &regs[i]
		if file, ok := opts.Defined[r.reg.Name]; ok && !r.reg.Skip {
			r.reg.Skip = true
			d.Findings = append(d.Findings, Finding{Diagnostic: grammar.Diagnostic{Range: r.reg.NameRange, Severity: grammar.SeverityWarning, Code: codes.SpecIgnored,
				Message: fmt.Sprintf("%s is already a derived metric libpcp loaded from %s before %s registers anything: this formula is skipped and that one used", r.reg.Name, file, opts.Tool)},
				Section: r.scope})
		}
	}
	sort.SliceStable(regs, func(i, j int) bool { return regs[i].reg.Range.Start.Before(regs[j].reg.Range.Start) })
	var list []grammar.Registration
	for _, r := range regs {
		list = append(list, r.reg)
	}
	var diags []grammar.Diagnostic
	for _, f := range d.Findings {
		diags = append(diags, f.Diagnostic)
	}
	tool := opts.Tool
	d.File = grammar.Registered(path, text, list, diags, grammar.RegisterOptions{Version: opts.Version,
		PCP: func(name string, lines []string) []string { return registerFailure(tool, opts.Version, lines) }})
	for i, def := range d.File.Definitions.All() {
		if s := regs[i].spec; s != nil {
			d.regs[def] = s
			s.Formula = def
		}
		if opts.Tool == Dstat {
			d.columns[def] = regs[i].scope
		}
	}
	// The registrations libpcp refuses, for the run's outcome (the
	// File's own findings show them): derived items and [global]'s
	// formulas first, then the set's, as pmconfig registers them.
	for _, x := range d.File.Diagnostics {
		if x.Code != codes.Syntax && x.Code != codes.Dialect {
			continue
		}
		def := d.File.DefinitionAtPos(x.Range.Start)
		for i, r := range regs {
			if d.File.Definitions.At(i) == def {
				order := r.reg.Line
				if r.scope != "" {
					order += 1 << 30
				}
				d.Findings = append(d.Findings, Finding{Diagnostic: x, Section: r.scope, Phase: PhaseRegister, Fatal: true, Order: order, Tool: x.PCP, Silent: true})
			}
		}
	}
	return d
}

// Outcome is what the tool prints when run with the metricset section
// of run (a file's findings as the tool meets them: analysis.File.ToolRun):
// the lines of the first problem that stops it, nil when none does.
func Outcome(run []Finding, section string) []string {
	var fatal []*Finding
	for i := range run {
		f := &run[i]
		if f.Fatal && (f.Section == "" || f.Section == section) {
			fatal = append(fatal, f)
		}
	}
	sort.SliceStable(fatal, func(i, j int) bool {
		a, b := fatal[i], fatal[j]
		return a.Phase < b.Phase || a.Phase == b.Phase && a.Order < b.Order
	})
	var listed []string
	for _, f := range fatal {
		switch {
		case f.Accumulate:
			listed = append(listed, f.Tool...)
			continue
		case listed != nil && (f.Phase > PhaseLookup || f.Order >= setupOrder):
			return listed // every metric looked up: pmrep stops
		}
		return append(listed, f.Tool...)
	}
	return listed
}

// SameOutcome says whether a tool's run (its stderr and exit status)
// ended as predicted (Outcome's lines): both clean, or stopped with the
// same last line; a formula's message (pmconfig's "Failed to register
// derived metric:") whole. The oracle tests of pmrep and pcp-dstat
// compare with it.
func SameOutcome(stderr string, status int, want []string) bool {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if status == 0 {
		return len(want) == 0
	}
	if len(want) == 0 {
		return false
	}
	if want[0] == "Failed to register derived metric:" {
		return strings.Join(lines, "\n") == strings.Join(want, "\n")
	}
	return lines[len(lines)-1] == want[len(want)-1]
}

// setupOrder is where the Order of the findings about setting a found
// metric up (its unit, width) starts: after every metric is looked up
// (far above any count of specs a file can hold).
const setupOrder = 1 << 40

// The steps of setting one metric up, in validate_metrics' order: its
// unit parsed, its width and precision read, its fetchgroup item added
// (where the unit must convert from the metric's).
const (
	stepUnit = iota
	stepWidth
	stepConvert
	steps
)

// setupStep is the Order of step in setting up the i-th spec: pmrep sets
// each metric up whole before the next.
func setupStep(i, step int) int { return setupOrder + steps*i + step }

// registerFailure is what pmconfig prints around libpcp's message for a
// rejected expression.
func registerFailure(tool Tool, v pcpver.Version, lines []string) []string {
	const conv = "Impossible value or scale conversion "
	if v.Less(pcpver.V6_0_3) {
		out := []string{"Failed to register derived metric: " + conv + lines[0]}
		return append(append(out, lines[1:]...), ".")
	}
	out := []string{"Failed to register derived metric:", conv + lines[0]}
	out = append(out, lines[1:]...)
	if v.Less(pcpver.Version{Major: 7, Minor: 1}) {
		out = append(out, ".")
	}
	return out
}

type pendingReg struct {
	reg  grammar.Registration
	spec *Spec
	// scope is the metricset whose runs register it, "" for every run.
	scope string
}

// add records a finding at file bytes [off, end).
func (d *Doc) add(f Finding, off, end int) *Finding {
	f.Range = d.Range(off, end)
	d.Findings = append(d.Findings, f)
	return &d.Findings[len(d.Findings)-1]
}

// problem turns configparser's refusal into a finding.
func (d *Doc) problem(p Problem) {
	f := Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: p.Code, Message: p.Message}, Phase: PhaseRead, Fatal: p.Fatal || p.Code == codes.INISyntax, Order: p.Line}
	if d.Tool == Dstat {
		f.Message += "; pcp-dstat then fails with a traceback whatever plugin is asked for"
	}
	switch {
	case p.Code == codes.INIEncoding:
		f.Tool = []string{"Traceback (most recent call last):", "UnicodeDecodeError: " + p.Python}
	case p.Code == codes.INISyntax && strings.HasPrefix(p.Python, "\t[line") && d.Version.Less(pcpver.V6_0_3):
		// 5.2's handler asks the ParsingError for a line number it has not.
		f.Tool = []string{"Traceback (most recent call last):", "configparser.ParsingError: Source contains parsing errors: " + PyRepr(d.INI.Path),
			strings.TrimSuffix(p.Python, "\n"), "AttributeError: 'ParsingError' object has no attribute 'lineno'"}
	case p.Code == codes.INISyntax && strings.HasPrefix(p.Python, "\t[line"):
		f.Tool = []string{fmt.Sprintf("Failed to read configuration file '%s', line %d:", d.INI.Path, p.Line),
			"Source contains parsing errors: " + PyRepr(d.INI.Path), strings.TrimSuffix(p.Python, "\n")}
	case p.Python != "":
		f.Tool = append([]string{fmt.Sprintf("Failed to read configuration file '%s', line %d:", d.INI.Path, p.Line)}, strings.Split(p.Python, "\n")...)
	}
	if d.Tool == Dstat && p.Python != "" {
		f.Tool = []string{"Traceback (most recent call last):", p.Python, "TypeError: 'str' object is not callable"}
	}
	f.PCP = f.Tool
	d.add(f, p.Off, p.End)
}

// value is the entry's value as the tool gets it (interpolated for
// pmrep), false when interpolation fails (a finding says so).
func (d *Doc) value(s *Section, e *Entry) (Value, bool) {
	if v, ok := d.values[e]; ok {
		return v, true
	}
	if d.Tool == Dstat {
		return e.Value, true
	}
	v, err := d.INI.Interpolate(s, e)
	if err != nil {
		return Value{}, false
	}
	d.values[e] = v
	return v, true
}

// entries are a section's keys as configparser's items() lists them:
// [DEFAULT]'s first (each overridden in place by the section's own),
// then the section's others.
func (d *Doc) entries(s *Section) []*Entry {
	def := d.INI.Default
	if def == nil || s == def {
		return s.Entries
	}
	out := make([]*Entry, 0, len(def.Entries)+len(s.Entries))
	for _, e := range def.Entries {
		if own := s.Get(e.Key); own != nil {
			out = append(out, own)
		} else {
			out = append(out, e)
		}
	}
	for _, e := range s.Entries {
		if def.Get(e.Key) == nil {
			out = append(out, e)
		}
	}
	return out
}
