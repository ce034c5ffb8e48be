package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"
)

// DocumentHighlight marks the other places of the file that name the
// metric under the cursor, as one word: without it an editor highlights
// words, and splits disk.dev.read at its dots.
func (s *server) DocumentHighlight(ctx context.Context, params *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return documentHighlights(snap, params.Position), nil
	}
	return nil, nil
}

// documentHighlights are the occurrences in the document of the metric
// name at pos: its definitions (written), its uses in expressions (read)
// and its attribute lines (text), in file order; nil when pos is on no
// metric name. A PMNS metric's uses are found as a derived metric's are.
func documentHighlights(snap *snapshot, pos protocol.Position) []protocol.DocumentHighlight {
	name, _, ok := nameAt(snap, pos)
	if !ok {
		return nil
	}
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
