package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// diagnosticJSON remembers the JSON of the findings published lately, so
// that a keystroke's publishDiagnostics encodes only the findings that
// changed. The protocol sends every finding of a document on every change:
// at 100,000 lines with 500 findings, their encoding was most of what a
// keystroke allocated (0.85 MB), and its collection a good part of the
// server's time, for findings almost all the same as the last time.
//
// A finding's JSON is its range (as the client counts lines: in a
// document with lone "\r"s, not its libpcp position alone) and then a
// function of its severity, code and message (and the server's docs
// URL), except for related
// information, which names the document: those findings are encoded each
// time. The cache keeps the part after the range, so that a finding an
// edit only moved (Enter above it moves every finding below) is its new
// range written out and its old JSON after it, not an encoding. The
// memory is two generations of at most diagnosticJSONGeneration entries:
// a finding not published for a generation is forgotten.
//
// On top of that, each document's last publication is kept as a rope of
// JSON (last): the findings before and after the ones an edit changed
// are the same as the last time, and are that rope's runs, without
// looking each one up (hashing 500 findings' messages was a third of a
// publish at 100,000 lines) or copying them.
type diagnosticJSON struct {
	mu        sync.Mutex
	cur, prev map[tailKey][]byte       // the JSON after the range
	last      map[uri.URI]*publication // at most lastPublications
	// spare is a publication replaced, whose slices the next one reuses.
	spare *publication
	// sending makes publishes one at a time, from composing a frame to
	// writing it: a publication it reads may become the spare of
	// another, and the frames of one document must go out in order.
	sending sync.Mutex
	// runs is the list of a frame's runs, reused by the next publish
	// (under sending).
	runs [][]byte
	// shape fits a diagnostic to what the client reads
	// (clientCaps.diagnostic); set at initialize, before any publish.
	shape func(*protocol.Diagnostic)
}

// render is toProtocolDiagnostic, shaped for the client.
func (c *diagnosticJSON) render(u uri.URI, f *grammar.File, g *grammar.Diagnostic, docsURL string) protocol.Diagnostic {
	d := toProtocolDiagnostic(u, f, *g, docsURL)
	if c.shape != nil {
		c.shape(&d)
	}
	return d
}

// publication is the findings of a document's last publishDiagnostics
// and their JSON, comma-separated as sent: finding i's is the bytes
// [start(i), ends[i]) of json, where start(i) is ends[i-1]+1 (after the
// comma), or 0.
type publication struct {
	// findings are the findings published, of file: a snapshot's are
	// never changed, and an edit keeps those it does not touch where
	// they are, in the chunks of the lists it does not copy, so the
	// findings the next publication shares with this one are found from
	// the lists' structure (analysis.Findings.Shared), without reading
	// each (a walk of 2,500 findings, a cache line each, was most of a
	// publication's composing).
	findings analysis.Findings
	file     *grammar.File
	json     rope
	ends     []int
}

func (p *publication) start(i int) int {
	if i == 0 {
		return 0
	}
	return p.ends[i-1] + 1
}

// lastPublications bounds the documents whose last publication is kept
// (each is its findings' JSON, 150 KB at 500 findings).
const lastPublications = 16

// tailKey is what a finding's JSON after its range depends on.
type tailKey struct {
	sev           grammar.Severity
	code, message string
}

// diagnosticJSONGeneration bounds one generation of the cache: 2,000
// findings a document (1,000 of a code, and the rest) for a few open
// documents.
const diagnosticJSONGeneration = 8192

// encode appends the JSON of g, as toProtocolDiagnostic renders it, to
// buf: its range, then the rest from the cache when a finding of the same
// severity, code and message was encoded lately.
func (c *diagnosticJSON) encode(buf []byte, u uri.URI, f *grammar.File, g *grammar.Diagnostic, docsURL string) ([]byte, error) {
	if len(g.Related) > 0 {
		d := c.render(u, f, g, docsURL)
		return appendMarshal(buf, &d)
	}
	k := tailKey{sev: g.Severity, code: g.Code, message: g.Message}
	c.mu.Lock()
	tail, ok := c.cur[k]
	if !ok {
		if tail, ok = c.prev[k]; ok {
			c.put(k, tail)
		}
	}
	c.mu.Unlock()
	if ok {
		return append(appendRangeJSON(buf, toRange(f, g.Range)), tail...), nil
	}
	d := c.render(u, f, g, docsURL)
	js, err := protocol.Marshal(&d)
	if err != nil {
		return buf, err
	}
	// The rest is cached only when the JSON starts with the range as
	// appendRangeJSON writes it (a shape that moved or changed the range
	// would leave every such finding encoded whole, and still right).
	if head := appendRangeJSON(nil, toRange(f, g.Range)); bytes.HasPrefix(js, head) {
		c.mu.Lock()
		c.put(k, js[len(head):])
		c.mu.Unlock()
	}
	return append(buf, js...), nil
}

