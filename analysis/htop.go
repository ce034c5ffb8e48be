package analysis

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
)

// htopRun reads the pcp-htop files of one analysis as one pcp-htop run
// reads them (toolconf/htop): in the inputs' order, so that the first
// meter, column or screen of a name wins and a metric name registered
// twice is fatal, across files as within one. The zero value is ready;
// its reader is made for the release of the first file read.
type htopRun struct{ reader *htop.Reader }

// read reads one htop file: each expression pcp-htop registers becomes a
// grammar.Registration, so that the one checker checks it with
// pmRegisterDerivedMetric's semantics and its findings land on the
// file's own columns; the reader's problems become the file's own
// findings, with their fixes. A file outside a meters, columns or
// screens directory (check --kind htop FILE) is read as a meter file.
func (h *htopRun) read(src grammar.Source, v pcpver.Version) (*grammar.File, *htop.File) {
	if h.reader == nil {
		h.reader = htop.NewReader(v)
	}
	text := src.AsText()
	kind, ok := htop.KindOf(src.Path)
	if !ok {
		kind = htop.Meter
	}
	hf := h.reader.Read(kind, src.Path, text.Bytes())
	pos := &grammar.File{Text: text}
	at := func(off, end int) grammar.Range { return grammar.Range{Start: pos.Pos(off), End: pos.Pos(end)} }

	regs := make([]grammar.Registration, 0, len(hf.Exprs))
	byName := make(map[string]*htop.Expr, len(hf.Exprs))
	for _, e := range hf.Exprs {
		regs = append(regs, grammar.Registration{
			Name: e.Name, NameRange: at(e.KeyOff, e.KeyEnd), Expr: e.Text,
			Runs:  []grammar.ExprRun{{At: 0, Off: e.Off}},
			Range: at(e.Start, e.End), Line: e.Line, Skip: e.Skip,
		})
		if _, seen := byName[e.Name]; !seen && !e.Skip {
			byName[e.Name] = e
		}
	}
	diags := make([]grammar.Diagnostic, 0, len(hf.Problems))
	for _, p := range hf.Problems {
		diags = append(diags, htopDiagnostic(p, at))
	}
	f := grammar.Registered(src.Path, text, regs, diags, grammar.RegisterOptions{Version: v,
		PCP: func(name string, lines []string) []string {
			if e := byName[name]; e != nil {
				return hf.Fatal(e, lines)
			}
			return lines
		}})
	if hf.Rules.NovalueOption {
		// pcp-htop sets PCP_DERIVED_OPTION_NOVALUE before it registers
		// anything: an unknown operand is novalue(), as after a config's
		// "#control option_novalue=1".
		on := true
		f.OptionNovalue = &on
	}
	return f, hf
}

// htopDiagnostic is one of the reader's problems as a finding: at the
// registry's severity (an error when pcp-htop stops there), pcp-htop's
// own words as its PCP lines, and the reader's one edit as a fix.
func htopDiagnostic(p htop.Problem, at func(off, end int) grammar.Range) grammar.Diagnostic {
	d := grammar.Diagnostic{Range: at(p.Off, p.End), Severity: grammar.SeverityWarning, Code: p.Code, Message: p.Message, PCP: p.Htop, More: p.More}
	if in, ok := codes.Lookup(p.Code); ok {
		d.Severity = severityOf(in.Severity)
	}
	if p.Fatal {
		d.Severity = grammar.SeverityError
	}
	if p.Fix != nil {
		d.Fixes = []grammar.Fix{{Title: "Change to " + p.Fix.Text, Safe: p.Fix.Safe,
			Edits: []grammar.Edit{{Range: at(p.Fix.Off, p.Fix.End), NewText: p.Fix.Text}}}}
	}
	return d
}

// severityOf is a registry severity as a finding's.
func severityOf(s codes.Severity) grammar.Severity {
	switch s {
	case codes.SevError:
		return grammar.SeverityError
	case codes.SevInfo:
		return grammar.SeverityInfo
	case codes.SevHint:
		return grammar.SeverityHint
	}
	return grammar.SeverityWarning
}

// HtopFile is pcp-htop's reading of an htop meter, column or screen
// file, nil for any other file.
func (f File) HtopFile() *htop.File { return f.htop }

// ToolFile reports whether the file is a tool's (pmrep, pcp-dstat,
// pcp-htop) rather than a derived config: its definitions are values in
// the tool's syntax, which the editor must not reformat.
func (f File) ToolFile() bool { return f.doc != nil || f.htop != nil }
