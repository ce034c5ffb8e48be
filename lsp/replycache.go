package lsp

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// Two answers grow with the document by nature: documentLink lists every
// function call, and a full pull of textDocument/diagnostic every
// finding. At 100,000 lines they are a megabyte of JSON each, which the
// protocol package built as Go values and encoded again for every
// request: 145 times the 1,000-line figure. Here each is encoded once per
// version of the document (a snapshot never changes), and a request of a
// version asked before is a copy of its JSON; the findings' JSON after an
// edit is made from the last version's, the findings the edit did not
// change copied (diagnosticJSON, as a push makes it).

// replyCell holds the JSON of a snapshot's replies that grow with the
// document, each made on its first request.
type replyCell struct {
	linksOnce sync.Once
	links     jsonrpc2.RawMessage
	linksErr  error

	findingsOnce sync.Once
	findings     []byte // comma-separated, without brackets
	findingsErr  error
}

// linksJSON is the JSON of the document's links (documentLinks): its
// comments' encoded, and each definition's from defs, which keeps them
// from earlier versions (a version after an edit within a line shares
// every other definition with the last one).
func (s *snapshot) linksJSON(docsURL string, defs *definitionLinks) (jsonrpc2.RawMessage, error) {
	s.replies.linksOnce.Do(func() {
		s.replies.links, s.replies.linksErr = s.encodeLinks(docsURL, defs)
	})
	return s.replies.links, s.replies.linksErr
}

func (s *snapshot) encodeLinks(docsURL string, defs *definitionLinks) (jsonrpc2.RawMessage, error) {
	comments, err := protocol.Marshal(commentLinks(s, docsURL))
	if err != nil {
		return nil, fmt.Errorf("encoding the links of %s: %w", s.uri, err)
	}
	defs.mu.Lock()
	defer defs.mu.Unlock()
	// Sized as the last version's: growing 8 MB by doubling was half of
	// a version's links at 100,000 lines.
	buf := make([]byte, 0, defs.size+len(comments)+2)
	buf = append(append(buf, '['), listItems(comments)...)
	looked := 0
	for _, def := range s.file.Definitions.All() {
		js, ok, err := defs.of(s.file, def)
		if err != nil {
			return nil, fmt.Errorf("encoding the links of %s: %w", s.uri, err)
		}
		if ok {
			looked++
		}
		if js == nil {
			continue
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, js...)
	}
	defs.kept(s.file.Definitions.All(), looked)
	defs.size = len(buf)
	if len(buf) == 1 {
		return jsonrpc2.RawMessage("null"), nil // as a nil list encodes
	}
	return append(buf, ']'), nil
}

// listItems is the items of a JSON list, without its brackets: none for
// an empty or null one.
func listItems(list []byte) []byte {
	if len(list) < 2 || list[0] != '[' {
		return nil
	}
	return list[1 : len(list)-1]
}

// definitionLinks keeps, for one document, the JSON of each definition's
// links (functionLinks), by definition: an edit within a line makes a
// version sharing every other definition with the last one (their places
// hold lines and columns, which the edit leaves as they were), so a
// version's links encode only the definitions it made. Those of earlier
// versions are let go of once they outnumber half the version's (kept):
// each key keeps its definition alive, and two generations (a
// definition not in a version for a generation forgotten) kept five
// versions' definitions after a run of versions read whole, each with
// every definition new (TestDefinitionLinksHeld).
type definitionLinks struct {
	mu   sync.Mutex
	json map[*grammar.Definition][]byte
	size int // of the last version's links
}

// noLinks marks a definition without links (its JSON is then nil).
var noLinks = []byte{}

// linksSlack is how many definitions of earlier versions definitionLinks
// keeps beyond half a version's: a few edits' worth, so that a small
// document's are not sorted out after each.
const linksSlack = 1024

// of is the JSON of def's links, comma-separated (nil for none), and
// whether def was looked up (and is now kept: a definition without a
// call is not). The caller holds mu.
func (c *definitionLinks) of(f *grammar.File, def *grammar.Definition) (js []byte, looked bool, err error) {
	if !strings.Contains(def.Expr, "(") {
		return nil, false, nil // functionLinks's own test, without a look-up
	}
	js, ok := c.json[def]
	if !ok {
		list, err := protocol.Marshal(functionLinks(f, def))
		if err != nil {
			return nil, true, err
		}
		if js = listItems(list); js == nil {
			js = noLinks
		}
		if c.json == nil {
			c.json = map[*grammar.Definition][]byte{}
		}
		c.json[def] = js
	}
	if len(js) == 0 {
		return nil, true, nil
	}
	return js, true, nil
}

