// Package analysis is the one way from a config path to findings, shared
// by the command line and the language server: read the inputs (files,
// directories, standard input, an editor's unsaved buffer), parse them,
// check them against the metadata source for the resolved PCP release,
// apply the suppression comments and the project's rules, and order the
// findings. The front ends only render what it returns, so the editor and
// CI can never disagree about a config.
package analysis

import (
	"bytes"
	"context"
	"sort"
	"sync/atomic"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// Config is everything an analysis follows besides the text.
type Config struct {
	// Version is the release whose libpcp the analysis follows, and why
	// (ResolveVersion).
	Version VersionChoice
	// Source is the metadata source; nil checks the syntax only.
	Source pmclient.Source
	// InDoms are the equivalent instance domains (pcp7's indom.conf).
	InDoms *pmapi.InDomEquivalence
	// Rules are the project's choices: codes turned off, severities
	// changed (package rules).
	Rules rules.Rules
	// FindingsOnly: the caller reads the findings and the metrics'
	// status and descriptors, never their node metadata, which the check
	// then drops as it goes (checker.Options.FindingsOnly): check of a
	// big config in CI.
	FindingsOnly bool
	// MaxPerCode lists at most that many checker findings of one code
	// in a file, and one stand-in for the rest (checker.Options.MaxPerCode;
	// DefaultMaxPerCode for the editor and check); 0 lists all.
	MaxPerCode int
	// ToolDerived are the derived configs libpcp loads on its own when a
	// tool (pmrep, pcp-dstat) starts, before the tool registers its
	// formulas (AutoDerivedInputs): checked with each tool file, their
	// own findings not reported.
	ToolDerived []Input
	// DerivedControl is $PCP_DERIVED_CONTROL as libpcp would find it,
	// nil when unset (grammar.Options.DerivedControl): PCP 7.1.1 and
	// later apply it before the configs' own #control lines.
	DerivedControl *string
}

// readOptions are the grammar's options for the config's files: its
// release, and its cap on findings (the grammar's syntax findings are
// capped as the checker's are).
func (c Config) readOptions(opts Options) grammar.Options {
	o := grammar.Options{Version: c.Version.Version, MaxPerCode: c.capAsYouGo(opts), DerivedControl: c.DerivedControl}
	if o.MaxPerCode > 0 {
		o.Suppressed = suppressedIfMarked(nil)
	}
	return o
}

// capAsYouGo is the cap on findings the read and the check apply as they
// go: none for an incremental analysis, which caps what it shows
// (Options.Incremental).
func (c Config) capAsYouGo(opts Options) int {
	if opts.Incremental {
		return 0
	}
	return c.MaxPerCode
}

// DefaultMaxPerCode is how many findings of one code a file lists before
// the rest are counted in one: a screenful of one repeated finding is
// enough to act on, and editors show no more (VS Code keeps 1,000 a file).
const DefaultMaxPerCode = 1000

// Options change how inputs are grouped and parsed.
type Options struct {
	// Separate analyses each Input.Group as a config path of its own (as
	// pre-commit passes unrelated files), not all inputs as one.
	Separate bool
	// Memo reuses the parses of unchanged lines across versions of one
	// document (the server keeps one per open document, and trims it). It
	// is used when a config path has one file.
	Memo *grammar.Memo
	// Change is the edit that made Reparse's text of the earlier one,
	// when the caller knows it (an editor's didChange says where it
	// typed); nil: Reparse compares the two texts to find it.
	Change *grammar.TextChange
	// Incremental says the result will be the earlier one of Reparse
	// and Recheck (an editor's buffer). Its files then keep every
	// finding, and Config.MaxPerCode caps only what is shown (Findings,
	// grammar.CapFindings): a finding left out of a capped read is gone,
	// so an edit that removed a listed one could not tell which to list
	// instead without reading the whole file again, on every keystroke
	// of a file over the cap. Without it (check in CI), the read and the
	// check cap as they go, which bounds their memory on a million bad
	// lines. The findings shown are the same either way.
	Incremental bool
	// Kind is the kind of every input that does not name its own
	// (Input.Kind): check --kind; "" or toolconf.Auto detects each.
	Kind toolconf.Kind
}

// NoSource names the metadata source of a syntax-only analysis.
const NoSource = "none (syntax checks only)"

// File is one config file and its findings.
type File struct {
	File *grammar.File
	// Findings are what the user is shown: sorted by position, without
	// those a suppression comment or the rules turn off, with the rules'
	// severities, and with the suppression comments' own problems. Hints
	// (repeats, for an editor's faded text) are included; reports for
	// people drop them.
	Findings Findings
	// syntax are the grammar's findings and checked the checker's, as
	// libpcp produces them (no suppressions, no rules): PCPOrder reads
	// them.
	syntax  []grammar.Diagnostic
	checked pvec.Vec[grammar.Diagnostic] // the report's own list
	// sortedBase is findings known sorted (as every Findings' lists are)
	// that syntax and checked were made of by an edit: the last
	// version's, as Reparse and Recheck set them, so that finish compares
	// only what the edit changed. Zero for none, and once finish has read
	// it.
	sortedBase Findings
	// marks counts the suppression comments' mark in the text (kept up
	// to date by Reparse, so a keystroke does not search the whole text
	// for one); -1 when not counted yet.
	marks int
	// doc is the tool's reading of a pmrep or pcp-dstat file (nil for a
	// derived config), run its findings as the tool meets them (Check's
	// included).
	doc   *pmconfig.Doc
	run   []pmconfig.Finding
	specs []pmconfig.SpecMetric
	// rep is the report of the config path the file was checked in.
	rep *checker.Report
	// auto are the derived configs libpcp loads before the tool's
	// formulas (Config.ToolDerived), checked with it, never shown.
	auto []*grammar.File
	// htop is pcp-htop's reading of an htop file (analysis/htop.go).
	htop *htop.File
}

// Result is one analysis of a config path.
type Result struct {
	Config Config
	Files  []File
	// Report is the checker's verdict on every definition; nil when the
	// analysis checked the syntax only, when the check failed, or when
	// Options.Separate made several config paths of the inputs.
	Report *checker.Report
	// Checked says the checker ran on every config path.
	Checked bool
	// SourceName is the metadata source's description, or NoSource.
	SourceName string
	// IOErrors are the inputs that could not be read at all.
	IOErrors []*InputError
	// CheckErr is why the check failed as a whole (the source did not
	// answer, the request was cancelled); Files then hold the syntax
	// findings only. Findings about single definitions are findings,
	// not errors.
	CheckErr error

	opts   Options
	groups [][]int // indexes into Files of each config path's parsed files
	// reports are the checker's report of each of groups (Check's; nil
	// before a check, or after an edit's Recheck): ConfigPaths'.
	reports []*checker.Report
	// refs index which metrics use which (Recheck): built by the check's
	// Recheck, or by Prepare, or by the next Recheck when it needs it.
	refs *refsCell
	// generation is the source's (pmclient.Generationer) when the check
	// began: Recheck keeps no verdict across a change of it.
	generation uint64
}

// refsCell holds a result's index of which metrics use which, built
// once by whichever comes first: Prepare, in the background, or the next
// keystroke's Recheck.
type refsCell struct{ p atomic.Pointer[checker.Refs] }

// load is the index, nil when not built (or for no cell).
func (c *refsCell) load() *checker.Refs {
	if c == nil {
		return nil
	}
	return c.p.Load()
}

// Prepare builds now what the first Reparse and Recheck after this
// result would build (the file's index of names, the index of which
// metrics use which: together many keystrokes' worth of work on a large
// file), for a caller with time to spare: the server after it publishes
// a full analysis. Safe to run while those read the result.
func (r *Result) Prepare() {
	if len(r.Files) != 1 {
		return
	}
	r.Files[0].File.PrepareReparse()
	if r.refs != nil && r.Report != nil && r.refs.load() == nil {
		r.refs.p.CompareAndSwap(nil, checker.NewRefs(r.Report))
	}
}

// InputError is an input that could not be read: its path and why.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Run analyses inputs from text to findings: Parse, then Check.
func Run(ctx context.Context, inputs []Input, cfg Config, opts Options) *Result {
	return Check(ctx, Parse(inputs, cfg, opts))
}

// Parse reads the inputs' syntax as the release's libpcp does. The
// result's findings are complete for a syntax-only analysis; Check adds
// what the metadata tells. Inputs that are not configs (binary, too large)
// become files with that one finding, after the others; unreadable ones
// become IOErrors.
func Parse(inputs []Input, cfg Config, opts Options) *Result {
	r := &Result{Config: cfg, SourceName: NoSource, opts: opts}
	// A config path's readable inputs, and those that are no config,
	// reported after its files.
	type group struct {
		srcs     []grammar.Source
		problems []Input
		binary   map[int]Input // by index in srcs: a binary file, parsed all the same
		// tool is the kind of a tool's file (pmrep, dstat, htop), a
		// config path of its own; "" for derived configs.
		tool toolconf.Kind
		// after are the derived configs loaded after a pmrep or
		// pcp-dstat file's formulas (Input.AfterTool).
		after []grammar.Source
	}
	var groups []*group
	for i, in := range inputs {
		if in.Kind == "" {
			in.Kind = opts.Kind
		}
		kind := in.kind()
		if kind == toolconf.Derived {
			kind = ""
		}
		if last := len(groups) - 1; in.AfterTool && kind == "" && in.Err == nil && in.Problem == "" && last >= 0 &&
			groups[last].tool != "" && groups[last].tool != toolconf.Htop && len(groups[last].srcs) == 1 {
			groups[last].after = append(groups[last].after, grammar.Source{Path: in.Path, Src: in.Src, Text: in.text})
			continue
		}
		if len(groups) == 0 || (opts.Separate && in.Group != inputs[i-1].Group) || kind != "" || groups[len(groups)-1].tool != "" {
			groups = append(groups, &group{tool: kind})
		}
		g := groups[len(groups)-1]
		switch {
		case in.Err != nil:
			r.IOErrors = append(r.IOErrors, &InputError{Path: in.Path, Err: in.Err})
		case in.Problem != "" && in.Src != nil:
			if g.binary == nil {
				g.binary = map[int]Input{}
			}
			g.binary[len(g.srcs)] = in
			g.srcs = append(g.srcs, grammar.Source{Path: in.Path, Src: in.Src, Text: in.text})
		case in.Problem != "":
			g.problems = append(g.problems, in)
		default:
			g.srcs = append(g.srcs, grammar.Source{Path: in.Path, Src: in.Src, Text: in.text})
		}
	}
	if len(groups) == 0 && !opts.Separate {
		groups = append(groups, &group{}) // checked all the same: an empty config path
	}
	version := cfg.Version.Version
	read := cfg.readOptions(opts)
	var auto *autoDerived
	var htops htopRun
	for _, g := range groups {
		if g.tool != "" && len(g.srcs) == 1 {
			if auto == nil {
				auto = readAutoDerived(cfg.ToolDerived, read)
			}
			r.addTool(g.tool, g.srcs[0], g.after, toolReading{auto: auto, htops: &htops, read: read})
			continue
		}
		var files []*grammar.File
		if len(g.srcs) == 1 && opts.Memo != nil {
			o := read
			o.Memo = opts.Memo
			files = []*grammar.File{grammar.ParseText(g.srcs[0].Path, g.srcs[0].AsText(), o)}
		} else {
			files = grammar.ParseConfigsWith(g.srcs, read)
		}
		var idx []int
		for k, f := range files {
			idx = append(idx, len(r.Files))
			syntax := f.Diagnostics
			if p, ok := g.binary[k]; ok {
				syntax = append([]grammar.Diagnostic{{
					Severity: grammar.SeverityError, Code: p.ProblemCode, Message: p.Problem,
					Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 1}},
				}}, f.Diagnostics...)
			}
			r.Files = append(r.Files, File{File: f, syntax: syntax, marks: -1})
		}
		r.groups = append(r.groups, idx)
		for _, p := range g.problems {
			f := grammar.ParseConfig(p.Path, nil, grammar.Options{Version: version})
			r.Files = append(r.Files, File{File: f, marks: -1, syntax: []grammar.Diagnostic{{
				Severity: grammar.SeverityError, Code: p.ProblemCode, Message: p.Problem,
				Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 1}},
			}}})
		}
	}
	htops.stopAtFirstFatal(r.Files)
	r.finish()
	return r
}

