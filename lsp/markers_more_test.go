package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// waitForScan waits until the workspace scan has indexed each closed/
// section's file (one with a definition), so cross-file answers do not
// depend on how fast it was.
func waitForScan(t *testing.T, ctx context.Context, srv protocol.Server, root string, sections []string) {
	deadline := time.Now().Add(15 * time.Second)
	for _, name := range sections {
		rest, ok := strings.CutPrefix(name, "closed/")
		if !ok {
			continue
		}
		want := uri.File(filepath.Join(root, rest))
		for {
			res, err := srv.Symbols(ctx, &protocol.WorkspaceSymbolParams{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			if syms, ok := res.(protocol.SymbolInformationSlice); ok {
				for _, s := range syms {
					found = found || s.Location.URI == want
				}
			}
			if syms, ok := res.(protocol.WorkspaceSymbolSlice); ok {
				for _, s := range syms {
					if l, ok := s.Location.(*protocol.Location); ok {
						found = found || l.URI == want
					}
				}
			}
			if found {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the workspace scan did not index %s", rest)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// rel is a document's path in the test's folder.
func (r *markerRun) rel(u uri.URI) string {
	p, _ := filepath.Rel(r.base, u.FsPath())
	return p
}

// runMore runs the marker commands of the features of issue #39:
// highlight M, selection M, callers M, callees M, links, rformat M1 M2,
// pull (textDocument/diagnostic, twice: the second with the first's
// result id), wsdiag (workspace/diagnostic, twice likewise). ok is false
// for a command it does not know.
func (r *markerRun) runMore(f []string) (out []string, ok bool) {
	ctx, srv := r.ctx, r.srv
	arg := func(i int) string {
		if i >= len(f) {
			r.t.Fatalf("%v: missing argument", f)
		}
		return f[i]
	}
	diagLine := func(d protocol.Diagnostic) string {
		return fmt.Sprintf("  %s %v: %v", rng(d.Range), d.Code, d.Message)
	}
	switch f[0] {
	case "highlight":
		hs, err := srv.DocumentHighlight(ctx, &protocol.DocumentHighlightParams{TextDocumentPositionParams: r.pos(arg(1))})
		if err != nil {
			return errLine(err), true
		}
		kinds := map[protocol.DocumentHighlightKind]string{1: "text", 2: "read", 3: "write"}
		for _, h := range hs {
			out = append(out, rng(h.Range)+" "+kinds[h.Kind])
		}
		if out == nil {
			out = []string{"(none)"}
		}
	case "selection":
		p := r.pos(arg(1))
		sels, err := srv.SelectionRange(ctx, &protocol.SelectionRangeParams{TextDocument: p.TextDocument, Positions: []protocol.Position{p.Position}})
		if err != nil {
			return errLine(err), true
		}
		if len(sels) != 1 {
			return []string{fmt.Sprintf("(%d selection ranges for 1 position)", len(sels))}, true
		}
		for sel := &sels[0]; sel != nil; sel = sel.Parent {
			out = append(out, rng(sel.Range))
		}
	case "callers", "callees":
		items, err := srv.PrepareCallHierarchy(ctx, &protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: r.pos(arg(1))})
		if err != nil {
			return errLine(err), true
		}
		item := func(it protocol.CallHierarchyItem) string {
			return fmt.Sprintf("%s %s (%s, kind %d)", it.Name, r.loc(protocol.Location{URI: it.URI, Range: it.SelectionRange}), *it.Detail, it.Kind)
		}
		ranges := func(rs []protocol.Range) string {
			var parts []string
			for _, x := range rs {
				parts = append(parts, rng(x))
			}
			return strings.Join(parts, " ")
		}
		for _, it := range items {
			out = append(out, item(it))
			if f[0] == "callers" {
				calls, err := srv.IncomingCalls(ctx, &protocol.CallHierarchyIncomingCallsParams{Item: it})
				if err != nil {
					return errLine(err), true
				}
				for _, c := range calls {
					out = append(out, "  from "+item(c.From)+" at "+ranges(c.FromRanges))
				}
				continue
			}
			calls, err := srv.OutgoingCalls(ctx, &protocol.CallHierarchyOutgoingCallsParams{Item: it})
			if err != nil {
				return errLine(err), true
			}
			for _, c := range calls {
				out = append(out, "  to "+item(c.To)+" at "+ranges(c.FromRanges))
			}
		}
		if out == nil {
			out = []string{"(none)"}
		}
	case "links":
		links, err := srv.DocumentLink(ctx, &protocol.DocumentLinkParams{TextDocument: r.doc()})
		if err != nil {
			return errLine(err), true
		}
		for _, l := range links {
			out = append(out, fmt.Sprintf("%s %s", rng(l.Range), *l.Target))
		}
	case "rformat":
		from, to := r.pos(arg(1)).Position, r.pos(arg(2)).Position
		edits, err := srv.RangeFormatting(ctx, &protocol.DocumentRangeFormattingParams{TextDocument: r.doc(), Range: protocol.Range{Start: from, End: to}})
		if err != nil {
			return errLine(err), true
		}
		for _, e := range edits {
			out = append(out, fmt.Sprintf("%s %q", rng(e.Range), e.NewText))
		}
		if out == nil {
			out = []string{"(no edits)"}
		}
	case "pull":
		var previous *string
		for range 2 {
			rep, err := srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: r.doc(), PreviousResultID: previous})
			if err != nil {
				return errLine(err), true
			}
			switch rep := rep.(type) {
			case *protocol.RelatedFullDocumentDiagnosticReport:
				out = append(out, fmt.Sprintf("%s, %d items", rep.Kind, len(rep.Items)))
				for _, d := range rep.Items {
					out = append(out, diagLine(d))
				}
				previous = rep.ResultID
			case *protocol.RelatedUnchangedDocumentDiagnosticReport:
				out = append(out, rep.Kind)
			default:
				out = append(out, fmt.Sprintf("(unexpected %T)", rep))
			}
		}
	case "wsdiag":
		var previous []protocol.PreviousResultId
		for range 2 {
			rep, err := srv.DiagnosticWorkspace(ctx, &protocol.WorkspaceDiagnosticParams{PreviousResultIds: previous})
			if err != nil {
				return errLine(err), true
			}
			previous = nil
			var lines []string
			for _, it := range rep.Items {
				switch it := it.(type) {
				case *protocol.WorkspaceFullDocumentDiagnosticReport:
					line := fmt.Sprintf("%s: %s, %d items", r.rel(it.URI), it.Kind, len(it.Items))
					for _, d := range it.Items {
						line += "\n" + diagLine(d)
					}
					lines = append(lines, line)
					previous = append(previous, protocol.PreviousResultId{URI: it.URI, Value: *it.ResultID})
				case *protocol.WorkspaceUnchangedDocumentDiagnosticReport:
					lines = append(lines, fmt.Sprintf("%s: %s", r.rel(it.URI), it.Kind))
				default:
					lines = append(lines, fmt.Sprintf("(unexpected %T)", it))
				}
			}
			sort.Strings(lines)
			out = append(out, lines...)
			out = append(out, "--")
		}
	default:
		return nil, false
	}
	return out, true
}
