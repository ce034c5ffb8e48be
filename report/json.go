package report

import (
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
func JSON(w io.Writer, r *Run) error {
	type pos struct {
		Line   int `json:"line"`
		Column int `json:"column"`
		Offset int `json:"offset"`
		UTF16  int `json:"utf16Column"`
	}
	type rng struct {
		Start pos `json:"start"`
		End   pos `json:"end"`
	}
	type diag struct {
		Range    rng      `json:"range"`
		Severity string   `json:"severity"`
		Code     string   `json:"code"`
		Message  string   `json:"message"`
		PCP      []string `json:"pcp,omitempty"`
	}
	type file struct {
		Path        string `json:"path"`
		Diagnostics []diag `json:"diagnostics"`
	}
	doc := struct {
		Version     int    `json:"version"`
		Tool        string `json:"tool"`
		ToolVersion string `json:"toolVersion"`
		PCPVersion  string `json:"pcpVersion"`
		Why         string `json:"pcpVersionReason"`
		Source      string `json:"source"`
		Files       []file `json:"files"`
	}{2, r.Tool, r.Version, r.PCPVersion.String(), r.PCPVersionReason, r.Source, []file{}}
	conv := func(p grammar.Pos) pos { return pos{p.Line, p.Col, p.Offset, p.Col16} }
	for _, f := range r.Files {
		jf := file{Path: f.File.Path, Diagnostics: []diag{}}
		for _, d := range f.Diagnostics {
			jf.Diagnostics = append(jf.Diagnostics, diag{
				Range:    rng{conv(d.Range.Start), conv(d.Range.End)},
				Severity: d.Severity.String(), Code: d.Code, Message: d.Message, PCP: d.PCP,
			})
		}
		doc.Files = append(doc.Files, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
