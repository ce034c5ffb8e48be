package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// manPagesURL is where PCP's manual pages are read online (man7.org
// keeps PCP's pages, one HTML file per page, each section an anchor of
// its title). Every link to a page goes through manPage.
const manPagesURL = "https://man7.org/linux/man-pages/"

// manPage is the address of a section of a PCP manual page: page as
// man7.org names its file ("pmregisterderived.3"), section as the page
// titles it ("DESCRIPTION").
func manPage(page, section string) string {
	sect := page[strings.LastIndexByte(page, '.')+1:]
	return manPagesURL + "man" + sect + "/" + page + ".html#" + strings.ReplaceAll(section, " ", "_")
}

// The sections the links point at: the functions of the language are
// described in pmRegisterDerived(3), config files and their #control
// lines in pmLoadDerivedConfig(3).
var (
	functionsManPage = manPage("pmregisterderived.3", "DESCRIPTION")
	controlManPage   = manPage("pmloadderivedconfig.3", "DESCRIPTION")
)

// DocumentLink links the finding codes of suppression comments to their
// pages (under the DocsURL option, as diagnostics do), and #control
// lines and function names to PCP's manual pages. The connection answers
// with documentLinkReply's JSON (encodedReplies); this is for a caller
// in the process.
func (s *server) DocumentLink(ctx context.Context, params *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return documentLinks(snap, s.opts.DocsURL), nil
	}
	return nil, nil
}

// documentLinkReply is the JSON of DocumentLink's answer, made once per
// version of the document, from the JSON of the definitions an earlier
// version had.
func (s *server) documentLinkReply(ctx context.Context, params *protocol.DocumentLinkParams) (jsonrpc2.RawMessage, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return snap.linksJSON(s.opts.DocsURL, s.links.of(snap.uri))
	}
	return jsonrpc2.RawMessage("null"), nil
}

// documentLinks are the document's links in file order within each kind:
// comments (codes, #control), then function names.
func documentLinks(snap *snapshot, docsURL string) []protocol.DocumentLink {
	out := commentLinks(snap, docsURL)
	for _, def := range snap.file.Definitions.All() {
		out = append(out, functionLinks(snap.file, def)...)
	}
	return out
}

// fileLink is a link of f's bytes [start, end) to target.
func fileLink(f *grammar.File, start, end int, target string) protocol.DocumentLink {
	t := uri.URI(target)
	return protocol.DocumentLink{Range: spanRange(f, start, end), Target: &t}
}

// commentLinks are the links of the document's comments: the codes of
// suppression comments, #control lines.
func commentLinks(snap *snapshot, docsURL string) []protocol.DocumentLink {
	f := snap.file
	var out []protocol.DocumentLink
	controls := snap.release().Has(pcpver.ControlLines)
	for _, c := range f.Comments {
		line := f.Line(int(c.Start.Line))
		at := f.Text.LineStart(int(c.Start.Line) - 1)
		switch {
		case strings.Contains(line, "pcp-derive-lsp"):
			for _, span := range analysis.IgnoredCodes(line) {
				if code := line[span[0]:span[1]]; isCode(code) {
					out = append(out, fileLink(f, at+span[0], at+span[1], codes.DocURL(docsURL, code)))
				}
			}
		case controls && len(line) >= 8 && strings.EqualFold(line[:8], "#control"):
			out = append(out, fileLink(f, at, at+8, controlManPage))
		}
	}
	return out
}

// functionLinks are the links of def's function names, in f: a function
// of the definition alone (its place and text), which a version of the
// document that keeps the definition keeps too (definitionLinks).
func functionLinks(f *grammar.File, def *grammar.Definition) []protocol.DocumentLink {
	if !strings.Contains(def.Expr, "(") {
		return nil // no call: not worth lexing
	}
	var out []protocol.DocumentLink
	for _, t := range def.Tokens() {
		if t.Kind == grammar.TokFunc {
			out = append(out, fileLink(f, f.ExprPos(def, t.Offset()), f.ExprPos(def, t.End()-1)+1, functionsManPage))
		}
	}
	return out
}

// isCode says whether the registry has a code (an unknown one gets a
// finding instead, with its fix).
func isCode(code string) bool {
	_, ok := codes.Lookup(code)
	return ok
}
