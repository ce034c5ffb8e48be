package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

func runCheck(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "check", "[flags] PATH...",
		"Checks derived metric config files (files, directories, - for stdin), loaded\ntogether as one config path the way PCP_DERIVED_CONFIG=a:b:dir loads them.\nExit status: 0 clean, 1 findings at or above --fail-on, 2 usage or I/O errors.")
	var o checkFlags
	o.register(fs)
	paths, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	if !o.resolve(env) {
		return ExitUsage
	}
	rl, err := o.rules.resolve(paths)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		return ExitUsage
	}
	if len(paths) == 0 {
		fs.Usage()
		return ExitUsage
	}
	prof, err := startProfiles(o.cpuProfile, o.memProfile)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		return ExitUsage
	}
	defer func() {
		if err := prof.stop(); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		}
	}()
	if o.fleet.active() {
		return checkFleet(ctx, env, paths, &o.fleet, fleetRun{&o.version, &o.src, o.format, o.threshold, o.maxSize, rl, o.quiet})
	}
	source, err := o.src.open(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		return ExitUsage
	}
	if o.version.isList() {
		return checkAcross(ctx, env, paths, &o.version, &o.src, source, o.format, o.threshold, o.maxSize, rl, o.findingsCap)
	}
	choice, ok := o.version.resolve(ctx, env, "check", source)
	if !ok {
		return ExitUsage
	}
	// The report needs the findings only: the check drops each metric's
	// node metadata as it goes.
	if o.format == "pcp" || o.fix || o.diff {
		// libpcp's own stderr prints every message; a fix applies to
		// every finding.
		o.findingsCap = 0
	}
	cfg := analysis.Config{Version: choice, Source: source, InDoms: o.src.equivalence(env), Rules: rl, FindingsOnly: true, MaxPerCode: o.findingsCap}
	cfg.ToolDerived = toolDerived(env)
	cfg.DerivedControl = derivedControl(env)
	run, res, ioErrors := analyse(ctx, env, paths, cfg, analysis.Options{Separate: o.separate, Kind: o.kindValue}, o.maxSize, o.format == "pcp")
	if run == nil {
		return ExitUsage
	}
	run.DocsURL = o.docsURL
	if o.pcpDebug == "derive" {
		printDeriveDebug(env.Stderr, res)
	}
	stdout := env.Stdout
	if o.quiet {
		stdout = io.Discard
	}
	if status, done := o.applyFixes(ctx, env, args, paths, run, stdout); done {
		return status
	}
	return o.report(env, stdout, run, ioErrors, choice.String()+describeRules(rl))
}

// checkFlags are check's flags, and what resolve makes of them.
type checkFlags struct {
	version                 versionFlag
	format, failOn          string
	maxSize                 int64
	findingsCap             int
	quiet, separate         bool
	fix, throughLinks, diff bool
	color, docsURL          string
	cpuProfile, memProfile  string
	pcpDebug                string
	kind                    kindFlag
	src                     sourceFlags
	rules                   ruleFlags
	fleet                   fleetFlags
	threshold               grammar.Severity // from failOn
	kindValue               toolconf.Kind    // from kind
	useColor                bool             // from color
}