// toolReading is what reading a tool's file needs beside its text: the
// derived configs libpcp loads on its own, the run of htop files so far,
// and how derived configs are read.
type toolReading struct {
	auto  *autoDerived
	htops *htopRun
	read  grammar.Options
}

// addTool reads a tool's file, a config path of its own, with the derived
// configs loaded after a pmrep or pcp-dstat file's formulas (after:
// Input.AfterTool) in the same config path.
func (r *Result) addTool(kind toolconf.Kind, src grammar.Source, after []grammar.Source, tr toolReading) {
	version := tr.read.Version
	idx := []int{len(r.Files)}
	if kind == toolconf.Htop {
		f, hf := tr.htops.readFile(len(r.Files), src, version)
		r.Files = append(r.Files, File{File: f, syntax: f.Diagnostics, marks: -1, htop: hf, auto: tr.auto.files})
	} else {
		f, doc := readTool(kind, src, version, tr.auto.defined)
		r.Files = append(r.Files, File{File: f, syntax: f.Diagnostics, marks: -1, doc: doc, run: docFindings(doc), auto: tr.auto.files})
		if len(after) > 0 {
			for _, a := range grammar.ParseConfigsWith(after, tr.read) {
				idx = append(idx, len(r.Files))
				r.Files = append(r.Files, File{File: a, syntax: a.Diagnostics, marks: -1})
			}
		}
	}
	r.groups = append(r.groups, idx)
}

