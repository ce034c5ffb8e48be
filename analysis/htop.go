package analysis

import (
	"slices"

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
type htopRun struct {
	reader *htop.Reader
	// read are the files read so far, in the order read.
	read []htopRead
}

// htopRead is one file htopRun read: its index in the result's Files,
// its kind, and the index in its Diagnostics of the first problem that
// stops pcp-htop (-1 for none).
type htopRead struct {
	file  int
	kind  htop.Kind
	fatal int
}

// readFile reads one htop file, Files[index] of the result: each
// expression pcp-htop registers becomes a grammar.Registration, so that
// the one checker checks it with pmRegisterDerivedMetric's semantics and
// its findings land on the file's own columns; the reader's problems
// become the file's own findings, with their fixes. A file outside a
// meters, columns or screens directory (check --kind htop FILE) is read
// as a meter file.
func (h *htopRun) readFile(index int, src grammar.Source, v pcpver.Version) (*grammar.File, *htop.File) {
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
	fatal := map[grammar.Pos]bool{}
	for _, p := range hf.Problems {
		d := htopDiagnostic(p, at)
		if p.Fatal {
			fatal[d.Range.Start] = true
		}
		diags = append(diags, d)
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
	first := -1
	for i, d := range f.Diagnostics {
		// An expression libpcp refuses (pcp-htop's fatal text wraps its
		// lines) or a problem of the reader's that stops pcp-htop.
		if (d.Code == codes.Syntax || d.Code == codes.Dialect) && len(d.PCP) > 0 || fatal[d.Range.Start] && d.Severity == grammar.SeverityError {
			first = i
			break
		}
	}
	h.read = append(h.read, htopRead{file: index, kind: kind, fatal: first})
	return f, hf
}

// stopAtFirstFatal leaves pcp-htop's words (Diagnostic.PCP, check
// --format pcp) only on what pcp-htop gets to print: it reads meters,
// then columns, then screens, each in the inputs' order, and exits at
// the first problem that stops it, so nothing after that prints. The
// findings stay, for text, JSON and the editor.
func (h *htopRun) stopAtFirstFatal(files []File) {
	order := slices.Clone(h.read)
	slices.SortStableFunc(order, func(a, b htopRead) int { return int(a.kind) - int(b.kind) })
	stopped := false
	for _, rd := range order {
		diags := files[rd.file].File.Diagnostics
		for i := range diags {
			if stopped {
				diags[i].PCP = nil
			}
			if i == rd.fatal {
				stopped = true
			}
		}
	}
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