func (o *checkFlags) register(fs *flag.FlagSet) {
	o.version.register(fs)
	fs.StringVar(&o.format, "format", "text", "output `FORMAT`: text, pcp (libpcp's own stderr), json, sarif, github (workflow annotations), checkstyle, junit or gitlab (code quality)")
	fs.StringVar(&o.failOn, "fail-on", "error", "exit 1 on findings at or above `SEVERITY`: error or warning")
	fs.Int64Var(&o.maxSize, "max-size", 64<<20, "skip files larger than `BYTES`")
	fs.IntVar(&o.findingsCap, "max-per-code", analysis.DefaultMaxPerCode, "list at most `N` findings of one code and severity in a file, and count the rest in one finding (0 lists every one, as --format pcp, --fix and --diff do)")
	fs.BoolVar(&o.quiet, "q", false, "quiet: print nothing on stdout, report through the exit status only")
	fs.BoolVar(&o.quiet, "quiet", false, "same as -q")
	fs.BoolVar(&o.separate, "separate", false, "check each PATH as a config of its own (as pre-commit passes unrelated files), not all together as one config path")
	fs.BoolVar(&o.fix, "fix", false, "apply the safe quick fixes to the files (those an editor would offer alone and that cannot change the meaning), then report what is left")
	fs.BoolVar(&o.throughLinks, "fix-through-links", false, "with --fix, also write through symbolic links that lead out of the tree a file was found in (by default such a file is not rewritten)")
	fs.BoolVar(&o.diff, "diff", false, "print the safe quick fixes as a unified diff instead of the report; change nothing")
	fs.StringVar(&o.color, "color", "auto", "colour text output: `WHEN` is auto (on a terminal, unless $NO_COLOR is set), always or never")
	fs.StringVar(&o.docsURL, "docs-url", codes.DefaultDocsURL, "`BASE` URL of the finding codes' pages (CODE.md) that SARIF rules link to")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole check to `FILE` (go tool pprof)")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile to `FILE` when the check ends (go tool pprof)")
	fs.StringVar(&o.pcpDebug, "pcp-debug", "", "print on stderr what libpcp prints with PCP_DEBUG=`FLAGS` (-D) while it loads the configs and binds every name they define (as pminfo -Dderive -d NAMES... would): derive (registrations, control items set, syntax errors, masking warnings, bind errors, operands mapped to novalue())")
	o.kind.register(fs)
	o.src.register(fs, forChecking)
	o.rules.register(fs)
	o.fleet.register(fs)
}

// resolve checks the flags' values and fills in what they select;
// false (said on stderr) for one that makes no sense.
func (o *checkFlags) resolve(env Env) bool {
	fail := func(format string, a ...any) bool {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: "+format+"\n", a...)
		return false
	}
	switch o.failOn {
	case "error":
		o.threshold = grammar.SeverityError
	case "warning":
		o.threshold = grammar.SeverityWarning
	default:
		return fail("--fail-on %q: want error or warning", o.failOn)
	}
	if o.pcpDebug != "" && o.pcpDebug != "derive" {
		return fail("--pcp-debug %q: want derive", o.pcpDebug)
	}
	kind, ok := o.kind.resolve(env, "check")
	if !ok {
		return false
	}
	o.kindValue = kind
	if o.useColor, ok = colorWanted(o.color, env); !ok {
		return fail("--color %q: want auto, always or never", o.color)
	}
	if o.maxSize < 0 || o.maxSize > analysis.MaxSupportedSize {
		return fail("--max-size %d: want a number of bytes up to %d (positions in a file are 32-bit)", o.maxSize, int64(analysis.MaxSupportedSize))
	}
	if o.findingsCap < 0 {
		return fail("--max-per-code %d: want a number of findings (0: every one)", o.findingsCap)
	}
	if runWriter(o.format, false) == nil {
		return fail("--format %q: want text, pcp, json, sarif, github, checkstyle, junit or gitlab", o.format)
	}
	return true
}

// applyFixes does --diff and --fix; done says check ends with status
// (after a fix, the report is of a check of the files as they are now).
func (o *checkFlags) applyFixes(ctx context.Context, env Env, args, paths []string, run *report.Run, stdout io.Writer) (status int, done bool) {
	fixes := safeFixes(run)
	switch {
	case o.diff:
		if err := writeDiff(stdout, fixes); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
			return ExitUsage, true
		}
		if len(fixes) > 0 {
			return ExitFindings, true
		}
		return ExitOK, true
	case o.fix:
		n, files, err := writeFixes(fixes, run, fileSaver{trees: paths, throughLinks: o.throughLinks, wrap: env.fixWriter})
		if n > 0 && !o.quiet {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: fixed %s in %s\n", plural(n, "finding"), plural(files, "file"))
		}
		if err != nil {
			// Each file not rewritten, and why (it is as it was).
			for _, e := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %s\n", e)
			}
			return ExitUsage, true
		}
		if n > 0 {
			// Report on the files as they are now: a fix can change
			// other findings (a corrected suppression comment). This
			// run's profiles cover that check too.
			return runCheck(ctx, env, withoutProfiles(withoutFlag(args, "fix"))), true
		}
	}
	return 0, false
}

