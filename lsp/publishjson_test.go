package lsp

import (
	"fmt"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// TestPublishParamsEqualMarshal: the publishDiagnostics params made from
// cached JSON are byte for byte what protocol.Marshal makes of the whole
// params, on the first publish (cache empty) and the next ones (the same
// findings from the cache, some changed), with related information (not
// cached), extra diagnostics, and none at all.
func TestPublishParamsEqualMarshal(t *testing.T) {
	u := uri.File("/tmp/t.conf")
	const docs = "https://example.org/docs"
	finding := func(line int32, code, msg string) grammar.Diagnostic {
		return grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: line, Col: 3}, End: grammar.Pos{Line: line, Col: 9}},
			Severity: grammar.SeverityWarning, Code: code, Message: msg}
	}
	withRelated := finding(7, "duplicate-name", `derived metric "a\b" is already defined`)
	withRelated.Related = []grammar.Related{{Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 2}}, Message: "first defined here"}}
	first := []grammar.Diagnostic{finding(1, "unknown-metric", "unknown metric x.y"), withRelated, finding(9, "masked", "ünïcode \"quoted\" \t tab")}
	second := append([]grammar.Diagnostic{finding(2, "syntax", "Unexpected '('")}, first...)
	extra := []protocol.Diagnostic{{Message: protocol.String("fleet: 2 hosts"), Severity: protocol.DiagnosticSeverityInformation}}
	// The same finding at another severity, and at another place: not
	// the cached JSON.
	sevChanged, moved := first[0], first[0]
	sevChanged.Severity = grammar.SeverityError
	moved.Range.End.Col++
	var c diagnosticJSON
	for i, tc := range []struct {
		findings []grammar.Diagnostic
		extra    []protocol.Diagnostic
	}{{first, nil}, {first, nil}, {second, extra}, {nil, extra}, {nil, nil}, {second, nil}, {[]grammar.Diagnostic{sevChanged, moved}, nil}} {
		got, err := c.publishParams(nil, u, int32(i+1), tc.findings, tc.extra, docs)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]protocol.Diagnostic, 0, len(tc.findings)+len(tc.extra))
		for _, g := range tc.findings {
			all = append(all, toProtocolDiagnostic(u, g, docs))
		}
		all = append(all, tc.extra...)
		want, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(int32(i + 1)), Diagnostics: all})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("publish %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
}

// TestDiagnosticJSONBounded: however many findings are published, the
// cache holds at most two generations.
func TestDiagnosticJSONBounded(t *testing.T) {
	var c diagnosticJSON
	u := uri.File("/tmp/t.conf")
	for i := range 5 * diagnosticJSONGeneration {
		g := grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(i + 1), Col: 1}}, Code: "syntax", Message: fmt.Sprint("finding ", i)}
		if _, err := c.encode(nil, u, g, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.cur) + len(c.prev); n > 2*diagnosticJSONGeneration {
		t.Errorf("%d findings' JSON kept, want at most %d", n, 2*diagnosticJSONGeneration)
	}
}
