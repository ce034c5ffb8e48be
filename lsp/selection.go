package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// SelectionRange answers "expand selection": from the token under each
// position outwards through the expression's tree to the definition and
// the document.
func (s *server) SelectionRange(ctx context.Context, params *protocol.SelectionRangeParams) ([]protocol.SelectionRange, error) {
	snap := s.parsed(ctx, params.TextDocument.URI)
	if snap == nil {
		return nil, nil
	}
	out := make([]protocol.SelectionRange, len(params.Positions))
	for i, p := range params.Positions {
		out[i] = selectionRange(snap, p)
	}
	return out, nil
}

// selectionRange is the chain of ranges around pos, innermost first: the
// token, each node of the expression's tree that holds it (an operand,
// a call, the operator above it, ...), the expression, the whole
// definition (its continuation lines included), the document. Outside a
// definition: an attribute line's metric name and the line, or the line.
// Each range holds the one before it, as the protocol requires; the
// same range twice is given once.
func selectionRange(snap *snapshot, pos protocol.Position) protocol.SelectionRange {
	f := snap.file
	off := f.Offset(int(pos.Line), int(pos.Character))
	var chain []grammar.Range // innermost first
	if def := f.DefinitionAt(off); def != nil {
		chain = definitionSelection(f, def, off)
	} else {
		chain = lineSelection(f, off)
	}
	for i, r := range chain {
		chain[i] = rangeWithoutCR(f, r)
	}
	chain = append(chain, grammar.Range{Start: grammar.Pos{Line: 1}, End: f.Pos(f.Len())})
	var sel *protocol.SelectionRange
	for i := len(chain) - 1; i >= 0; i-- {
		r := toRange(f, chain[i])
		if sel != nil && (sel.Range == r || !contains(sel.Range, r)) {
			continue
		}
		sel = &protocol.SelectionRange{Range: r, Parent: sel}
	}
	return *sel
}

// definitionSelection is the chain inside a definition at offset off.
func definitionSelection(f *grammar.File, def *grammar.Definition, off int) []grammar.Range {
	if f.Covers(def.NameRange, off) {
		return []grammar.Range{def.NameRange, def.Range}
	}
	var chain []grammar.Range
	idx := f.ExprIndex(def, off)
	if tok, ok := tokenAt(def, idx); ok {
		chain = append(chain, f.ExprRange(def, tok.Offset(), tok.End()))
		idx = max(tok.Offset(), min(idx, tok.End()-1)) // (the cursor just after a token selects it)
	}
	if tree, err := def.Tree(); err == nil && idx >= 0 {
		path := nodesAt(tree, idx)
		for i := len(path) - 1; i >= 0; i-- {
			sp := path[i].Span()
			chain = append(chain, f.ExprRange(def, int(sp.Start), int(sp.End)))
		}
	}
	if expr := len(strings.TrimRight(def.Expr, " \t\r\n")); expr > 0 {
		chain = append(chain, f.ExprRange(def, 0, expr))
	}
	return append(chain, def.Range)
}

// lineSelection is the chain on a line outside any definition: an
// attribute's metric name, then its lines; or the line.
func lineSelection(f *grammar.File, off int) []grammar.Range {
	for _, at := range f.Attributes {
		if f.Covers(at.Range, off) {
			if r := attributeNameRange(f, at); f.Covers(r, off) {
				return []grammar.Range{r, at.Range}
			}
			return []grammar.Range{at.Range}
		}
	}
	p := f.Pos(off)
	start := f.Text.LineStart(int(p.Line) - 1)
	return []grammar.Range{{Start: f.Pos(start), End: f.Pos(start + len(f.Line(int(p.Line))))}}
}

// nodesAt is the path from the root of a tree down to the innermost node
// whose span holds expression index idx, root first.
func nodesAt(root grammar.Node, idx int) []grammar.Node {
	holds := func(n grammar.Node) bool {
		if n == nil {
			return false
		}
		return n.Span().Contains(idx)
	}
	var path []grammar.Node
	for n := root; holds(n); {
		path = append(path, n)
		kids, k := grammar.Operands(n)
		var next grammar.Node
		for _, kid := range kids[:k] {
			if holds(kid) {
				next = kid
				break
			}
		}
		n = next
	}
	return path
}

// rangeWithoutCR is r without the carriage return of a CRLF line it ends
// with: a selection of a definition is of its text, not of its line end.
func rangeWithoutCR(f *grammar.File, r grammar.Range) grammar.Range {
	start, end := f.Offsets(r)
	if end > start && f.Text.Slice(end-1, end)[0] == '\r' {
		r.End = f.Pos(end - 1)
	}
	return r
}

// contains says whether outer holds inner.
func contains(outer, inner protocol.Range) bool {
	return !before(inner.Start, outer.Start) && !before(outer.End, inner.End)
}