// report writes the run in the chosen format, the summary on stderr,
// and returns check's exit status.
func (o *checkFlags) report(env Env, stdout io.Writer, run *report.Run, ioErrors int, release string) int {
	if err := runWriter(o.format, o.useColor)(stdout, run); err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: writing the report: %v\n", err)
		return ExitUsage
	}
	errs, warnings, _ := run.Counts()
	if o.format == "pcp" && !o.quiet {
		if hidden := silentFindings(run); hidden > 0 {
			// libpcp prints nothing when it hides a metric; an exit
			// status of 1 after no output needs a word.
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %s where libpcp prints nothing (it hides the metric silently); --format text shows them\n", plural(hidden, "finding"))
		}
	}
	if o.format == "text" && !o.quiet {
		fmt.Fprintf(env.Stderr, "%s, %s in %s (metadata: %s; %s)\n",
			plural(errs, "error"), plural(warnings, "warning"), plural(len(run.Files), "file"), run.Source, release)
	}
	switch {
	case ioErrors > 0:
		return ExitUsage
	case errs > 0 || (o.threshold == grammar.SeverityWarning && warnings > 0):
		return ExitFindings
	}
	return ExitOK
}

// runWriter returns the renderer of a check run in one of check's
// --format names, nil for a name that is none of them. fleet check
// renders the run it makes of a fleet with the same renderers.
func runWriter(format string, color bool) func(io.Writer, *report.Run) error {
	switch format {
	case "text":
		return func(w io.Writer, run *report.Run) error {
			return report.TextWith(w, run, report.TextOptions{Color: color})
		}
	case "pcp":
		return report.PCP
	case "json":
		return report.JSON
	case "sarif":
		return func(w io.Writer, run *report.Run) error {
			wd, _ := os.Getwd() // SARIF locates files relative to it
			return report.SARIF(w, run, wd)
		}
	case "github":
		return report.GitHub
	case "checkstyle":
		return report.Checkstyle
	case "junit":
		return report.JUnit
	case "gitlab":
		return report.GitLab
	}
	return nil
}

// withoutFlag returns args without the boolean flag name (-name,
// --name, --name=value), up to "--".
func withoutFlag(args []string, name string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		flagName, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && flagName == name {
			continue
		}
		out = append(out, a)
	}
	return out
}

