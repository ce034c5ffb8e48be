package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

// exprName is the name explain -e gives the expression, so it loads as a
// definition of its own after the configs (they may define what it uses).
const exprName = "expr"

func runExplain(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "explain", "[flags] CONFIG NAME | [flags] -e EXPR [CONFIG...]",
		"Evaluates one derived metric as libpcp would and prints its expression as a\n"+
			"tree: every subexpression with its metadata, its values and what it computes\n"+
			"in plain words. Where values vanish, the node says why (an operand with no\n"+
			"values, a matchinst pattern matching nothing, operands sharing no instance, a\n"+
			"counter with one sample, a guard that chose novalue()), and the nodes above\n"+
			"point at it. delta() and rate() take two samples -t apart (from an archive,\n"+
			"the record explained and the one before). Exit status: 0 the metric has\n"+
			"values, 1 it has none (explained), 2 usage, syntax or source errors. In a\n"+
			"pmrep or pcp-dstat file, NAME may be SECTION:KEY, a spec.")
	var o explainFlags
	o.register(fs)
	operands, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	usage := func(msg string, a ...any) int {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp explain: "+msg+"\n", a...)
		return ExitUsage
	}
	exprGiven := false
	fs.Visit(func(f *flag.Flag) { exprGiven = exprGiven || f.Name == "e" })
	paths, name, msg := explainOperands(operands, o.expr, exprGiven)
	switch {
	case msg != "":
		return usage("%s", msg)
	case name == "":
		fs.Usage()
		return ExitUsage
	}
	kind, ok := o.kind.resolve(env, "explain")
	if !ok {
		return ExitUsage
	}
	if o.format != "text" && o.format != "json" {
		return usage("--format %q: want text or json", o.format)
	}
	if o.start != "" && o.src.spec.Archive == "" {
		return usage("--start needs --archive (live values are sampled now)")
	}
	interval := o.interval
	source, err := o.src.open(ctx, env)
	if err != nil {
		return usage("%v", err)
	}
	if c, ok := source.(interface{ Close() error }); ok {
		defer c.Close()
	}
	choice, vok := o.version.resolve(ctx, env, "explain", source)
	if !vok {
		return ExitUsage
	}
	target, status := o.target(ctx, env, source, choice.Version, paths, name, kind, exprGiven)
	if status != ExitOK {
		return status
	}
	opts := explain.Options{Interval: interval}
	if o.start != "" {
		start, err := archiveTime(source, o.start)
		if err != nil {
			return usage("--start: %v", err)
		}
		opts.Start = start
	}
	x, err := explain.Explain(ctx, source, target, opts)
	if err != nil {
		return usage("%v", err)
	}
	return writeExplanation(env, x, o.format, o.maxInstances)
}

// explainFlags are explain's flags.
type explainFlags struct {
	version             versionFlag
	expr, start, format string
	interval            time.Duration
	maxInstances        int
	kind                kindFlag
	src                 sourceFlags
}

func (o *explainFlags) register(fs *flag.FlagSet) {
	o.version.register(fs)
	fs.StringVar(&o.expr, "e", "", "explain `EXPR`, an expression given alone (CONFIGs after it may define metrics it uses)")
	o.interval = time.Second
	for _, name := range []string{"t", "interval"} {
		durationFlag(fs, name, "time between the two live samples delta() and rate() need, in PCP's `INTERVAL` syntax (default 1sec)", &o.interval)
	}
	fs.StringVar(&o.start, "start", "", "from an archive, explain the first record at or after `TIME`: \"2026-01-02 15:04:05\", \"15:04:05\" (the archive's first day), RFC 3339, or +INTERVAL after the archive's start (default its first record)")
	fs.IntVar(&o.maxInstances, "max-instances", 5, "values shown per node in text output (`N`; JSON has them all)")
	fs.StringVar(&o.format, "format", "text", "output `FORMAT`: text or json (schema in docs/explain.md)")
	o.kind.register(fs)
	o.src.register(fs, forValues)
}

// target loads the configs (and -e's expression) and finds the metric to
// explain: NAME, or a pmrep or pcp-dstat spec's SECTION:KEY. The status
// is ExitOK when there is one; otherwise why not is on stderr.
func (o *explainFlags) target(ctx context.Context, env Env, source pmclient.Source, v pcpver.Version, paths []string, name string, kind toolconf.Kind, exprGiven bool) (explain.Target, int) {
	var extra []analysis.Input
	if exprGiven {
		line := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(o.expr)
		in := analysis.Buffer("-e", []byte(exprName+" = "+line+"\n"))
		// With a pmrep or pcp-dstat file, registered after its formulas
		// (as its own derived option's definitions are), so it may use
		// them.
		in.AfterTool = true
		extra = append(extra, in)
	}
	res, ok := load(ctx, env, "explain", &o.src, source, v, paths, loadOptions{kind: kind, extra: extra})
	if res == nil || !ok {
		return explain.Target{}, ExitUsage
	}
	rep := oneReport(res)
	if rep == nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp explain: %s: more than one config path: each pmrep, pcp-dstat or pcp-htop file is one of its own, and explain loads -e's expression after the formulas of one pmrep or pcp-dstat file (pcp-htop has no way to add one to its own): name one such file, or derived configs only\n", strings.Join(paths, " "))
		return explain.Target{}, ExitUsage
	}
	if !exprGiven {
		name = selectName(res, name)
	}
	m, status := findDefinition(env, rep, name, paths, exprGiven)
	if m == nil {
		return explain.Target{}, status
	}
	target := explain.Target{Report: rep, Metric: m}
	if exprGiven {
		none := ""
		target.Name = &none
	}
	return target, ExitOK
}

