package analysis

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// directiveMark is in every comment meant for us; a file without it has
// nothing to suppress, and costs no scan.
var directiveMark = []byte("pcp-derive-lsp")

var ignoreRE = regexp.MustCompile(`^#\s*pcp-derive-lsp:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?\s*$`)

// directiveRE spots a comment meant for us, well formed or not.
var directiveRE = regexp.MustCompile(`^#\s*pcp-derive-lsp\s*:`)

// suppress drops findings on a definition whose previous line is a
// comment "# pcp-derive-lsp: ignore[CODE,...]" (or "ignore" for every
// code), and reports such comments that are malformed or name a code the
// registry does not have: a misspelt code would otherwise suppress
// nothing, silently. diags must be sorted by position; so is the result.
// Without any such comment in the file (marked says whether its text has
// directiveMark at all), diags is returned as it is.
func suppress(f *grammar.File, marked bool, diags []grammar.Diagnostic) []grammar.Diagnostic {
	if !marked {
		return diags
	}
	out := diags[:0:0]
	for _, d := range diags {
		if !suppressed(f, d) {
			out = append(out, d)
		}
	}
	out = append(out, directiveFindings(f)...)
	sortByPosition(out)
	return out
}

// suppressed reports whether a comment "# pcp-derive-lsp: ignore[...]"
// on the line before d's definition turns d off.
func suppressed(f *grammar.File, d grammar.Diagnostic) bool {
	first := d.Range.Start.Line
	if def := f.DefinitionAtPos(d.Range.Start); def != nil {
		first = def.Range.Start.Line
	}
	m := ignoreRE.FindStringSubmatch(f.Line(int(first) - 1))
	if m == nil {
		return false
	}
	ignored := strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' })
	return len(ignored) == 0 || slices.Contains(ignored, d.Code)
}

// suppressedIfMarked is suppressed for files whose text has
// directiveMark, for the grammar and the checker to leave findings turned
// off out of their count of each code (grammar.Options.Suppressed,
// checker.Options.Suppressed). Whether a file has the mark is taken from
// known (the analysis counts marks per file) or looked up once. It is for
// one parse or check: not safe for concurrent use.
func suppressedIfMarked(known []File) func(*grammar.File, grammar.Diagnostic) bool {
	marked := map[*grammar.File]bool{}
	for _, f := range known {
		if f.marks >= 0 {
			marked[f.File] = f.marks > 0
		}
	}
	return func(f *grammar.File, d grammar.Diagnostic) bool {
		m, seen := marked[f]
		if !seen {
			m = bytes.Contains(f.Text.Bytes(), directiveMark)
			marked[f] = m
		}
		return m && suppressed(f, d)
	}
}

// directiveFindings checks every "# pcp-derive-lsp:" comment of f.
func directiveFindings(f *grammar.File) []grammar.Diagnostic {
	var out []grammar.Diagnostic
	for start, line := range f.Text.Lines() {
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > 0 && line[0] == '#' && bytes.Contains(line, directiveMark) && directiveRE.Match(line) {
			out = append(out, checkDirective(f, start, string(line))...)
		}
	}
	return out
}

// checkDirective reports what is wrong with one directive comment that
// starts at file offset at.
func checkDirective(f *grammar.File, at int, line string) []grammar.Diagnostic {
	rangeOf := func(from, to int) grammar.Range {
		return grammar.Range{Start: f.Pos(at + from), End: f.Pos(at + to)}
	}
	m := ignoreRE.FindStringSubmatchIndex(line)
	if m == nil {
		return []grammar.Diagnostic{{
			Range: rangeOf(0, len(line)), Severity: grammar.SeverityError, Code: codes.Suppression,
			Message: `malformed pcp-derive-lsp comment: want "# pcp-derive-lsp: ignore" or "# pcp-derive-lsp: ignore[CODE,...]"`,
		}}
	}
	var out []grammar.Diagnostic
	for _, span := range listedCodes(line, m) {
		code := line[span[0]:span[1]]
		if _, ok := codes.Lookup(code); ok {
			continue
		}
		rg := rangeOf(span[0], span[1])
		d := grammar.Diagnostic{Range: rg, Severity: grammar.SeverityError, Code: codes.Suppression,
			Message: fmt.Sprintf("unknown finding code %q: this comment suppresses nothing for it", code)}
		if alt := codes.Closest(code); alt != "" {
			d.Message += fmt.Sprintf("; did you mean %s?", alt)
			d.Fixes = []grammar.Fix{{Title: "Change to " + alt, Edits: []grammar.Edit{{Range: rg, NewText: alt}}, Safe: true}}
		}
		out = append(out, d)
	}
	return out
}

// IgnoredCodes finds the codes a suppression comment names ("#
// pcp-derive-lsp: ignore[CODE,...]"), as byte offsets [start, end) into
// line, known codes or not; none for a bare "ignore" or a line that is no
// well-formed suppression comment.
func IgnoredCodes(line string) [][2]int {
	m := ignoreRE.FindStringSubmatchIndex(line)
	if m == nil {
		return nil
	}
	return listedCodes(line, m)
}

// listedCodes are the codes in the brackets of a line ignoreRE matched
// (m is the match's submatch indexes).
func listedCodes(line string, m []int) [][2]int {
	if m[2] < 0 {
		return nil // "ignore": every code
	}
	var out [][2]int
	for i := m[2]; i < m[3]; {
		j := i
		for j < m[3] && line[j] != ',' && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, [2]int{i, j})
		}
		i = j + 1
	}
	return out
}