// Against is the parse to be checked against another source under the
// same release, why saying how that source's release was decided: one
// parse serves every source that follows the release (the hosts of a
// fleet). r is not changed.
func (r *Result) Against(src pmclient.Source, why VersionChoice) *Result {
	c := *r
	c.Config.Source, c.Config.Version.Reason = src, why.Reason
	return &c
}

// Check binds and checks the parsed files against the source, one config
// path at a time, and returns a new result; parsed is not changed. With
// no source, or when the check fails (CheckErr), the result keeps the
// syntax findings.
func Check(ctx context.Context, parsed *Result) *Result {
	src := parsed.Config.Source
	if src == nil {
		return parsed
	}
	r := *parsed
	r.Files = append([]File(nil), parsed.Files...)
	r.generation = sourceGeneration(src)
	opts := checker.Options{Version: r.Config.Version.Version, InDoms: r.Config.InDoms, FindingsOnly: r.Config.FindingsOnly, MaxPerCode: r.Config.capAsYouGo(r.opts)}
	if opts.MaxPerCode > 0 {
		opts.Suppressed = suppressedIfMarked(r.Files)
	}
	var reports []*checker.Report
	for _, idx := range r.groups {
		files := make([]*grammar.File, 0, len(idx))
		for _, i := range idx {
			files = append(append(files, r.Files[i].auto...), r.Files[i].File)
		}
		rep, err := checker.Check(ctx, files, src, opts)
		if err != nil {
			failed := *parsed // the syntax findings, nothing half-checked
			failed.CheckErr = err
			return &failed
		}
		reports = append(reports, rep)
		for _, i := range idx {
			r.Files[i].rep = rep
			r.Files[i].checked = rep.Findings(r.Files[i].File)
			if doc := r.Files[i].doc; doc != nil {
				if err := r.Files[i].checkTool(ctx, src, rep); err != nil {
					failed := *parsed
					failed.CheckErr = err
					return &failed
				}
			}
		}
	}
	r.Checked, r.SourceName = true, src.Describe()
	r.reports = reports
	if len(reports) == 1 {
		r.Report = reports[0]
		r.refs = &refsCell{}
	}
	r.finish()
	return &r
}

