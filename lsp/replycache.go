package lsp

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
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

// linksJSON is the JSON of the document's links (documentLinks).
func (s *snapshot) linksJSON(docsURL string) (jsonrpc2.RawMessage, error) {
	s.replies.linksOnce.Do(func() {
		s.replies.links, s.replies.linksErr = protocol.Marshal(documentLinks(s, docsURL))
	})
	return s.replies.links, s.replies.linksErr
}

// findingsJSON is the JSON of the document's findings as a pull answers
// them, comma-separated: made by c from the last findings it made (of
// this document), re-encoding only those that differ. c must be one that
// never publishes: a publish reuses the frames the JSON is kept in.
func (s *snapshot) findingsJSON(c *diagnosticJSON, docsURL string) ([]byte, error) {
	s.replies.findingsOnce.Do(func() {
		c.sending.Lock()
		defer c.sending.Unlock()
		buf, err := c.appendFindings(nil, s.uri, s.findings, docsURL)
		if err != nil {
			s.replies.findingsErr = fmt.Errorf("encoding the findings of %s: %w", s.uri, err)
			return
		}
		s.replies.findings = buf[:len(buf):len(buf)]
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
