// Package report renders diagnostics for people and for tools: compiler
// style text, libpcp's own stderr lines, a versioned JSON document, and
// SARIF 2.1.0 for code-scanning services.
package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// File is one config file with every finding about it, sorted.
type File struct {
	File        *grammar.File
	Diagnostics []grammar.Diagnostic
	// PCPOrder holds the findings libpcp prints, in the order it prints
	// them (syntax while loading, semantic errors while binding).
	PCPOrder []grammar.Diagnostic
}

// Run is everything one check produced.
type Run struct {
	Tool    string // "pcp-derive-lsp"
	Version string
	// PCPVersion is the release whose libpcp the check followed, and
	// PCPVersionReason why (a flag, the source's own version, ...).
	PCPVersion       pcpver.Version
	PCPVersionReason string
	Source           string // where metadata came from
	Files            []File
}

// Counts tallies findings by severity.
func (r *Run) Counts() (errs, warnings, others int) {
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			switch d.Severity {
			case grammar.SeverityError:
				errs++
			case grammar.SeverityWarning:
				warnings++
			default:
				others++
			}
		}
	}
	return
}

// Text writes "file:line:col: severity: message [code]", the source line
// and a marker under the range, as compilers do.
func Text(w io.Writer, r *Run) error {
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			start := d.Range.Start
			if _, err := fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]\n", f.File.Path, start.Line, start.Col, d.Severity, d.Message, d.Code); err != nil {
				return err
			}
			line := f.File.Line(start.Line)
			if line == "" {
				continue
			}
			fmt.Fprintf(w, "    %s\n    %s\n", line, marker(line, d.Range))
		}
	}
	return nil
}

// marker underlines a range on its first line: "^" then "~" to its end,
// keeping tabs so the marker lines up with the source.
func marker(line string, rg grammar.Range) string {
	startCol := rg.Start.Col - 1
	endCol := len(line)
	if rg.End.Line == rg.Start.Line {
		endCol = rg.End.Col - 1
	}
	startCol = min(max(startCol, 0), len(line))
	endCol = min(max(endCol, startCol+1), len(line)+1)
	var b strings.Builder
	for i, c := range line[:startCol] {
		_ = i
		if c == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('^')
	width := utf8.RuneCountInString(safeSlice(line, startCol+1, endCol))
	b.WriteString(strings.Repeat("~", width))
	return b.String()
}

func safeSlice(s string, a, b int) string {
	a, b = min(max(a, 0), len(s)), min(max(b, 0), len(s))
	if a >= b {
		return ""
	}
	return s[a:b]
}

// PCP writes exactly what libpcp prints to stderr for the same files.
func PCP(w io.Writer, r *Run) error {
	for _, f := range r.Files {
		for _, d := range f.PCPOrder {
			for _, l := range d.PCP {
				if _, err := fmt.Fprintln(w, l); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
