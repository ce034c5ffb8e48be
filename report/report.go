// Package report renders diagnostics for people and for tools: compiler
// style text, libpcp's own stderr lines, a versioned JSON document, and
// SARIF 2.1.0 for code-scanning services.
package report

import (
	"bufio"
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
	// Unread are the inputs that could not be read at all (I/O errors):
	// no findings, but the run was incomplete.
	Unread []Unread
	// DocsURL is the base of the code pages rules link to
	// (codes.DocURL; "" for the project's own).
	DocsURL string
}

// Unread is an input that could not be read, and why.
type Unread struct {
	Path    string
	Message string
}

// Counts tallies findings by severity.
func (r *Run) Counts() (errs, warnings, others int) {
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			switch n := d.Count(); d.Severity {
			case grammar.SeverityError:
				errs += n
			case grammar.SeverityWarning:
				warnings += n
			default:
				others += n
			}
		}
	}
	return
}

// Text writes "file:line:col: severity: message [code]", the source line
// and a marker under the range, as compilers do. A long source line is
// shown as a window around the range (see excerpt), so a file of one
// huge line with many findings prints in proportion to the findings,
// not findings times the line.
func Text(w io.Writer, r *Run) error { return TextWith(w, r, TextOptions{}) }

// TextOptions changes how Text renders.
type TextOptions struct {
	// Color marks up severities, positions and markers with ANSI escapes,
	// for a terminal.
	Color bool
}

// ANSI escapes for TextOptions.Color.
const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[1;36m"
	ansiGreen  = "\x1b[32m"
	ansiDim    = "\x1b[2m"
	ansiReset  = "\x1b[0m"
)

// paint wraps s in an ANSI escape when on.
func paint(on bool, esc, s string) string {
	if !on {
		return s
	}
	return esc + s + ansiReset
}

func severityColor(s grammar.Severity) string {
	switch s {
	case grammar.SeverityError:
		return ansiRed
	case grammar.SeverityWarning:
		return ansiYellow
	}
	return ansiCyan
}

// TextWith is Text with options.
func TextWith(w io.Writer, r *Run, opts TextOptions) error {
	c := opts.Color
	bw := bufio.NewWriter(w)
	for _, f := range r.Files {
		// Findings come sorted, so those on one line are neighbours:
		// fetch (copy) each line once, not once per finding.
		lineNo, line := 0, ""
		for _, d := range f.Diagnostics {
			start := d.Range.Start
			// Paths, messages (which quote names and instances) and
			// source lines are input: escaped (Escape), so only the
			// colours are escape sequences.
			where := fmt.Sprintf("%s:%d:%d:", Escape(f.File.Path), start.Line, start.Col)
			if _, err := fmt.Fprintf(bw, "%s %s: %s %s\n", paint(c, ansiBold, where), paint(c, severityColor(d.Severity), d.Severity.String()), Escape(d.Message), paint(c, ansiDim, "["+Escape(d.Code)+"]")); err != nil {
				return err
			}
			if int(start.Line) != lineNo {
				lineNo, line = int(start.Line), f.File.Line(int(start.Line))
			}
			if line == "" {
				continue
			}
			text, mark := escapeMarked(excerpt(line, d.Range, MaxSourceWidth))
			if _, err := fmt.Fprintf(bw, "    %s\n    %s\n", text, paint(c, ansiGreen, mark)); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// MaxSourceWidth is the most bytes of a source line Text shows under a
// finding; the line:col in the header still gives the exact position.
const MaxSourceWidth = 160

// ellipsis marks where excerpt cut a line.
const ellipsis = "…"

// excerpt returns the part of line Text shows for a finding at rg and the
// marker under it. A line of at most width bytes is shown whole. A longer
// one is cut to width bytes starting a little before the range (so the
// reader sees what leads up to it), on rune boundaries, with an ellipsis
// at each cut; the marker is cut to the window too.
func excerpt(line string, rg grammar.Range, width int) (text, mark string) {
	if len(line) <= width {
		return line, marker(line, rg)
	}
	startCol := min(max(int(rg.Start.Col)-1, 0), len(line))
	from := max(startCol-width/4, 0)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	to := min(from+width, len(line))
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to--
	}
	window := line[from:to]
	shifted := grammar.Range{
		Start: grammar.Pos{Line: rg.Start.Line, Col: rg.Start.Col - int32(from)},
		End:   grammar.Pos{Line: rg.End.Line, Col: rg.End.Col - int32(from)},
	}
	if rg.End.Line != rg.Start.Line || int(rg.End.Col)-1 > to {
		// The range runs past the window: underline to its edge.
		shifted.End = grammar.Pos{Line: rg.Start.Line, Col: int32(len(window) + 1)}
	}
	text, mark = window, marker(window, shifted)
	if from > 0 {
		text = ellipsis + text
		mark = " " + mark
	}
	if to < len(line) {
		text += ellipsis
	}
	return text, mark
}

// escapeMarked escapes a source excerpt (Escape) and widens its marker
// to match: a byte shown as \xNN takes four columns.
func escapeMarked(text, mark string) (string, string) {
	if clean(text, false) {
		return text, mark
	}
	var t, m strings.Builder
	marks := []rune(mark)
	k := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		shown := text[i : i+size]
		if unsafe(r, size, false) {
			shown = Escape(shown)
		}
		t.WriteString(shown)
		if k < len(marks) {
			switch w := utf8.RuneCountInString(shown); marks[k] {
			case '^':
				m.WriteString("^" + strings.Repeat("~", w-1))
			case '~':
				m.WriteString(strings.Repeat("~", w))
			case ' ':
				m.WriteString(strings.Repeat(" ", w))
			default:
				m.WriteRune(marks[k])
			}
			k++
		}
		i += size
	}
	for ; k < len(marks); k++ {
		m.WriteRune(marks[k])
	}
	return t.String(), strings.TrimRight(m.String(), " ")
}

// marker underlines a range on its first line: "^" then "~" to its end,
// keeping tabs so the marker lines up with the source.
func marker(line string, rg grammar.Range) string {
	startCol := int(rg.Start.Col) - 1
	endCol := len(line)
	if rg.End.Line == rg.Start.Line {
		endCol = int(rg.End.Col) - 1
	}
	startCol = min(max(startCol, 0), len(line))
	endCol = min(max(endCol, startCol+1), len(line)+1)
	var b strings.Builder
	for _, c := range line[:startCol] {
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