// withoutProfiles returns args without the -cpuprofile and -memprofile
// flags and their values, up to "--".
func withoutProfiles(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "cpuprofile" || name == "memprofile") {
			if !hasValue {
				i++ // the value is the next argument
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// withoutHints drops hint-level findings: they mark repeats of a finding
// for editors (faded text), and would only repeat it in a report.
func withoutHints(diags []grammar.Diagnostic) []grammar.Diagnostic {
	if !slices.ContainsFunc(diags, func(d grammar.Diagnostic) bool { return d.Severity == grammar.SeverityHint }) {
		return diags // the usual case: no copy of a big config's findings
	}
	out := diags[:0:0]
	for _, d := range diags {
		if d.Severity != grammar.SeverityHint {
			out = append(out, d)
		}
	}
	return out
}

// silentFindings counts errors libpcp would not print: the findings in
// the text output that the pcp output has no line for.
func silentFindings(run *report.Run) int {
	n := 0
	for _, f := range run.Files {
		printed := map[grammar.Range]bool{}
		for _, d := range f.PCPOrder {
			if len(d.PCP) > 0 {
				printed[d.Range] = true
			}
		}
		for _, d := range f.Diagnostics {
			if d.Severity == grammar.SeverityError && !printed[d.Range] {
				n++
			}
		}
	}
	return n
}

// colorWanted decides --color: auto colours on a terminal unless
// $NO_COLOR is set (no-color.org) or $TERM is "dumb".
func colorWanted(when string, env Env) (on, ok bool) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch when {
	case "always":
		return true, true
	case "never":
		return false, true
	case "auto":
		return env.StdoutTerminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb", true
	}
	return false, false
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// analyse runs the shared analysis (package analysis) of the paths and
// turns it into the run the renderers print. I/O errors are printed on
// stderr and counted; a check that failed as a whole is printed too, and
// gives no run. Hints are dropped (they mark repeats for an editor's faded
// text); unfiltered keeps every finding as libpcp produces it, with no
// suppression comment or rule applied (the pcp format, which mirrors
// libpcp).
func analyse(ctx context.Context, env Env, paths []string, cfg analysis.Config, opts analysis.Options, maxSize int64, unfiltered bool) (*report.Run, *analysis.Result, int) {
	inputs, skipped := analysis.ReadTree(paths, env.Stdin, maxSize)
	if len(skipped) > 0 {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp: %s outside the derived, pmrep, dstat and htop directories of a PCP configuration tree not read (they hold no derived metrics; name a file to check it)\n", plural(len(skipped), "file"))
	}
	if env.InputsRead != nil {
		var total int64
		for _, in := range inputs {
			total += int64(len(in.Src))
		}
		env.InputsRead(total)
	}
	res := analysis.Run(ctx, inputs, cfg, opts)
	for _, err := range res.IOErrors {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp: %v\n", err)
	}
	if res.CheckErr != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp: %v\n", res.CheckErr)
		return nil, nil, len(res.IOErrors)
	}
	run := &report.Run{Tool: "pcp-derive-lsp", Version: Version, PCPVersion: cfg.Version.Version,
		PCPVersionReason: cfg.Version.Reason, Source: res.SourceName}
	for _, e := range res.IOErrors {
		run.Unread = append(run.Unread, report.Unread{Path: e.Path, Message: e.Error()})
	}
	// libpcp's order is for the pcp format only (unfiltered): it is a
	// copy of every finding, which a big config's check should not make
	// for nothing.
	var order [][]grammar.Diagnostic
	if unfiltered {
		order = res.PCPOrder()
	}
	for i, f := range res.Files {
		file := report.File{File: f.File, Diagnostics: withoutHints(f.Findings.Slice())}
		if unfiltered {
			file.Diagnostics, file.PCPOrder = f.Unfiltered(), order[i]
		}
		run.Files = append(run.Files, file)
	}
	return run, res, len(res.IOErrors)
}

// derivedControl is $PCP_DERIVED_CONTROL from the environment, which
// libpcp 7.1.1+ applies before a config's #control lines; nil when unset
// (an empty one cannot be told from an unset one through Env.Getenv).
func derivedControl(env Env) *string {
	if env.Getenv == nil {
		return nil
	}
	if v := env.Getenv("PCP_DERIVED_CONTROL"); v != "" {
		return &v
	}
	return nil
}

// toolDerived are the derived configs libpcp loads on its own before a
// pmrep or pcp-dstat file's formulas ($PCP_DERIVED_CONFIG, else
// $PCP_VAR_DIR/config/derived; an empty $PCP_DERIVED_CONFIG cannot be
// told from an unset one through Env.Getenv, and reads as unset).
func toolDerived(env Env) []analysis.Input {
	getenv := env.Getenv
	if getenv == nil {
		return nil
	}
	return analysis.AutoDerivedInputs(getenv, func(k string) (string, bool) { v := getenv(k); return v, v != "" })
}

// printDeriveDebug prints what libpcp prints with PCP_DEBUG=derive, one
// config path at a time: loading the checked derived configs
// (grammar.DeriveDebug), then, when they were checked, binding every
// name they register as `pminfo -Dderive -d NAMES...` does
// (checker.Report.BindDebug).
func printDeriveDebug(w io.Writer, res *analysis.Result) {
	for _, p := range res.ConfigPaths() {
		lines := grammar.DeriveDebug(p.Files)
		if p.Report != nil {
			lines = append(lines, p.Report.BindDebug(p.Files)...)
		}
		for _, l := range lines {
			fmt.Fprintln(w, report.Escape(l))
		}
	}
}