// finish makes each file's findings from what libpcp reports: merged by
// position, then Filter.
func (r *Result) finish() {
	for i := range r.Files {
		f := &r.Files[i]
		if f.marks < 0 {
			f.marks = bytes.Count(f.File.Text.Bytes(), directiveMark)
		}
		syntax, checked := f.syntax, f.checked
		if r.opts.Incremental && r.Config.MaxPerCode > 0 {
			// Capped here, each list as the read and the check cap
			// theirs, and with the same rule for suppressed findings.
			var isSuppressed func(*grammar.File, grammar.Diagnostic) bool // none without a comment
			if f.marks > 0 {
				isSuppressed = suppressed
			}
			syntax = grammar.CapFindings(f.File, syntax, r.Config.MaxPerCode, isSuppressed)
			if f.checkedOverCap(r.Config.MaxPerCode, isSuppressed != nil) {
				if list, over := grammar.CapFindingsSeq(f.File, checked.Values(), r.Config.MaxPerCode, isSuppressed); over {
					checked = pvec.Of(list)
				}
			}
		}
		f.Findings = filtered(f.File, f.marks > 0, r.Config.Rules, mergedFindings(syntax, checked, f.sortedBase))
		f.sortedBase = Findings{} // not the last version's findings kept alive
	}
}