// explainOperands are the configs and the name to explain: CONFIG NAME,
// or -e's expression and the configs after it. msg says what is wrong;
// name is "" for operands that make no sense (the usage then).
func explainOperands(operands []string, expr string, exprGiven bool) (paths []string, name, msg string) {
	switch {
	case exprGiven && strings.TrimSpace(expr) == "":
		return nil, "", "-e: the expression is empty"
	case exprGiven:
		return operands, exprName, ""
	case len(operands) != 2:
		return nil, "", ""
	}
	return operands[:1], operands[1], ""
}

// writeExplanation prints the explanation in format; its status is
// ExitFindings when the metric has no values.
func writeExplanation(env Env, x *explain.Explanation, format string, maxInstances int) int {
	var err error
	if format == "json" {
		err = explain.WriteJSON(env.Stdout, x)
	} else {
		esc := report.NewEscaper(env.Stdout) // names, instances and values are input
		err = explain.WriteText(esc, x, explain.TextOptions{MaxInstances: maxInstances})
		err = errors.Join(err, esc.Flush())
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp explain: %v\n", err)
		return ExitUsage
	}
	if x.Root.Empty() || !x.Root.Evaluated() {
		return ExitFindings
	}
	return ExitOK
}

// findDefinition returns the registered definition to explain, or prints
// why there is none (a syntax error with its position, a name the configs
// do not define).
func findDefinition(env Env, rep *checker.Report, name string, paths []string, expr bool) (*checker.Metric, int) {
	if m, ok := rep.ByName.Lookup(name); ok && (!expr || m.Def.Name == exprName && isExprFile(rep, m)) {
		return m, ExitOK
	}
	for _, f := range rep.Files {
		if expr && f.Path != "-e" {
			continue
		}
		for _, d := range f.Definitions.All() {
			if d.Name != name {
				continue
			}
			var diags []grammar.Diagnostic
			for _, g := range f.Diagnostics {
				if g.Severity == grammar.SeverityError && g.Range.Start.Compare(d.Range.Start) >= 0 && g.Range.Start.Compare(d.Range.End) <= 0 {
					diags = append(diags, g)
				}
			}
			if len(diags) == 0 {
				fmt.Fprintf(env.Stderr, "pcp-derive-lsp explain: %s:%d: libpcp does not register %s (a definition of that name comes first)\n", f.Path, d.Range.Start.Line, name)
				return nil, ExitUsage
			}
			report.Text(env.Stderr, &report.Run{Files: []report.File{{File: f, Diagnostics: diags}}})
			return nil, ExitUsage
		}
	}
	if expr {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp explain: -e: the expression could not be loaded\n")
		return nil, ExitUsage
	}
	fmt.Fprintf(env.Stderr, "pcp-derive-lsp explain: %s: no definition of that name in %s\n", name, strings.Join(paths, " "))
	return nil, ExitUsage
}

// isExprFile reports that a metric comes from -e, not from a config that
// happens to define the same name.
func isExprFile(rep *checker.Report, m *checker.Metric) bool {
	for _, f := range rep.Files {
		if f.Path != "-e" {
			continue
		}
		for _, d := range f.Definitions.All() {
			if d == m.Def {
				return true
			}
		}
	}
	return false
}

// archiveTime reads --start: a date and time or a time of day in local
// time (a time of day falls on the archive's first day), RFC 3339, or
// +INTERVAL after the archive's start.
func archiveTime(src pmclient.Source, s string) (time.Time, error) {
	first, err := firstRecord(src)
	if err != nil {
		return time.Time{}, err
	}
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := pmapi.ParseInterval(rest)
		if err != nil {
			return time.Time{}, err
		}
		return first.Add(d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05.999999999", "15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			day := first.In(time.Local)
			return time.Date(day.Year(), day.Month(), day.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want \"2006-01-02 15:04:05\", \"15:04:05\", RFC 3339 or +INTERVAL", s)
}

// firstRecord is the time an archive starts at (its label's).
func firstRecord(src pmclient.Source) (time.Time, error) {
	if a, ok := src.(*archive.Archive); ok {
		return a.Label().Start, nil
	}
	return time.Time{}, fmt.Errorf("%s is not an archive", src.Describe())
}
