package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// DocumentHighlight marks the other places of the file that name the
// metric under the cursor, as one word: without it an editor highlights
// words, and splits disk.dev.read at its dots.
func (s *server) DocumentHighlight(ctx context.Context, params *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	if snap := s.current(ctx, params.TextDocument.URI); snap != nil {
		return documentHighlights(snap, params.Position), nil
	}
	return nil, nil
}

// documentHighlights are the occurrences in the document of the metric
// name at pos: its definitions (written), its uses in expressions (read)
// and its attribute lines (text), in file order; nil when pos is on no
// metric name. A PMNS metric's uses are found as a derived metric's are.
//
// A checked document answers from the indexes the analysis keeps up to
// date per edit (which metrics use which, what the file registers under
// each name), so the cost follows the answer, not the file; one checked
// against no source indexes its names once per version (occurrences.go).
func documentHighlights(snap *snapshot, pos protocol.Position) []protocol.DocumentHighlight {
	name, _, ok := nameAt(snap, pos)
	if !ok {
		return nil
	}
	out, ok := checkedHighlights(snap, name, snap.file.DefinitionAt(snap.file.Offset(int(pos.Line), int(pos.Character))))
	if !ok {
		out = indexedHighlights(snap, name)
	}
	slices.SortFunc(out, func(a, b protocol.DocumentHighlight) int {
		switch {
		case before(a.Range.Start, b.Range.Start):
			return -1
		case before(b.Range.Start, a.Range.Start):
			return 1
		}
		return 0
	})
	return out
}

// checkedHighlights finds name's occurrences through the check's index
// of users and the file's index of names; false without a check. The
// index knows the definitions that parse; the one at the cursor (here,
// the one being typed, which may not) is read too, but a use in another
// that does not parse is not marked (the index-only answer marks it).
func checkedHighlights(snap *snapshot, name string, here *grammar.Definition) ([]protocol.DocumentHighlight, bool) {
	users, ok := snap.res.Users(name)
	if !ok || snap.report == nil {
		return nil, false
	}
	f := snap.file
	var out []protocol.DocumentHighlight
	def, attrs := f.Registration(name)
	if def != nil {
		out = append(out, protocol.DocumentHighlight{Range: toRange(f, def.NameRange), Kind: protocol.DocumentHighlightKindWrite})
	}
	for _, at := range attrs {
		out = append(out, protocol.DocumentHighlight{Range: toRange(f, attributeNameRange(f, at)), Kind: protocol.DocumentHighlightKindText})
	}
	uses := func(d *grammar.Definition) {
		for _, t := range d.Tokens() {
			if t.Kind == grammar.TokName && t.Value(d.Expr) == name {
				out = append(out, protocol.DocumentHighlight{Range: toRange(f, f.ExprRange(d, t.Offset(), t.End())), Kind: protocol.DocumentHighlightKindRead})
			}
		}
	}
	seen := map[string]bool{} // (a metric is listed once per use)
	for _, u := range users {
		if m, ok := snap.metric(u); ok && m.Def != here && !seen[u] {
			seen[u] = true
			uses(m.Def)
		}
	}
	if here != nil {
		uses(here)
	}
	return out, true
}

// indexedHighlights finds name's occurrences in the document's index of
// names (every definition, not only the registered one).
func indexedHighlights(snap *snapshot, name string) []protocol.DocumentHighlight {
	ix := snap.index()
	uses, attrs := ix.usesOf(name)
	var out []protocol.DocumentHighlight
	add := func(list []occurrence, kind protocol.DocumentHighlightKind) {
		for _, o := range list {
			out = append(out, protocol.DocumentHighlight{Range: o.rng, Kind: kind})
		}
	}
	add(ix.defsOf(name), protocol.DocumentHighlightKindWrite)
	add(uses, protocol.DocumentHighlightKindRead)
	add(attrs, protocol.DocumentHighlightKindText)
	return out
}
