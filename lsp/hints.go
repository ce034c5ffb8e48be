package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// InlayHint shows, at the end of every valid definition, its inferred
// metadata and (when preview is on and the source has values) its latest
// values.
func (s *server) InlayHint(ctx context.Context, params *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	snap := s.current(ctx, params.TextDocument.URI)
	if snap == nil || snap.report == nil {
		return nil, nil
	}
	s.explains.setVisible(snap.uri, params.Range)
	if rg := params.Range; rg.End.Line >= rg.Start.Line && rg.End.Line-rg.Start.Line <= maxScreenLines {
		s.noteFocus(snap, rg.Start.Line+(rg.End.Line-rg.Start.Line)/2)
	}
	return inlayHints(snap, s.previews.get(snap.uri, snap.version), params.Range), nil
}

// inlayHints are each valid definition's inferred metadata and latest
// values (as the snapshot's settings ask) at its end, within a range.
func inlayHints(a *snapshot, values map[string]shownValues, rg protocol.Range) []protocol.InlayHint {
	st := a.settings()
	yes := true
	var out []protocol.InlayHint
	// The definitions ending in the range: from the first that ends at
	// or after its start (definitions are in file order), until one
	// starts past its end.
	f, defs := a.file, a.file.Definitions
	first := defs.Search(func(d *grammar.Definition) bool { return toPosition(f, d.Range.End).Line >= rg.Start.Line })
	for i := first; i < defs.Len(); i++ {
		def := defs.At(i)
		if toPosition(f, def.Range.Start).Line > rg.End.Line {
			break
		}
		if line := toPosition(f, def.Range.End).Line; line < rg.Start.Line || line > rg.End.Line {
			continue
		}
		m, ok := a.report.ByName.Lookup(def.Name)
		if !ok || m.Def != def || m.Status != checker.Valid {
			continue
		}
		pos := toPosition(a.file, def.Range.End)
		if st.hintsOn() {
			out = append(out, protocol.InlayHint{Position: pos, Label: protocol.String(hintText(m.Desc)),
				Kind: protocol.InlayHintKindType, PaddingLeft: &yes,
				Tooltip: protocol.String(checker.DescText(m.Desc))})
		}
		if v, ok := values[def.Name]; ok && st.previewOn() {
			out = append(out, protocol.InlayHint{Position: pos, Label: protocol.String("= " + v.short),
				PaddingLeft: &yes, Tooltip: protocol.String(v.long)})
		}
	}
	return out
}

// hintText is the compact metadata: "double instant Kbyte / sec [60.1]".
func hintText(d pmapi.Desc) string {
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	t := fmt.Sprintf("%s %s %s", strings.ToLower(d.Type.String()), d.Sem, units)
	if d.InDom != pmapi.InDomNull {
		t += " [" + d.InDom.String() + "]"
	}
	return t
}