// appendRangeJSON appends the start of a diagnostic's JSON up to its
// range's end, as protocol.Marshal writes r.
func appendRangeJSON(buf []byte, r protocol.Range) []byte {
	buf = append(buf, `{"range":{"start":{"line":`...)
	buf = strconv.AppendUint(buf, uint64(r.Start.Line), 10)
	buf = append(buf, `,"character":`...)
	buf = strconv.AppendUint(buf, uint64(r.Start.Character), 10)
	buf = append(buf, `},"end":{"line":`...)
	buf = strconv.AppendUint(buf, uint64(r.End.Line), 10)
	buf = append(buf, `,"character":`...)
	buf = strconv.AppendUint(buf, uint64(r.End.Character), 10)
	return append(buf, `}}`...)
}

// put remembers js in the current generation, starting a new one when it
// is full. The caller holds mu.
func (c *diagnosticJSON) put(k tailKey, js []byte) {
	if c.cur == nil || len(c.cur) >= diagnosticJSONGeneration {
		c.prev, c.cur = c.cur, make(map[tailKey][]byte, len(c.cur))
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

// publish sends, with send, the publishDiagnostics notification of the
// document's findings (of f, its text) and then the extra diagnostics
// (the fleet's, empty-now), as one base-protocol frame: its header and
// the start of its params, the findings' JSON (mostly the runs of the
// last publication, where they are) and the end, written one after the
// other (lockedConn.writeRuns). At 500 findings the params are 150 KB:
// the connection's Notify copied them twice more (into its message, then
// behind the header it measured), and composing them in one buffer
// copied the unchanged findings' JSON once more on every keystroke.
func (c *diagnosticJSON) publish(ctx context.Context, send func(context.Context, [][]byte) error, u uri.URI, f *grammar.File, version int32, findings analysis.Findings, extra []protocol.Diagnostic, docsURL string) error {
	c.sending.Lock()
	defer c.sending.Unlock()
	head, at, err := paramsHead(u, version)
	if err != nil {
		return err
	}
	js, err := c.encodeFindings(u, f, findings, docsURL)
	if err != nil {
		return err
	}
	end, err := appendExtra(nil, findings.Len() > 0, extra)
	if err != nil {
		return err
	}
	end = append(append(end, head[at:]...), '}')
	start := appendFrameHeader(make([]byte, 0, 32+len(publishEnvelope)+at), len(publishEnvelope)+at+js.Len()+len(end))
	start = append(append(start, publishEnvelope...), head[:at]...)
	runs := append(js.bytes(append(c.runs[:0], start)), end)
	err = send(ctx, runs)
	clear(runs) // nothing kept alive by the next publish's slice
	c.runs = runs[:0]
	return err
}

// publishEnvelope is the start of a publishDiagnostics notification's
// body, up to its params.
const publishEnvelope = `{"jsonrpc":"2.0","method":"` + protocol.MethodTextDocumentPublishDiagnostics + `","params":`

// publishParams appends to buf the params of a publishDiagnostics of the
// document's findings (of f, its text) and then the extra diagnostics, as
// protocol.Marshal would encode them, with the findings' JSON from the
// cache.
func (c *diagnosticJSON) publishParams(buf []byte, u uri.URI, f *grammar.File, version int32, findings analysis.Findings, extra []protocol.Diagnostic, docsURL string) (jsonrpc2.RawMessage, error) {
	c.sending.Lock()
	defer c.sending.Unlock()
	head, at, err := paramsHead(u, version)
	if err != nil {
		return nil, err
	}
	js, err := c.encodeFindings(u, f, findings, docsURL)
	if err != nil {
		return nil, err
	}
	buf = js.appendTo(append(buf, head[:at]...))
	if buf, err = appendExtra(buf, findings.Len() > 0, extra); err != nil {
		return nil, err
	}
	return append(buf, head[at:]...), nil
}

// paramsHead is the JSON of a publishDiagnostics' params with an empty
// list of diagnostics, and where that list's "]" is: the findings go
// before it.
func paramsHead(u uri.URI, version int32) (head []byte, at int, err error) {
	head, err = protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(version), Diagnostics: []protocol.Diagnostic{}})
	if err != nil {
		return nil, 0, fmt.Errorf("encoding publishDiagnostics: %w", err)
	}
	const empty = `"diagnostics":[]`
	at = bytes.Index(head, []byte(empty))
	if at < 0 {
		return nil, 0, fmt.Errorf("encoding publishDiagnostics: no empty diagnostics list in %s", head)
	}
	return head, at + len(empty) - 1, nil
}

// appendExtra appends the extra diagnostics' JSON, each after a comma
// unless it is the list's first.
func appendExtra(buf []byte, afterFindings bool, extra []protocol.Diagnostic) ([]byte, error) {
	var err error
	for i := range extra {
		if afterFindings || i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = appendMarshal(buf, &extra[i]); err != nil {
			return nil, fmt.Errorf("encoding a diagnostic: %w", err)
		}
	}
	return buf, nil
}

