package grammar

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Registration is one pmRegisterDerivedMetric call a PCP tool makes with
// text of its own config file (a pmrep formula, a pcp-dstat column): the
// name and expression exactly as the tool passes them, and where each
// byte of the expression is in the file, so that the findings about it
// land on the file's own columns.
type Registration struct {
	Name      string
	NameRange Range
	Expr      string
	// Runs map Expr to the file: Expr[Runs[k].At:] is contiguous from file
	// offset Runs[k].Off up to the next run (At ascending, the first 0).
	Runs []ExprRun
	// Range is the whole config entry, continuation lines included; Line
	// is its first line.
	Range Range
	Line  int
	// Skip says the tool never registers it (pmconfig looks the name up
	// first: an earlier registration of the name wins); the caller says
	// why. Its syntax is still read, for the editor.
	Skip bool
}

// ExprRun is a stretch of an expression contiguous in the file.
type ExprRun struct{ At, Off int }

// RegisterOptions control Registered.
type RegisterOptions struct {
	Version pcpver.Version
	// PCP wraps libpcp's message for a rejected expression (the
	// pmRegisterDerivedMetric error string, line by line) in what the
	// tool prints around it; nil keeps libpcp's lines.
	PCP func(name string, lines []string) []string
}

// Registered returns a File of text whose definitions are regs, each read
// as pmRegisterDerivedMetric reads it: one name and one expression, no
// name rules, comments, continuation or attribute lines, errors in the
// API's words (`Error: pmRegisterDerivedMetric("NAME", ...)` and the
// expression with its caret) rather than pmLoadDerivedConfig's. The
// checker then binds and checks them like any config's definitions.
// diags are the caller's own findings about the file, kept in
// Diagnostics (sorted with the syntax findings by position).
func Registered(path string, text *Text, regs []Registration, diags []Diagnostic, opts RegisterOptions) *File {
	f := &File{Path: path, Text: text, Version: opts.Version}
	f.Diagnostics = append(f.Diagnostics, diags...)
	var vs verdictScratch
	defs := make([]*Definition, 0, len(regs))
	for _, reg := range regs {
		d := &Definition{Name: reg.Name, NameRange: reg.NameRange, Expr: reg.Expr, Range: reg.Range, Line: int32(reg.Line)}
		d.leaked, d.release = f.Leak, packVersion(f.Version)
		start := f.OffsetOf(reg.Range.Start)
		if len(reg.Runs) > 0 {
			d.exprBase = int32(reg.Runs[0].Off - start)
			if len(reg.Runs) > 1 {
				more := make([]offsetRun, 0, len(reg.Runs)-1)
				for _, r := range reg.Runs[1:] {
					more = append(more, offsetRun{r.At, r.Off - start})
				}
				d.exprRuns = &more
			}
		}
		defs = append(defs, d)
		wasLeaking := f.Leak
		d.Verdict = vs.verdict(d.Expr, f.Version, f.Leak)
		if reg.Skip {
			continue
		}
		f.Leak = d.Verdict.Leak
		if d.Verdict.OK {
			d.Registered = true
			continue
		}
		f.Diagnostics = append(f.Diagnostics, registrationError(f, d, opts, wasLeaking))
	}
	f.Definitions = pvec.Of(defs)
	sortByStart(f.Diagnostics)
	return f
}

// maxDialectExpr bounds the expressions whose error is explained by
// parsing them again as each later release (the newer construct): a
// megabyte formula is not written by hand, and the parses cost seconds.
const maxDialectExpr = 64 << 10

// registrationError is the finding for an expression libpcp rejects.
func registrationError(f *File, d *Definition, opts RegisterOptions, wasLeaking bool) Diagnostic {
	caret := int(d.Verdict.Caret)
	msg, end := rejectionMessage(d, caret, wasLeaking, "expression")
	code, rg := codes.Syntax, f.ExprRange(d, caret, end)
	if len(d.Expr) <= maxDialectExpr {
		r := &configReader{f: f}
		if c, dialectMsg, ok := r.dialect(d, wasLeaking, msg); ok {
			code, msg, rg = codes.Dialect, dialectMsg, f.ExprRange(d, int(c.At.Start), int(c.At.End))
		}
	}
	lines := RegisterErrorLines(d.Name, d.Expr, caret, d.Verdict.Message)
	if opts.PCP != nil {
		lines = opts.PCP(d.Name, lines)
	}
	return Diagnostic{Range: rg, Severity: SeverityError, Code: code, Message: msg, PCP: lines}
}

// RegisterErrorLines is pmRegisterDerivedMetric's error string for a
// rejected expression, line by line: the header, the expression (its
// own lines), a caret line of spaces up to the error's offset in the
// whole expression, and libpcp's diagnostic when it has one.
func RegisterErrorLines(name, expr string, caret int, msg string) []string {
	lines := []string{"Error: pmRegisterDerivedMetric(\"" + name + "\", ...)"}
	lines = append(lines, strings.Split(expr, "\n")...)
	lines = append(lines, strings.Repeat(" ", max(caret, 0))+"^")
	if msg != "" {
		lines = append(lines, msg)
	}
	return lines
}

func sortByStart(diags []Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Before(diags[j].Range.Start) })
}
