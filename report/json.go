package report

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// JSON writes the check result as a versioned document (docs/check-json.md):
//
//	{"version": 2, "tool": "pcp-derive-lsp", "toolVersion": "...",
//	 "pcpVersion": "6.0.3", "pcpVersionReason": "pmcd at ... runs PCP 6.0.3",
//	 "source": "embedded default metadata",
//	 "files": [{"path": "a.conf", "diagnostics": [{
//	   "range": {"start": {"line": 1, "column": 5, "offset": 4, "utf16Column": 4},
//	             "end": {...}},
//	   "severity": "error", "code": "syntax", "message": "...",
//	   "pcp": ["[a.conf:1] Error: ..."]}]}]}
//
// Lines and columns are 1-based, columns count bytes; utf16Column is
// 0-based in UTF-16 code units (as LSP uses); offsets are bytes from the
// start of the file. "pcp" is omitted when libpcp prints nothing.
//
// The document is written as it is made, one finding at a time, so a
// config with a million findings costs the output's buffer, not a copy of
// every finding and the whole text in memory; the bytes are those
// encoding/json writes with two-space indentation.
func JSON(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	jw := &jsonWriter{w: bw}
	jw.raw("{\n")
	jw.field("  ", "version", 2, true)
	jw.field("  ", "tool", r.Tool, true)
	jw.field("  ", "toolVersion", r.Version, true)
	jw.field("  ", "pcpVersion", r.PCPVersion.String(), true)
	jw.field("  ", "pcpVersionReason", r.PCPVersionReason, true)
	jw.field("  ", "source", r.Source, true)
	if len(r.Files) == 0 {
		jw.raw("  \"files\": []")
	} else {
		jw.raw("  \"files\": [\n")
		for i, f := range r.Files {
			jw.raw("    {\n")
			jw.field("      ", "path", f.File.Path, true)
			if len(f.Diagnostics) == 0 {
				jw.raw("      \"diagnostics\": []\n")
			} else {
				jw.raw("      \"diagnostics\": [\n")
				for k, d := range f.Diagnostics {
					jw.raw("        ")
					jw.diag("        ", jsonDiagOf(f.File, d))
					jw.comma(k < len(f.Diagnostics)-1)
				}
				jw.raw("      ]\n")
			}
			jw.raw("    }")
			jw.comma(i < len(r.Files)-1)
		}
		jw.raw("  ]")
	}
	if len(r.Unread) > 0 {
		// The inputs that could not be read: a report that only listed
		// the files it read would look clean to a CI job reading it.
		jw.raw(",\n  \"unread\": [\n")
		for i, u := range r.Unread {
			jw.raw("    {\n")
			jw.field("      ", "path", u.Path, true)
			jw.field("      ", "message", u.Message, false)
			jw.raw("    }")
			jw.comma(i < len(r.Unread)-1)
		}
		jw.raw("  ]")
	}
	jw.raw("\n}\n")
	return jw.flush()
}

type jsonPos struct {
	Line   int32 `json:"line"`
	Column int32 `json:"column"`
	Offset int   `json:"offset"`
	UTF16  int32 `json:"utf16Column"`
}

type jsonRange struct {
	Start jsonPos `json:"start"`
	End   jsonPos `json:"end"`
}

type jsonDiag struct {
	Range    jsonRange `json:"range"`
	Severity string    `json:"severity"`
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	PCP      []string  `json:"pcp,omitempty"`
	// More: the finding stands for this many not listed (check
	// --max-per-code).
	More int `json:"more,omitempty"`
}

// jsonDiagOf is d, a finding about file, as the JSON report gives it.
func jsonDiagOf(file *grammar.File, d grammar.Diagnostic) jsonDiag {
	conv := func(p grammar.Pos) jsonPos { return jsonPos{p.Line, p.Col, file.OffsetOf(p), p.Col16} }
	return jsonDiag{
		Range:    jsonRange{conv(d.Range.Start), conv(d.Range.End)},
		Severity: d.Severity.String(), Code: d.Code, Message: d.Message, PCP: d.PCP, More: d.More,
	}
}

// jsonWriter writes JSON text piece by piece, remembering the first
// error.
type jsonWriter struct {
	w   *bufio.Writer
	err error
	buf []byte // diag's
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// value writes v as encoding/json indents it at the given depth.
func (j *jsonWriter) value(prefix string, v any) {
	if j.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.w.Write(b)
}

// diag writes a finding as value would (appendDiag), through one buffer
// reused for every finding.
func (j *jsonWriter) diag(prefix string, d jsonDiag) {
	if j.err != nil {
		return
	}
	j.buf = appendDiag(j.buf[:0], prefix, &d)
	_, j.err = j.w.Write(j.buf)
}

// field writes one "name": value member line of an object.
func (j *jsonWriter) field(indent, name string, v any, more bool) {
	j.raw(indent + "\"" + name + "\": ")
	j.value(indent, v)
	j.comma(more)
}

// comma ends a member or element: with a comma when more follow.
func (j *jsonWriter) comma(more bool) {
	if more {
		j.raw(",\n")
	} else {
		j.raw("\n")
	}
}

func (j *jsonWriter) flush() error {
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}
