package analysis

import (
	"context"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"os"
	"path/filepath"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// readTool reads a pmrep or pcp-dstat file (toolconf/pmconfig): its
// derived metrics as a grammar.File the checker checks like any config's,
// with the reader's findings in its Diagnostics. pcp-htop's files are
// htopRun's.
func readTool(kind toolconf.Kind, src grammar.Source, v pcpver.Version, defined map[string]string) (*grammar.File, *pmconfig.Doc) {
	text := src.AsText()
	tool := pmconfig.Pmrep
	if kind == toolconf.Dstat {
		tool = pmconfig.Dstat
	}
	doc := pmconfig.Read(src.Path, text, pmconfig.Options{Tool: tool, Version: v, Defined: defined})
	return doc.File, doc
}

// ToolDoc is the tool's reading of a pmrep or pcp-dstat file, nil for a
// derived config.
func (f File) ToolDoc() *pmconfig.Doc { return f.doc }

// AutoDerived are the derived configs libpcp loads before a tool's
// formulas (Config.ToolDerived), checked with a tool's file: their
// metrics are in the report, not the file's own.
func (f File) AutoDerived() []*grammar.File { return f.auto }

// ToolRun is every problem of a tool's file as the tool meets it when
// run (pmconfig.Finding: phase, section, what the tool prints), those
// the metadata tells included once checked; nil for a derived config.
func (f File) ToolRun() []pmconfig.Finding { return f.run }

// CheckReport is the checker's report of the config path the file was
// checked in (a tool's file is a config path of its own, with the
// derived configs libpcp loads before it); nil before the check.
func (f File) CheckReport() *checker.Report { return f.rep }

// ToolSpecs are the metric specs of a pmrep file with what the metadata
// says of each one's metric (describe lists them), nil for another file
// or before the check.
func (f File) ToolSpecs() []pmconfig.SpecMetric { return f.specs }

// checkTool adds the findings of a tool's file that need the metadata
// (its specs' metrics, instances, units) to the checker's.
func (f *File) checkTool(ctx context.Context, src pmclient.Source, rep *checker.Report) error {
	found, specs, err := f.doc.Check(ctx, src, rep)
	if err != nil {
		return err
	}
	f.specs = specs
	masked := map[*grammar.Definition]bool{}
	for _, d := range found {
		if d.Masks != nil {
			masked[d.Masks] = true
		}
	}
	inMasked := func(d grammar.Diagnostic) bool {
		if len(masked) == 0 || (d.Code != codes.Syntax && d.Code != codes.Dialect) {
			return false
		}
		def := f.File.DefinitionAtPos(d.Range.Start)
		return def != nil && masked[def]
	}
	f.run = nil
	for _, d := range append(append([]pmconfig.Finding(nil), f.doc.Findings...), found...) {
		if !inMasked(d.Diagnostic) {
			f.run = append(f.run, d)
		}
	}
	if len(masked) > 0 {
		// The tool never sees the syntax error: a hint, no longer an error.
		syntax := append([]grammar.Diagnostic(nil), f.syntax...)
		for i := range syntax {
			if inMasked(syntax[i]) {
				syntax[i].Severity = grammar.SeverityHint
				syntax[i].PCP = nil
			}
		}
		f.syntax = syntax
	}
	var shown []grammar.Diagnostic
	for _, d := range found {
		if !d.Silent {
			shown = append(shown, d.Diagnostic)
		}
	}
	if len(shown) == 0 {
		return nil
	}
	all := append(f.checked.Collect(), shown...)
	sortByPosition(all)
	f.checked = pvec.Of(all)
	return nil
}

// docFindings are the reader's findings of a tool's file, nil for none.
func docFindings(doc *pmconfig.Doc) []pmconfig.Finding {
	if doc == nil {
		return nil
	}
	return doc.Findings
}

// autoDerived is Config.ToolDerived read: the files, and the names they
// define with the file of each.
type autoDerived struct {
	files   []*grammar.File
	defined map[string]string
}

// readAutoDerived reads the derived configs libpcp loads on its own, as
// one config path (unreadable ones are left out, as libpcp's automatic
// load ignores them).
func readAutoDerived(inputs []Input, read grammar.Options) *autoDerived {
	a := &autoDerived{defined: map[string]string{}}
	var srcs []grammar.Source
	for _, in := range inputs {
		if in.Err == nil && in.Problem == "" {
			srcs = append(srcs, grammar.Source{Path: in.Path, Src: in.Src})
		}
	}
	if len(srcs) == 0 {
		return a
	}
	read.MaxPerCode, read.Suppressed, read.Memo = 0, nil, nil
	a.files = grammar.ParseConfigsWith(srcs, read)
	for _, f := range a.files {
		for _, d := range f.Definitions.All() {
			if d.Registered {
				a.defined[d.Name] = f.Path
			}
		}
	}
	return a
}

// AutoDerivedInputs are the derived configs libpcp loads on its own when
// a client starts, as getenv tells: $PCP_DERIVED_CONFIG's list when set
// ("" loads none), else $PCP_VAR_DIR/config/derived (default
// /var/lib/pcp). Check of pmrep and pcp-dstat files uses them
// (Config.ToolDerived).
func AutoDerivedInputs(getenv func(string) string, lookup func(string) (string, bool)) []Input {
	path, set := lookup("PCP_DERIVED_CONFIG")
	if !set {
		dir := getenv("PCP_VAR_DIR")
		if dir == "" {
			dir = "/var/lib/pcp"
		}
		path = filepath.Join(dir, "config", "derived")
		if _, err := os.Stat(path); err != nil {
			return nil
		}
	}
	if path == "" {
		return nil
	}
	var out []Input
	for _, in := range ReadInputs([]string{path}, nil, DefaultMaxSize) {
		if in.Err == nil && in.Problem == "" {
			in.Kind = toolconf.Derived
			out = append(out, in)
		}
	}
	return out
}
