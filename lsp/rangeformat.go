package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// RangeFormatting formats the definitions a range touches, by the rules
// of Format Document (formatEdit).
func (s *server) RangeFormatting(ctx context.Context, params *protocol.DocumentRangeFormattingParams) ([]protocol.TextEdit, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return rangeFormatting(snap, params.Range), nil
	}
	return nil, nil
}

// rangeFormatting is formatting's edits for the definitions that overlap
// rg (a definition is formatted whole, or not at all), found by a search,
// not a pass over the file.
func rangeFormatting(d *snapshot, rg protocol.Range) []protocol.TextEdit {
	f := d.file
	from := f.Pos(f.Offset(int(rg.Start.Line), int(rg.Start.Character)))
	to := f.Pos(f.Offset(int(rg.End.Line), int(rg.End.Character)))
	var edits []protocol.TextEdit
	i := f.Definitions.Search(func(def *grammar.Definition) bool { return def.Range.End.Compare(from) > 0 })
	for ; i < f.Definitions.Len(); i++ {
		def := f.Definitions.At(i)
		if def.Range.Start.Compare(to) > 0 || (def.Range.Start.Compare(to) == 0 && to.Compare(from) > 0) {
			break // starts after the range (or where a non-empty one ends)
		}
		if e, ok := formatEdit(d, def); ok {
			edits = append(edits, e)
		}
	}
	return edits
}
