package htop

import (
	"fmt"
	"strings"
)

// LibpcpLines is the error string pmRegisterDerivedMetric returns for a
// rejected expression, line by line: the call, the expression, a caret
// under byte caret, and libpcp's message ("" when it gives none).
func LibpcpLines(name, expr string, caret int, message string) []string {
	lines := []string{`Error: pmRegisterDerivedMetric("` + name + `", ...)`, expr, strings.Repeat(" ", caret) + "^"}
	if message != "" {
		lines = append(lines, message)
	}
	return lines
}

// FatalLines wraps libpcp's lines for a rejected expression (LibpcpLines,
// or the analysis' own rendering of them) in what pcp-htop prints before
// it exits with status 2: its "failed to parse expression" line, libpcp's
// error string, an empty line, and strerror(EINVAL) after the program
// name (meters) or after nothing (columns and screens, whose note ends in
// a newline instead). htopLine is Expr.HtopLine.
func FatalLines(kind Kind, path string, htopLine int, libpcp []string) []string {
	out := make([]string, 0, len(libpcp)+3)
	out = append(out, fmt.Sprintf("%s: failed to parse expression in %s at line %d", progname, path, htopLine))
	out = append(out, libpcp...)
	last := ": Invalid argument"
	if kind == Meter {
		last = progname + last
	}
	return append(out, "", last)
}

// Fatal is FatalLines for the file e is in.
func (f *File) Fatal(e *Expr, libpcp []string) []string {
	return FatalLines(f.Kind, f.Path, e.HtopLine, libpcp)
}
