package lsp

import (
	"context"
	"math"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// decodeDidChange decodes the params of a didChange of the shape editors
// send on every keystroke: a versioned document and ranged changes, each
// of a range, the text and perhaps the range's length, their members in
// any order. Anything else (a change of the whole document, a member it
// does not know or one given twice, null, a number with a fraction or an
// exponent, a string with invalid UTF-8) is not decoded: ok is false and
// the protocol package decodes it, as it would have. What it decodes is
// what the protocol package makes of the same bytes (FuzzDecodeDidChange).
//
// It exists for the keystroke's cost: the protocol package's decoding of
// a didChange (its union of two change shapes, tried in turn) was a tenth
// of the server's CPU for a keystroke at 100,000 lines.
func decodeDidChange(raw []byte) (params protocol.DidChangeTextDocumentParams, ok bool) {
	d := jsonScan{b: raw}
	ok = d.fields([]string{"textDocument", "contentChanges"}, 0b11, func(i int) bool {
		if i == 0 {
			return d.versionedDocument(&params.TextDocument)
		}
		return d.changes(&params.ContentChanges)
	})
	if !ok || d.space() < len(d.b) {
		return protocol.DidChangeTextDocumentParams{}, false
	}
	return params, true
}

// jsonScan reads JSON from b at i, strictly: each method reports false
// for anything outside the shape it reads.
type jsonScan struct {
	b []byte
	i int
}

// space skips white space and returns where the next token starts.
func (d *jsonScan) space() int {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return d.i
		}
	}
	return d.i
}

// byte1 consumes c, the next token.
func (d *jsonScan) byte1(c byte) bool {
	if d.space() < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// fields reads an object whose members are among names, each at most
// once and those of the bits of required (bit i for names[i]) all there,
// calling read with the index of each member's name, the scan at its
// value; read reads the value.
func (d *jsonScan) fields(names []string, required uint, read func(i int) bool) bool {
	if !d.byte1('{') {
		return false
	}
	var seen uint
	if !d.byte1('}') {
		for {
			key, ok := d.key()
			i := slices.Index(names, key)
			if !ok || i < 0 || seen&(1<<i) != 0 || !d.byte1(':') || !read(i) {
				return false
			}
			seen |= 1 << i
			if d.byte1('}') {
				break
			}
			if !d.byte1(',') {
				return false
			}
		}
	}
	return seen&required == required
}

// key reads a member's name: one without escapes (every name this scan
// knows is plain ASCII).
func (d *jsonScan) key() (string, bool) {
	if !d.byte1('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			return string(d.b[start : d.i-1]), true
		case c == '\\' || c < ' ':
			return "", false
		}
		d.i++
	}
	return "", false
}

// versionedDocument reads {"uri": ..., "version": ...}, both required.
func (d *jsonScan) versionedDocument(doc *protocol.VersionedTextDocumentIdentifier) bool {
	return d.fields([]string{"uri", "version"}, 0b11, func(i int) bool {
		if i == 0 {
			s, ok := d.str()
			if !ok {
				return false
			}
			u, err := uri.Parse(s)
			doc.URI = u
			return err == nil
		}
		v, ok := d.integer(math.MinInt32, math.MaxInt32)
		doc.Version = int32(v)
		return ok
	})
}

// changes reads a non-empty array of ranged changes.
func (d *jsonScan) changes(out *[]protocol.TextDocumentContentChangeEvent) bool {
	if !d.byte1('[') {
		return false
	}
	for {
		var ch protocol.TextDocumentContentChangePartial
		if !d.change(&ch) {
			return false
		}
		*out = append(*out, &ch)
		if d.byte1(']') {
			return true
		}
		if !d.byte1(',') {
			return false
		}
	}
}

// change reads {"range": ..., "rangeLength": ..., "text": ...}, the
// length optional.
func (d *jsonScan) change(ch *protocol.TextDocumentContentChangePartial) bool {
	return d.fields([]string{"range", "text", "rangeLength"}, 0b011, func(i int) bool {
		switch i {
		case 0:
			return d.rangeOf(&ch.Range)
		case 1:
			var ok bool
			ch.Text, ok = d.str()
			return ok
		}
		n, ok := d.integer(0, math.MaxUint32)
		ch.RangeLength = protocol.NewOptional(uint32(n))
		return ok
	})
}

// rangeOf reads {"start": position, "end": position}, both required.
func (d *jsonScan) rangeOf(r *protocol.Range) bool {
	return d.fields([]string{"start", "end"}, 0b11, func(i int) bool {
		if i == 0 {
			return d.position(&r.Start)
		}
		return d.position(&r.End)
	})
}

// position reads {"line": n, "character": n}, both required.
func (d *jsonScan) position(p *protocol.Position) bool {
	return d.fields([]string{"line", "character"}, 0b11, func(i int) bool {
		n, ok := d.integer(0, math.MaxUint32)
		if i == 0 {
			p.Line = uint32(n)
		} else {
			p.Character = uint32(n)
		}
		return ok
	})
}

// integer reads an integer in [lo, hi] written plainly: digits without
// a leading zero, after a minus for a negative one.
func (d *jsonScan) integer(lo, hi int64) (int64, bool) {
	d.space()
	neg := d.i < len(d.b) && d.b[d.i] == '-'
	if neg {
		d.i++
	}
	start := d.i
	var n int64
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = n*10 + int64(d.b[d.i]-'0')
		if n > math.MaxUint32+1 {
			return 0, false
		}
		d.i++
	}
	digits := d.i - start
	if digits == 0 || (digits > 1 && d.b[start] == '0') {
		return 0, false
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, n >= lo && n <= hi && !(neg && n == 0)
}

// str reads a string, its escapes decoded; false for invalid UTF-8, a
// control character, or a lone surrogate.
func (d *jsonScan) str() (string, bool) {
	if !d.byte1('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) { // the plain run, taken as it is
		c := d.b[d.i]
		if c == '"' {
			s := d.b[start:d.i]
			d.i++
			return string(s), utf8.Valid(s)
		}
		if c == '\\' || c < ' ' {
			break
		}
		d.i++
	}
	buf := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(buf), utf8.Valid(buf)
		case c < ' ':
			return "", false
		case c != '\\':
			buf = append(buf, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", false
		}
		esc := d.b[d.i+1]
		d.i += 2
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				lo, ok := d.lowSurrogate()
				if r = utf16.DecodeRune(r, lo); !ok || r == utf8.RuneError {
					return "", false
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape.
func (d *jsonScan) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// lowSurrogate reads the \u escape that must follow a high surrogate's.
func (d *jsonScan) lowSurrogate() (rune, bool) {
	if d.i+2 > len(d.b) || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' {
		return 0, false
	}
	d.i += 2
	return d.hex4()
}

// decodedEdits hands the server a didChange that decodeDidChange reads,
// and every other message, or a didChange of another shape, to next (the
// protocol package's dispatcher).
func decodedEdits(s *server, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodTextDocumentDidChange {
			if params, ok := decodeDidChange(req.Params()); ok {
				return nil, s.DidChange(ctx, &params)
			}
		}
		return next(ctx, req)
	}
}
