package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// diagnosticJSON remembers the JSON of the findings published lately, so
// that a keystroke's publishDiagnostics encodes only the findings that
// changed. The protocol sends every finding of a document on every change:
// at 100,000 lines with 500 findings, their encoding was most of what a
// keystroke allocated (0.85 MB), and its collection a good part of the
// server's time, for findings almost all the same as the last time.
//
// A finding's JSON is a function of the finding and the server's docs
// URL, except for related information, which names the document: those
// findings are encoded each time. The memory is two generations of at
// most diagnosticJSONGeneration entries: a finding not published for a
// generation is forgotten.
type diagnosticJSON struct {
	mu        sync.Mutex
	cur, prev map[diagnosticKey][]byte
	// bufs are the buffers of the params, reused once sent (the
	// connection copies them into its message): 250 KB a keystroke at
	// 500 findings.
	bufs sync.Pool
}

// diagnosticKey is what a cached finding's JSON depends on.
type diagnosticKey struct {
	rg            grammar.Range
	sev           grammar.Severity
	code, message string
}

// diagnosticJSONGeneration bounds one generation of the cache: 2,000
// findings a document (1,000 of a code, and the rest) for a few open
// documents.
const diagnosticJSONGeneration = 8192

// encode appends the JSON of g, as toProtocolDiagnostic renders it, to
// buf.
func (c *diagnosticJSON) encode(buf []byte, u uri.URI, g grammar.Diagnostic, docsURL string) ([]byte, error) {
	if len(g.Related) > 0 {
		d := toProtocolDiagnostic(u, g, docsURL)
		return appendMarshal(buf, &d)
	}
	k := diagnosticKey{rg: g.Range, sev: g.Severity, code: g.Code, message: g.Message}
	c.mu.Lock()
	js, ok := c.cur[k]
	if !ok {
		if js, ok = c.prev[k]; ok {
			c.put(k, js)
		}
	}
	c.mu.Unlock()
	if ok {
		return append(buf, js...), nil
	}
	d := toProtocolDiagnostic(u, g, docsURL)
	js, err := protocol.Marshal(&d)
	if err != nil {
		return buf, err
	}
	c.mu.Lock()
	c.put(k, js)
	c.mu.Unlock()
	return append(buf, js...), nil
}

// put remembers js in the current generation, starting a new one when it
// is full. The caller holds mu.
func (c *diagnosticJSON) put(k diagnosticKey, js []byte) {
	if c.cur == nil || len(c.cur) >= diagnosticJSONGeneration {
		c.prev, c.cur = c.cur, make(map[diagnosticKey][]byte, len(c.cur))
	}
	c.cur[k] = js
}

func appendMarshal(buf []byte, v any) ([]byte, error) {
	js, err := protocol.Marshal(v)
	if err != nil {
		return buf, err
	}
	return append(buf, js...), nil
}

// publish sends, with notify, the publishDiagnostics of the document's
// findings and then the extra diagnostics (the fleet's, empty-now).
func (c *diagnosticJSON) publish(ctx context.Context, notify func(context.Context, string, any) error, u uri.URI, version int32, findings []grammar.Diagnostic, extra []protocol.Diagnostic, docsURL string) error {
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	params, err := c.publishParams((*bp)[:0], u, version, findings, extra, docsURL)
	if err == nil {
		err = notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, params)
	}
	*bp = params[:0]
	c.bufs.Put(bp)
	return err
}

// publishParams appends to buf the params of a publishDiagnostics of the
// document's findings and then the extra diagnostics, as protocol.Marshal
// would encode them, with the findings' JSON from the cache.
func (c *diagnosticJSON) publishParams(buf []byte, u uri.URI, version int32, findings []grammar.Diagnostic, extra []protocol.Diagnostic, docsURL string) (jsonrpc2.RawMessage, error) {
	head, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(version), Diagnostics: []protocol.Diagnostic{}})
	if err != nil {
		return nil, err
	}
	const empty = `"diagnostics":[]`
	at := bytes.Index(head, []byte(empty))
	if at < 0 {
		return nil, fmt.Errorf("encoding publishDiagnostics: no empty diagnostics list in %s", head)
	}
	at += len(empty) - 1                                             // at the "]"
	buf = slices.Grow(buf, len(head)+512*(len(findings)+len(extra))) // a finding is 300 to 500 bytes
	buf = append(buf, head[:at]...)
	for i, g := range findings {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = c.encode(buf, u, g, docsURL); err != nil {
			return nil, fmt.Errorf("encoding a diagnostic: %w", err)
		}
	}
	for i := range extra {
		if len(findings) > 0 || i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = appendMarshal(buf, &extra[i]); err != nil {
			return nil, fmt.Errorf("encoding a diagnostic: %w", err)
		}
	}
	return append(buf, head[at:]...), nil
}
