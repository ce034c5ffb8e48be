package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
)

// TestDiagnosticsLinkTheirCodePages: every diagnostic's code links to its
// page (codeDescription.href), under the project's docs by default or
// the base the server was given (serve --docs-url).
func TestDiagnosticsLinkTheirCodePages(t *testing.T) {
	for _, tc := range []struct{ docsURL, want string }{
		{"", codes.DefaultDocsURL + "unknown-metric.md"},
		{"https://docs.example.com/pcp/codes", "https://docs.example.com/pcp/codes/unknown-metric.md"},
	} {
		srv, rec, ctx := sessionWith(t, Options{DocsURL: tc.docsURL}, `{"source": {"metadata": "embedded"}}`, "")
		u := uri.URI("untitled:links.conf")
		srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "pcp-derived", Version: 1, Text: "m.a = disk.dev.reda\n"}})
		diags := rec.wait(t, u)
		if len(diags) != 1 || string(diags[0].CodeDescription.Href) != tc.want {
			t.Errorf("docs URL %q: diagnostics %+v, want a link to %s", tc.docsURL, diags, tc.want)
		}
	}
}
