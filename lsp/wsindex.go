package lsp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// fileIndex is what cross-file features (references, rename, workspace
// symbols) need from one config: where each derived metric is defined,
// and every name used in an expression or an attribute line (any of them
// may be, or become, a derived metric).
//
// The workspace keeps this index per file instead of the parse: a
// grammar.File costs about 45 times its text (a token of ~100 bytes per
// few bytes of expression, an int per expression byte), so 20 scanned
// 4 MB configs held 3.5 GB of live heap. An occurrence costs 20 bytes
// and each distinct name is stored once, so even "a+a+a…" (a name every
// two bytes) indexes at 10 times its text; typical configs at about 1.
type fileIndex struct {
	names []string // distinct names, indexed by occurrence.name
	defs  []occurrence
	uses  []occurrence // in expressions (the first exprUses), then attribute lines
	// exprUses counts the uses in expressions, which come first in uses.
	exprUses int
	// byName finds the occurrences of a name without a scan (lookup is one),
	// built on the first request that needs it (occurrences.go).
	byName lookupCell
}

// occurrence is one place a name appears.
type occurrence struct {
	rng  protocol.Range
	name uint32 // index into fileIndex.names
}

// nameOf is the name an occurrence spells.
func (ix *fileIndex) nameOf(o occurrence) string { return ix.names[o.name] }

// lookup returns a name's index in the file, false if the file never
// mentions it.
func (ix *fileIndex) lookup(name string) (uint32, bool) {
	for i, n := range ix.names {
		if n == name {
			return uint32(i), true
		}
	}
	return 0, false
}

// indexFile extracts a file's index. Names are copied out of the parse
// (a substring would keep the parse's whole expression text alive) and
// interned; positions come from a forward-moving cursor, since
// grammar.File.Pos rescans its line on every call, quadratic over the
// names of a long line.
func indexFile(f *grammar.File) *fileIndex {
	b := indexBuilder{ix: &fileIndex{}, ids: map[string]uint32{}}
	ix := b.ix
	ix.defs = make([]occurrence, 0, f.Definitions.Len())
	ix.uses = make([]occurrence, 0, countUses(f))
	src := f.Text.Bytes()
	uses := posCursor{src: src}
	for _, def := range f.Definitions.All() {
		ix.defs = append(ix.defs, occurrence{toRange(f, def.NameRange), b.id(def.Name)})
		for _, t := range def.Tokens() {
			if t.Kind != grammar.TokName {
				continue
			}
			start := uses.at(f.ExprPos(def, t.Offset()))
			end := uses.at(f.ExprPos(def, t.End()-1) + 1)
			ix.uses = append(ix.uses, occurrence{protocol.Range{Start: start, End: end}, b.id(t.Value(def.Expr))})
		}
	}
	ix.exprUses = len(ix.uses)
	attrs := posCursor{src: src}
	for _, at := range f.Attributes {
		off := f.OffsetOf(at.Range.Start)
		start := attrs.at(off)
		end := attrs.at(off + len(at.Metric))
		ix.uses = append(ix.uses, occurrence{protocol.Range{Start: start, End: end}, b.id(at.Metric)})
	}
	return ix
}

// countUses is how many use occurrences f has, to size the index once.
func countUses(f *grammar.File) int {
	n := len(f.Attributes)
	for _, def := range f.Definitions.All() {
		for _, t := range def.Tokens() {
			if t.Kind == grammar.TokName {
				n++
			}
		}
	}
	return n
}

// indexBuilder interns names while an index is built.
type indexBuilder struct {
	ix  *fileIndex
	ids map[string]uint32
}

func (b *indexBuilder) id(name string) uint32 {
	if id, ok := b.ids[name]; ok {
		return id
	}
	name = strings.Clone(name)
	id := uint32(len(b.ix.names))
	b.ix.names = append(b.ix.names, name)
	b.ids[name] = id
	return id
}

// posCursor converts byte offsets of a source to LSP positions (0-based
// line, UTF-16 column) as grammar.Text.Position does, in time linear in
// the source when the offsets asked for do not decrease. An earlier offset
// restarts it from the beginning.
type posCursor struct {
	src       []byte
	off       int
	line, col uint32
}

func (c *posCursor) at(off int) protocol.Position {
	off = max(0, min(off, len(c.src)))
	if off < c.off {
		c.off, c.line, c.col = 0, 0, 0
	}
	for c.off < off {
		b := c.src[c.off]
		switch {
		case b == '\n' || b == '\r' && (c.off+1 == len(c.src) || c.src[c.off+1] != '\n'):
			// A line ends at "\n" or a lone "\r", as LSP counts.
			c.line, c.col = c.line+1, 0
			c.off++
		case b == '\r': // of a "\r\n": in no column
			c.off++
		case b < utf8.RuneSelf:
			c.col++
			c.off++
		default:
			// Decoded within the prefix, as Pos does: a rune cut by off
			// counts as invalid bytes, one unit each.
			r, size := utf8.DecodeRune(c.src[c.off:off])
			c.col += uint32(utf16.RuneLen(r))
			c.off += size
		}
	}
	return protocol.Position{Line: c.line, Character: c.col}
}
