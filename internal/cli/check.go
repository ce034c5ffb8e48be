package cli

import (
	"context"
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
	var version versionFlag
	version.register(fs)
	format := fs.String("format", "text", "output `FORMAT`: text, pcp (libpcp's own stderr), json, sarif, github (workflow annotations), checkstyle, junit or gitlab (code quality)")
	failOn := fs.String("fail-on", "error", "exit 1 on findings at or above `SEVERITY`: error or warning")
	maxSize := fs.Int64("max-size", 64<<20, "skip files larger than `BYTES`")
	findingsCap := fs.Int("max-per-code", analysis.DefaultMaxPerCode, "list at most `N` findings of one code and severity in a file, and count the rest in one finding (0 lists every one, as --format pcp, --fix and --diff do)")
	var quiet bool
	fs.BoolVar(&quiet, "q", false, "quiet: print nothing on stdout, report through the exit status only")
	fs.BoolVar(&quiet, "quiet", false, "same as -q")
	separate := fs.Bool("separate", false, "check each PATH as a config of its own (as pre-commit passes unrelated files), not all together as one config path")
	fix := fs.Bool("fix", false, "apply the safe quick fixes to the files (those an editor would offer alone and that cannot change the meaning), then report what is left")
	throughLinks := fs.Bool("fix-through-links", false, "with --fix, also write through symbolic links that lead out of the tree a file was found in (by default such a file is not rewritten)")
	diff := fs.Bool("diff", false, "print the safe quick fixes as a unified diff instead of the report; change nothing")
	color := fs.String("color", "auto", "colour text output: `WHEN` is auto (on a terminal, unless $NO_COLOR is set), always or never")
	docsURL := fs.String("docs-url", codes.DefaultDocsURL, "`BASE` URL of the finding codes' pages (CODE.md) that SARIF rules link to")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole check to `FILE` (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write a heap profile to `FILE` when the check ends (go tool pprof)")
	pcpDebug := fs.String("pcp-debug", "", "print on stderr what libpcp prints with PCP_DEBUG=`FLAGS` (-D) while it loads the configs and binds every name they define (as pminfo -Dderive -d NAMES... would): derive (registrations, control items set, syntax errors, masking warnings, bind errors, operands mapped to novalue())")
	kindName := fs.String("kind", "auto", "read every PATH as `KIND`: auto (by path and content), derived, pmrep, dstat or htop")
	var src sourceFlags
	src.register(fs, forChecking)
	var ruleOpts ruleFlags
	ruleOpts.register(fs)
	var fleetOpts fleetFlags
	fleetOpts.register(fs)
	paths, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	threshold := grammar.SeverityError
	switch *failOn {
	case "error":
	case "warning":
		threshold = grammar.SeverityWarning
	default:
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --fail-on %q: want error or warning\n", *failOn)
		return ExitUsage
	}
	if *pcpDebug != "" && *pcpDebug != "derive" {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --pcp-debug %q: want derive\n", *pcpDebug)
		return ExitUsage
	}
	kind, err := toolconf.ParseKind(*kindName)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --kind: %v\n", err)
		return ExitUsage
	}
	useColor, ok := colorWanted(*color, env)
	if !ok {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --color %q: want auto, always or never\n", *color)
		return ExitUsage
	}
	if *maxSize < 0 || *maxSize > analysis.MaxSupportedSize {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --max-size %d: want a number of bytes up to %d (positions in a file are 32-bit)\n", *maxSize, int64(analysis.MaxSupportedSize))
		return ExitUsage
	}
	if *findingsCap < 0 {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --max-per-code %d: want a number of findings (0: every one)\n", *findingsCap)
		return ExitUsage
	}
	if runWriter(*format, false) == nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --format %q: want text, pcp, json, sarif, github, checkstyle, junit or gitlab\n", *format)
		return ExitUsage
	}
	rl, err := ruleOpts.resolve(paths)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		return ExitUsage
	}
	if len(paths) == 0 {
		fs.Usage()
		return ExitUsage
	}
	prof, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		return ExitUsage
	}
	defer func() {
		if err := prof.stop(); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		}
	}()
	if fleetOpts.active() {
		return checkFleet(ctx, env, paths, &fleetOpts, fleetRun{&version, &src, *format, threshold, *maxSize, rl, quiet})
	}
	source, err := src.open(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
		return ExitUsage
	}
	if version.isList() {
		return checkAcross(ctx, env, paths, &version, &src, source, *format, threshold, *maxSize, rl, *findingsCap)
	}
	choice, ok := version.resolve(ctx, env, "check", source)
	if !ok {
		return ExitUsage
	}
	// The report needs the findings only: the check drops each metric's
	// node metadata as it goes.
	if *format == "pcp" || *fix || *diff {
		// libpcp's own stderr prints every message; a fix applies to
		// every finding.
		*findingsCap = 0
	}
	cfg := analysis.Config{Version: choice, Source: source, InDoms: src.equivalence(env), Rules: rl, FindingsOnly: true, MaxPerCode: *findingsCap}
	cfg.ToolDerived = toolDerived(env)
	cfg.DerivedControl = derivedControl(env)
	run, res, ioErrors := analyse(ctx, env, paths, cfg, analysis.Options{Separate: *separate, Kind: kind}, *maxSize, *format == "pcp")
	if run == nil {
		return ExitUsage
	}
	run.DocsURL = *docsURL
	if *pcpDebug == "derive" {
		printDeriveDebug(env.Stderr, res)
	}
	stdout := env.Stdout
	if quiet {
		stdout = io.Discard
	}
	switch fixes := safeFixes(run); {
	case *diff:
		if err := writeDiff(stdout, fixes); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %v\n", err)
			return ExitUsage
		}
		if len(fixes) > 0 {
			return ExitFindings
		}
		return ExitOK
	case *fix:
		n, files, err := writeFixes(fixes, run, fileSaver{trees: paths, throughLinks: *throughLinks, wrap: env.fixWriter})
		if n > 0 && !quiet {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: fixed %s in %s\n", plural(n, "finding"), plural(files, "file"))
		}
		if err != nil {
			// Each file not rewritten, and why (it is as it was).
			for _, e := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %s\n", e)
			}
			return ExitUsage
		}
		if n > 0 {
			// Report on the files as they are now: a fix can change
			// other findings (a corrected suppression comment). This
			// run's profiles cover that check too.
			return runCheck(ctx, env, withoutProfiles(withoutFlag(args, "fix")))
		}
	}
	if err := runWriter(*format, useColor)(stdout, run); err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: writing the report: %v\n", err)
		return ExitUsage
	}
	errs, warnings, _ := run.Counts()
	if *format == "pcp" && !quiet {
		if hidden := silentFindings(run); hidden > 0 {
			// libpcp prints nothing when it hides a metric; an exit
			// status of 1 after no output needs a word.
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %s where libpcp prints nothing (it hides the metric silently); --format text shows them\n", plural(hidden, "finding"))
		}
	}
	if *format == "text" && !quiet {
		fmt.Fprintf(env.Stderr, "%s, %s in %s (metadata: %s; %s)\n",
			plural(errs, "error"), plural(warnings, "warning"), plural(len(run.Files), "file"), run.Source, choice.String()+describeRules(rl))
	}
	switch {
	case ioErrors > 0:
		return ExitUsage
	case errs > 0 || (threshold == grammar.SeverityWarning && warnings > 0):
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
	inputs := analysis.ReadInputs(paths, env.Stdin, maxSize)
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