// checkedOverCap says whether the checker's findings of f may have more
// than limit of a kind: the report's counts, kept per edit, say so without
// a pass over every finding (47 µs of a keystroke at 100,000 lines with
// 2,500 findings), unless suppression comments (marked) may discount some
// or a tool's file added findings of its own.
func (f *File) checkedOverCap(limit int, marked bool) bool {
	if f.rep == nil || marked || f.doc != nil {
		return true
	}
	over, known := f.rep.OverCap(limit)
	return over || !known
}

// filtered turns findings of f as libpcp produces them (sorted by
// position) into what the user is shown: suppression comments applied
// (when the text has directiveMark: marked), with their own problems,
// then the project's rules; all as it is when neither a comment nor a
// rule can change it. It is the one place both are applied, for a single
// analysis and for each host of a fleet.
func filtered(f *grammar.File, marked bool, r rules.Rules, all Findings) Findings {
	if !marked && r.Neutral() {
		return all
	}
	return FindingsOf(r.Apply(suppress(f, marked, all.Slice())))
}

// sortedByPosition reports whether diags are in order of start. By index:
// slices.IsSortedFunc would copy two findings (136 bytes each) into each
// comparison, on every keystroke.
func sortedByPosition(diags []grammar.Diagnostic) bool {
	for i := 1; i < len(diags); i++ {
		if diags[i].Range.Start.Before(diags[i-1].Range.Start) {
			return false
		}
	}
	return true
}

func sortByPosition(diags []grammar.Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Before(diags[j].Range.Start) })
}

// Unfiltered returns the file's findings as libpcp produces them, sorted
// by position: no suppression comment or rule applied (check's pcp
// format, which mirrors libpcp).
func (f File) Unfiltered() []grammar.Diagnostic {
	return mergedFindings(f.syntax, f.checked, Findings{}).Slice()
}

// PCPOrder returns, for each file, the findings libpcp prints, in the
// order it prints them: each file's syntax errors while loading it, then
// — after every file of the config path has loaded — the binding errors
// of all of them (listed with the config path's last file). Suppression
// comments and rules are libpcp's unknown: nothing is dropped.
func (r *Result) PCPOrder() [][]grammar.Diagnostic {
	out := make([][]grammar.Diagnostic, len(r.Files))
	for i, f := range r.Files {
		out[i] = f.syntax
	}
	if !r.Checked {
		return out
	}
	for _, idx := range r.groups {
		if len(idx) == 0 {
			continue
		}
		last := idx[len(idx)-1]
		list := append([]grammar.Diagnostic(nil), r.Files[last].syntax...)
		for _, i := range idx {
			list = append(list, r.Files[i].checked.Collect()...)
		}
		out[last] = list
	}
	return out
}

// sourceGeneration is the source's generation, 0 for a source whose
// answers never change as a whole.
func sourceGeneration(src pmclient.Source) uint64 {
	if g, ok := src.(pmclient.Generationer); ok {
		return g.Generation()
	}
	return 0
}

// ConfigPath is one config path of a Result: its parsed derived configs,
// in the order libpcp loads them, and the checker's report on them (nil
// when the analysis did not check them).
type ConfigPath struct {
	Files  []*grammar.File
	Report *checker.Report
}

// ConfigPaths are the config paths of the inputs (all of them, or each
// group with Options.Separate); tool files (pmrep, pcp-dstat, pcp-htop)
// are left out.
func (r *Result) ConfigPaths() []ConfigPath {
	var out []ConfigPath
	for gi, g := range r.groups {
		var files []*grammar.File
		for _, i := range g {
			if f := r.Files[i]; f.doc == nil && f.htop == nil {
				files = append(files, f.File)
			}
		}
		if len(files) == 0 {
			continue
		}
		p := ConfigPath{Files: files}
		if gi < len(r.reports) {
			p.Report = r.reports[gi]
		}
		out = append(out, p)
	}
	return out
}
