package analysis

import (
	"context"
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// readTool reads a tool's file (toolconf): its derived metrics as a
// grammar.File the checker checks like any config's, with the reader's
// findings in its Diagnostics.
func readTool(kind toolconf.Kind, src grammar.Source, v pcpver.Version) (*grammar.File, *pmconfig.Doc) {
	text := src.AsText()
	switch kind {
	case toolconf.Pmrep, toolconf.Dstat:
		tool := pmconfig.Pmrep
		if kind == toolconf.Dstat {
			tool = pmconfig.Dstat
		}
		doc := pmconfig.Read(src.Path, text, pmconfig.Options{Tool: tool, Version: v})
		return doc.File, doc
	}
	f := grammar.Registered(src.Path, text, nil, []grammar.Diagnostic{{
		Severity: grammar.SeverityWarning, Code: "kind-unsupported",
		Message: fmt.Sprintf("a %s file: this build does not read them, so it is not checked", kind),
		Range:   grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 1}},
	}}, grammar.RegisterOptions{Version: v})
	return f, nil
}

// ToolDoc is the tool's reading of a pmrep or pcp-dstat file, nil for a
// derived config.
func (f File) ToolDoc() *pmconfig.Doc { return f.doc }

// ToolRun is every problem of a tool's file as the tool meets it when
// run (pmconfig.Finding: phase, section, what the tool prints), those
// the metadata tells included once checked; nil for a derived config.
func (f File) ToolRun() []pmconfig.Finding { return f.run }

// checkTool adds the findings of a tool's file that need the metadata
// (its specs' metrics, instances, units) to the checker's.
func (f *File) checkTool(ctx context.Context, src pmclient.Source, rep *checker.Report) error {
	found, _, err := f.doc.Check(ctx, src, rep)
	if err != nil {
		return err
	}
	f.run = append(append([]pmconfig.Finding(nil), f.doc.Findings...), found...)
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
