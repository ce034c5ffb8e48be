package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unsafe"

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
// On top of that, each document's last publication is kept as one run of
// JSON (last): the findings before and after the ones an edit changed
// are the same as the last time, and are copied in two pieces, without
// looking each one up (hashing 500 findings' messages was a third of a
// publish at 100,000 lines).
type diagnosticJSON struct {
	mu        sync.Mutex
	cur, prev map[tailKey][]byte       // the JSON after the range
	last      map[uri.URI]*publication // at most lastPublications
	// spare is a publication replaced, whose slices the next one reuses.
	spare *publication
	// sending makes publishes one at a time, from composing a frame to
	// freeing it: a publication it reads may become the spare of
	// another, and a frame being written must not be freed by a newer
	// publication of the document meanwhile (then freed again, and
	// handed to two publishes at once).
	sending sync.Mutex
	// free are frames no publication owns, for the next publishes (at
	// most maxFreeFrames): a frame is 250 KB at 500 findings. Not a
	// sync.Pool, which may drop what it is given: the test that bounds
	// a publication's allocation runs under -race, where it drops a
	// share on purpose.
	free [][]byte
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

// diagnosticKey is what a cached finding's JSON depends on.
type diagnosticKey struct {
	rg            protocol.Range
	sev           grammar.Severity
	code, message string
}

// publication is the findings of a document's last publishDiagnostics
// and their JSON, comma-separated as sent: finding i's is
// json[start(i):ends[i]], where start(i) is ends[i-1]+1 (after the
// comma), or 0.
type publication struct {
	keys []diagnosticKey
	// related marks findings with related information, whose JSON is
	// not a function of their key: never reused.
	related []bool
	// json is a run of the frame it was sent in, whose buffer (frame,
	// from its start) the publication owns until the next one replaces
	// it: copying 150 KB of findings out of the frame was a third of a
	// publish at 500 findings.
	json  []byte
	frame []byte
	ends  []int
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

func keyOf(f *grammar.File, g *grammar.Diagnostic) diagnosticKey {
	return diagnosticKey{rg: toRange(f, g.Range), sev: g.Severity, code: g.Code, message: g.Message}
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
// document's findings (of f, its text) and then the extra diagnostics (the fleet's,
// empty-now), as one base-protocol frame composed in a reused buffer. At
// 500 findings the params are 150 KB: the connection's Notify copied them
// twice more (into its message, then behind the header it measured), and
// each keystroke's publication went through three such buffers.
func (c *diagnosticJSON) publish(ctx context.Context, send func(context.Context, []byte) error, u uri.URI, f *grammar.File, version int32, findings analysis.Findings, extra []protocol.Diagnostic, docsURL string) error {
	c.sending.Lock()
	defer c.sending.Unlock()
	c.mu.Lock()
	var buf []byte
	if n := len(c.free); n > 0 {
		buf, c.free = c.free[n-1], c.free[:n-1]
	}
	c.mu.Unlock()
	buf = append(buf[:0], make([]byte, frameHeaderRoom)...)
	buf = append(buf, publishEnvelope...)
	buf, err := c.composeParams(buf, u, f, version, findings, extra, docsURL)
	if err == nil {
		buf = append(buf, '}')
		err = send(ctx, frameAround(buf, frameHeaderRoom))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.last[u]; p == nil || unsafe.SliceData(p.frame) != unsafe.SliceData(buf) {
		c.freeFrame(buf) // not the one the last publication keeps
	}
	return err
}

// maxPinnedSlack is how much larger than twice its JSON a frame a
// publication keeps may be.
const maxPinnedSlack = 64 << 10

// maxFreeFrames bounds the frames kept free: a publish takes one, and
// the publication it replaces gives one back.
const maxFreeFrames = 2

// freeFrame keeps buf for a later publish, unless enough are kept. The
// caller holds mu.
func (c *diagnosticJSON) freeFrame(buf []byte) {
	if buf != nil && len(c.free) < maxFreeFrames {
		c.free = append(c.free, buf[:0])
	}
}

// release frees the frame a replaced publication owned, once nothing
// reads its JSON. The caller holds mu.
func (c *diagnosticJSON) release(p *publication) {
	c.freeFrame(p.frame)
	p.json, p.frame = nil, nil
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
	return c.composeParams(buf, u, f, version, findings, extra, docsURL)
}

// composeParams is publishParams; the caller holds sending.
func (c *diagnosticJSON) composeParams(buf []byte, u uri.URI, f *grammar.File, version int32, findings analysis.Findings, extra []protocol.Diagnostic, docsURL string) (jsonrpc2.RawMessage, error) {
	head, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(version), Diagnostics: []protocol.Diagnostic{}})
	if err != nil {
		return nil, err
	}
	const empty = `"diagnostics":[]`
	at := bytes.Index(head, []byte(empty))
	if at < 0 {
		return nil, fmt.Errorf("encoding publishDiagnostics: no empty diagnostics list in %s", head)
	}
	at += len(empty) - 1                                              // at the "]"
	buf = slices.Grow(buf, len(head)+512*(findings.Len()+len(extra))) // a finding is 300 to 500 bytes
	buf = append(buf, head[:at]...)
	if buf, err = c.appendFindings(buf, u, f, findings, docsURL); err != nil {
		return nil, err
	}
	for i := range extra {
		if findings.Len() > 0 || i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = appendMarshal(buf, &extra[i]); err != nil {
			return nil, fmt.Errorf("encoding a diagnostic: %w", err)
		}
	}
	return append(buf, head[at:]...), nil
}

// appendFindings appends the findings' JSON, comma-separated, to buf: the
// ones before and after those that differ from the document's last
// publication copied from it, the rest encoded (through the cache); and
// keeps them as the document's last publication.
func (c *diagnosticJSON) appendFindings(buf []byte, u uri.URI, f *grammar.File, findings analysis.Findings, docsURL string) ([]byte, error) {
	c.mu.Lock()
	old, next := c.last[u], c.spare
	c.spare = nil
	c.mu.Unlock()
	if next == nil {
		next = &publication{}
	}
	n := findings.Len()
	next.keys = slices.Grow(next.keys[:0], n)[:n]
	next.related = slices.Grow(next.related[:0], n)[:n]
	next.ends = slices.Grow(next.ends[:0], n)[:n]
	i := 0
	for g := range findings.All() {
		next.keys[i], next.related[i] = keyOf(f, g), len(g.Related) > 0
		i++
	}
	// The runs the two publications share at their ends.
	same := func(i, j int) bool {
		return !next.related[i] && !old.related[j] && next.keys[i] == old.keys[j]
	}
	head, tail := 0, 0
	if old != nil {
		for head < min(n, len(old.keys)) && same(head, head) {
			head++
		}
		for tail < min(n, len(old.keys))-head && same(n-1-tail, len(old.keys)-1-tail) {
			tail++
		}
	}
	base := len(buf)
	if head > 0 {
		buf = append(buf, old.json[:old.ends[head-1]]...)
		copy(next.ends, old.ends[:head])
	}
	var err error
	i = 0
	for g := range findings.All() {
		if i >= n-tail {
			break
		}
		if i >= head {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = c.encode(buf, u, f, g, docsURL); err != nil {
				return nil, fmt.Errorf("encoding a diagnostic: %w", err)
			}
			next.ends[i] = len(buf) - base
		}
		i++
	}
	if tail > 0 {
		first := n - tail // its first finding, and old's
		oldFirst := len(old.keys) - tail
		if first > 0 {
			buf = append(buf, ',')
		}
		shift := len(buf) - base - old.start(oldFirst)
		buf = append(buf, old.json[old.start(oldFirst):old.ends[len(old.keys)-1]]...)
		for k := range tail {
			next.ends[first+k] = old.ends[oldFirst+k] + shift
		}
	}
	// The JSON stays where it is, in the frame (capped, so that what
	// the frame appends next cannot reach into it), unless the frame is
	// much larger (a small document's publish in a frame a large one
	// left): then a copy, so that no publication kept pins it.
	if json := buf[base:]; cap(buf) <= 2*len(json)+maxPinnedSlack {
		next.json, next.frame = json[:len(json):len(json)], buf[:0]
	} else {
		next.json, next.frame = slices.Clone(json), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old != nil && c.last[u] == old {
		clear(old.keys) // no messages kept alive by the spare
		c.release(old)
		c.spare = old
	}
	switch {
	case n == 0:
		delete(c.last, u) // nothing to reuse
		next.json, next.frame = nil, nil
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
	return buf, nil
}

// forget lets go of a document's last publication (it was closed).
func (c *diagnosticJSON) forget(u uri.URI) {
	c.sending.Lock()
	defer c.sending.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.last, u)
}
