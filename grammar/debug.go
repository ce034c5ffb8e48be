package grammar

import (
	"fmt"
	"sort"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
)

// DeriveDebug is what libpcp prints with PCP_DEBUG=derive (-Dderive)
// while it loads the files of a config path, in order: its built-in
// anonymous metrics, each file it loads, each control item it sets
// ($PCP_DERIVED_CONTROL's and the #control lines', 7.1.1+), each metric it
// registers with its index and expression, and, between them, the
// syntax errors it prints anyway (the files' findings' libpcp lines). The
// lines libpcp prints when a tool later binds the metrics (unknown
// operands, "mapped to novalue()", masking) depend on the tool and the
// names it asks for, and are not among them. A file's final line without
// a newline, which libpcp never reads, prints nothing.
func DeriveDebug(files []*File) []string {
	out := []string{
		"pmRegisterDerived: global metric[0] event.flags = anon(PM_TYPE_U32)",
		"pmRegisterDerived: global metric[1] event.missed = anon(PM_TYPE_U32)",
	}
	n := len(builtinDerived)
	for i, f := range files {
		for _, c := range f.controlsSet {
			if c.line == 0 && i == 0 {
				out = append(out, c.lines...)
			}
		}
		out = append(out, fmt.Sprintf("pmLoadDerivedConfig(%q)", f.Path))
		for _, e := range debugEvents(f) {
			if e.def != nil {
				out = append(out, fmt.Sprintf("pmRegisterDerived: global metric[%d] %s = %s", n, e.def.Name, e.def.Expr))
				n++
			} else {
				out = append(out, e.lines...)
			}
		}
	}
	return out
}

// debugEvent is one thing libpcp prints about a line while it loads a
// file: a registration, or lines (a #control line's, a finding's).
type debugEvent struct {
	line  int32
	def   *Definition
	lines []string
}

// debugEvents are a file's events in libpcp's order: by line, and on a
// line a finding's lines before its registration.
func debugEvents(f *File) []debugEvent {
	var out []debugEvent
	for _, c := range f.controlsSet {
		if c.line > 0 {
			out = append(out, debugEvent{line: c.line, lines: c.lines})
		}
	}
	for _, d := range f.Diagnostics {
		if len(d.PCP) > 0 && d.Code != codes.Control {
			out = append(out, debugEvent{line: int32(d.Range.Start.Line), lines: d.PCP})
		}
	}
	for _, d := range f.Definitions.All() {
		if d.Registered {
			out = append(out, debugEvent{line: int32(d.Range.Start.Line), def: d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}