// encodeFindings is the findings' JSON, comma-separated: the runs before
// and after those that differ from the document's last publication are
// that publication's, the rest encoded (through the cache); and keeps
// them as the document's last publication. The caller holds sending.
func (c *diagnosticJSON) encodeFindings(u uri.URI, f *grammar.File, findings analysis.Findings, docsURL string) (rope, error) {
	c.mu.Lock()
	old, next := c.last[u], c.spare
	c.spare = nil
	c.mu.Unlock()
	if next == nil {
		next = &publication{}
	}
	n := findings.Len()
	next.findings, next.file = findings, f
	next.ends = slices.Grow(next.ends[:0], n)[:n]
	head, tail := old.shared(next)
	js := rope{runs: next.json.runs[:0]}
	if head > 0 {
		js.appendSlice(&old.json, 0, old.ends[head-1])
		copy(next.ends, old.ends[:head])
	}
	// The findings that changed, in a buffer of their own: a finding is
	// 300 to 500 bytes.
	buf := make([]byte, 0, 512*(n-head-tail)+1)
	base := js.Len()
	var err error
	i := head
	for g := range findings.Range(head, n-tail) {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = c.encode(buf, u, f, g, docsURL); err != nil {
			return rope{}, fmt.Errorf("encoding a diagnostic: %w", err)
		}
		next.ends[i] = base + len(buf)
		i++
	}
	if tail > 0 && n > tail {
		buf = append(buf, ',')
	}
	js.append(buf, buf)
	if tail > 0 {
		first, oldFirst := n-tail, len(old.ends)-tail // its first finding, and old's
		shift := js.Len() - old.start(oldFirst)
		js.appendSlice(&old.json, old.start(oldFirst), old.ends[len(old.ends)-1])
		for k := range tail {
			next.ends[first+k] = old.ends[oldFirst+k] + shift
		}
	}
	if js.fragmented() {
		js = js.compacted()
	}
	next.json = js
	c.mu.Lock()
	defer c.mu.Unlock()
	if old != nil && c.last[u] == old {
		old.findings = analysis.Findings{} // no findings kept alive by the spare
		clear(old.json.runs)
		old.file = nil
		c.spare = old
	}
	switch {
	case n == 0:
		delete(c.last, u) // nothing to reuse
	default:
		if c.last == nil {
			c.last = map[uri.URI]*publication{}
		}
		if _, ok := c.last[u]; !ok && len(c.last) >= lastPublications {
			for k := range c.last { // forget some other document's
				delete(c.last, k)
				break
			}
		}
		c.last[u] = next
	}
	return js, nil
}

// shared is how many findings next has in common with p, the document's
// last publication, at their start and at their end: their JSON is p's.
// In texts without lone "\r"s, a finding's JSON is its position's and
// the rest of it, and the findings an edit left where they were are
// found from the lists' structure (analysis.Findings.Shared). With them
// (rare: a line break only old Macs wrote), a finding's range depends on
// them, and every finding is compared.
func (p *publication) shared(next *publication) (head, tail int) {
	if p == nil {
		return 0, 0
	}
	plain := next.file.Text.LoneCRs() == 0 && p.file.Text.LoneCRs() == 0
	same := func(a, b *grammar.Diagnostic) bool { return sameJSON(a, next.file, b, p.file, plain) }
	n, m := next.findings.Len(), p.findings.Len()
	if plain {
		head, tail = next.findings.Shared(p.findings, same)
	}
	// The findings between: every one, with lone "\r"s; otherwise those
	// of the chunks the edit copied, most of them copies of findings it
	// did not change, compared one by one.
	a, b := slices.Collect(next.findings.Range(head, n-tail)), slices.Collect(p.findings.Range(head, m-tail))
	h, t := 0, 0
	for h < min(len(a), len(b)) && same(a[h], b[h]) {
		h++
	}
	for t < min(len(a), len(b))-h && same(a[len(a)-1-t], b[len(b)-1-t]) {
		t++
	}
	return head + h, tail + t
}

// sameJSON says whether finding a of text fa and finding b of text fb,
// of one document, encode alike. The same finding (the same address) does
// when plain, neither text having a lone "\r": then its ranges, and its
// related information's, are their positions' lines and columns alone.
// (Read without touching the findings: 2,500 of them, one cache line
// each, were most of this comparison.) Otherwise findings without
// related information (which is not cached) at the same range, of the
// same severity, code and message do.
func sameJSON(a *grammar.Diagnostic, fa *grammar.File, b *grammar.Diagnostic, fb *grammar.File, plain bool) bool {
	switch {
	case a == b && plain:
		return true
	case len(a.Related) > 0 || len(b.Related) > 0:
		return false
	}
	return a.Severity == b.Severity && a.Code == b.Code && a.Message == b.Message &&
		toRange(fa, a.Range) == toRange(fb, b.Range)
}

// forget lets go of a document's last publication (it was closed).
func (c *diagnosticJSON) forget(u uri.URI) {
	c.sending.Lock()
	defer c.sending.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.last, u)
}