// kept ends a version, whose definitions are defs, n of them looked up:
// when the others kept, earlier versions', outnumber half of n (and
// linksSlack), the version's alone are kept. Each is then copied once
// for at least n/2 definitions the edits since made anew, so an edit's
// share of the copying stays that of the definitions it made. The
// caller holds mu.
func (c *definitionLinks) kept(defs iter.Seq2[int, *grammar.Definition], n int) {
	if len(c.json)-n <= n/2+linksSlack {
		return
	}
	now := make(map[*grammar.Definition][]byte, n)
	for _, def := range defs {
		if js, ok := c.json[def]; ok {
			now[def] = js
		}
	}
	c.json = now
}

// documentLinkCaches are the open documents' definitionLinks.
type documentLinkCaches struct {
	mu   sync.Mutex
	docs map[uri.URI]*definitionLinks
}

// of is document u's cache, made on first use.
func (c *documentLinkCaches) of(u uri.URI) *definitionLinks {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.docs == nil {
		c.docs = map[uri.URI]*definitionLinks{}
	}
	d := c.docs[u]
	if d == nil {
		d = &definitionLinks{}
		c.docs[u] = d
	}
	return d
}

// forget lets go of a closed document's cache.
func (c *documentLinkCaches) forget(u uri.URI) {
	c.mu.Lock()
	delete(c.docs, u)
	c.mu.Unlock()
}

// findingsJSON is the JSON of the document's findings as a pull answers
// them, comma-separated: made by c from the last findings it made (of
// this document), re-encoding only those that differ. c must be one that
// never publishes: its last findings are the pulls'.
func (s *snapshot) findingsJSON(c *diagnosticJSON, docsURL string) ([]byte, error) {
	s.replies.findingsOnce.Do(func() {
		c.sending.Lock()
		defer c.sending.Unlock()
		js, err := c.encodeFindings(s.uri, s.file, s.findings, docsURL)
		if err != nil {
			s.replies.findingsErr = fmt.Errorf("encoding the findings of %s: %w", s.uri, err)
			return
		}
		s.replies.findings = js.appendTo(make([]byte, 0, js.Len()))
	})
	return s.replies.findings, s.replies.findingsErr
}

// fullReportJSON is a full document diagnostic report: resultId rid, the
// findings' JSON items (comma-separated), then extra, and the related
// documents' reports.
func fullReportJSON(rid string, items []byte, extra []protocol.Diagnostic, related map[uri.URI]protocol.FullDocumentDiagnosticReportOrUnchangedDocumentDiagnosticReport) (jsonrpc2.RawMessage, error) {
	buf := make([]byte, 0, len(items)+len(rid)+64+512*len(extra))
	buf = append(buf, `{"kind":"full","resultId":`...)
	buf = strconv.AppendQuote(buf, rid)
	buf = append(buf, `,"items":[`...)
	buf = append(buf, items...)
	var err error
	for i := range extra {
		if len(items) > 0 || i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = appendMarshal(buf, &extra[i]); err != nil {
			return nil, fmt.Errorf("encoding a diagnostic: %w", err)
		}
	}
	buf = append(buf, ']')
	if len(related) > 0 {
		buf = append(buf, `,"relatedDocuments":`...)
		if buf, err = appendMarshal(buf, related); err != nil {
			return nil, fmt.Errorf("encoding the related documents' findings: %w", err)
		}
	}
	return append(buf, '}'), nil
}

// encodedReplies answers documentLink and textDocument/diagnostic with
// the JSON the server keeps per version (above), which the protocol
// package's dispatcher would decode and encode again; every other
// message goes to next. Undecodable params are a parse error, as the
// dispatcher says (tolerate makes it InvalidParams).
func encodedReplies(s *server, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case protocol.MethodTextDocumentDocumentLink:
			var params protocol.DocumentLinkParams
			if err := decodeParams(ctx, req, &params); err != nil {
				return nil, err
			}
			return s.documentLinkReply(ctx, &params)
		case protocol.MethodTextDocumentDiagnostic:
			var params protocol.DocumentDiagnosticParams
			if err := decodeParams(ctx, req, &params); err != nil {
				return nil, err
			}
			return s.diagnosticReply(ctx, &params)
		}
		return next(ctx, req)
	}
}

// decodeParams decodes a request's params as the protocol package's
// dispatcher does, and refuses a request already cancelled.
func decodeParams(ctx context.Context, req *jsonrpc2.Request, params any) error {
	if ctx.Err() != nil {
		return protocol.ErrRequestCancelled
	}
	if err := protocol.Unmarshal(req.Params(), params); err != nil {
		return fmt.Errorf("%w: %w", jsonrpc2.ErrParse, err)
	}
	return nil
}
