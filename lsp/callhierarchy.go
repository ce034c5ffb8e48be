package lsp

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// Call hierarchy over derived metrics: a metric's incoming calls are the
// derived metrics whose expressions use it, its outgoing calls the
// metrics its expression uses, across the configs of the workspace. A
// PCP metric (one no config defines) takes part too: its incoming calls
// are the derived metrics built on it; it has no outgoing ones.
//
// An open document answers from its snapshot's indexes, which the
// analysis keeps up to date per edit (checkedCalls), so the cost follows
// the answer and not the file, even right after a keystroke; a closed
// config (or a document checked against no source) from its index of
// names (the one references and rename read, wsindex.go).

// callSource is one config's part in a call hierarchy.
type callSource interface {
	docURI() uri.URI
	// defsOf are the ranges of name's definitions, in file order.
	defsOf(name string) []protocol.Range
	// callers are the definitions whose expressions use name, in file
	// order, each with where.
	callers(name string) []call
	// callees are the names the definition at r uses, in the order it
	// first names them, each with where; false when no definition of
	// name is at r.
	callees(name string, r protocol.Range) ([]call, bool)
}

// call is one metric a definition uses, or one definition that uses a
// metric: its name, its definition's range (callers), where the uses are.
type call struct {
	name string
	def  protocol.Range
	at   []protocol.Range
}

// callSources are the workspace's configs: the open documents' latest
// snapshots and the closed ones' indexes.
func (s *server) callSources(ctx context.Context) []callSource {
	open := map[uri.URI]bool{}
	var out []callSource
	for _, u := range s.docs.uris() {
		if snap := s.current(ctx, u); snap != nil {
			open[u] = true
			out = append(out, checkedCalls{snap})
		}
	}
	for _, wf := range s.workspace.closedFiles(open) {
		out = append(out, indexCalls{wf})
	}
	slices.SortFunc(out, func(a, b callSource) int { return strings.Compare(string(a.docURI()), string(b.docURI())) })
	return out
}

// PrepareCallHierarchy names the metric under the cursor: each of its
// definitions in the workspace, or the PCP metric itself.
func (s *server) PrepareCallHierarchy(ctx context.Context, params *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	snap := s.current(ctx, params.TextDocument.URI)
	if snap == nil {
		return nil, nil
	}
	name, r, ok := nameAt(snap, params.Position)
	if !ok {
		return nil, nil
	}
	return prepareCallHierarchy(s.callSources(ctx), name, protocol.Location{URI: params.TextDocument.URI, Range: r}), nil
}

// IncomingCalls lists the derived metrics whose expressions use the item.
func (s *server) IncomingCalls(ctx context.Context, params *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	return incomingCalls(s.callSources(ctx), params.Item), nil
}

// OutgoingCalls lists the metrics the item's expression uses.
func (s *server) OutgoingCalls(ctx context.Context, params *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	return outgoingCalls(s.callSources(ctx), params.Item), nil
}

// prepareCallHierarchy is an item per definition of name in the
// workspace; a name no config defines is a PCP metric, at where the
// cursor found it.
func prepareCallHierarchy(srcs []callSource, name string, at protocol.Location) []protocol.CallHierarchyItem {
	var items []protocol.CallHierarchyItem
	for _, src := range srcs {
		for _, r := range src.defsOf(name) {
			items = append(items, derivedItem(src.docURI(), name, r))
		}
	}
	if len(items) == 0 {
		items = append(items, pcpMetricItem(at.URI, name, at.Range))
	}
	return items
}

// incomingCalls are the definitions, in any config of the workspace,
// whose expressions use item's metric, each with where it does.
func incomingCalls(srcs []callSource, item protocol.CallHierarchyItem) []protocol.CallHierarchyIncomingCall {
	var out []protocol.CallHierarchyIncomingCall
	for _, src := range srcs {
		for _, c := range src.callers(item.Name) {
			out = append(out, protocol.CallHierarchyIncomingCall{From: derivedItem(src.docURI(), c.name, c.def), FromRanges: c.at})
		}
	}
	return out
}

// outgoingCalls are the metrics item's definition uses, in the order it
// first names them, each with where. The definition is the one the item
// points at; an item that points at none (a stale one) stands for every
// definition of its name.
func outgoingCalls(srcs []callSource, item protocol.CallHierarchyItem) []protocol.CallHierarchyOutgoingCall {
	type uses struct {
		src   callSource
		calls []call
	}
	var defs []uses
	for _, src := range srcs {
		if src.docURI() == item.URI {
			if calls, ok := src.callees(item.Name, item.SelectionRange); ok {
				defs = append(defs, uses{src, calls})
			}
		}
	}
	if len(defs) == 0 {
		for _, src := range srcs {
			for _, r := range src.defsOf(item.Name) {
				if calls, ok := src.callees(item.Name, r); ok {
					defs = append(defs, uses{src, calls})
				}
			}
		}
	}
	var out []protocol.CallHierarchyOutgoingCall
	for _, d := range defs {
		for _, c := range d.calls {
			out = append(out, protocol.CallHierarchyOutgoingCall{To: calleeItem(srcs, d.src, c.name, c.at[0]), FromRanges: c.at})
		}
	}
	return out
}

// calleeItem is the item of a metric a definition in src uses at r: its
// definition (in src when it has one, else the first config's that
// does), or, for a PCP metric, the use itself.
func calleeItem(srcs []callSource, src callSource, name string, r protocol.Range) protocol.CallHierarchyItem {
	if d := src.defsOf(name); len(d) > 0 {
		return derivedItem(src.docURI(), name, d[0])
	}
	for _, other := range srcs {
		if d := other.defsOf(name); len(d) > 0 {
			return derivedItem(other.docURI(), name, d[0])
		}
	}
	return pcpMetricItem(src.docURI(), name, r)
}

// derivedItem is a derived metric's definition as a call hierarchy item:
// its name's range (the protocol's range and selectionRange both), the
// file it is in as its detail.
func derivedItem(u uri.URI, name string, r protocol.Range) protocol.CallHierarchyItem {
	detail := filepath.Base(fileName(u))
	return protocol.CallHierarchyItem{Name: name, Kind: protocol.SymbolKindVariable, Detail: &detail, URI: u, Range: r, SelectionRange: r}
}

// pcpMetricItem is a metric no config of the workspace defines, at one
// place it is used.
func pcpMetricItem(u uri.URI, name string, r protocol.Range) protocol.CallHierarchyItem {
	detail := "PCP metric"
	return protocol.CallHierarchyItem{Name: name, Kind: protocol.SymbolKindConstant, Detail: &detail, URI: u, Range: r, SelectionRange: r}
}

// checkedCalls is an open document's part, from its snapshot: with a
// check, the indexes the analysis keeps per edit; without, its index of
// names (made once per version).
type checkedCalls struct{ snap *snapshot }

func (c checkedCalls) docURI() uri.URI { return c.snap.uri }

func (c checkedCalls) checked() bool { return c.snap.report != nil && c.snap.res.Report != nil }

func (c checkedCalls) defsOf(name string) []protocol.Range {
	if !c.checked() {
		return indexCalls{wsFile{c.snap.uri, c.snap.index()}}.defsOf(name)
	}
	if def, _ := c.snap.file.Registration(name); def != nil {
		return []protocol.Range{toRange(c.snap.file, def.NameRange)}
	}
	return nil
}

func (c checkedCalls) callers(name string) []call {
	users, ok := c.snap.res.Users(name)
	if !ok || !c.checked() {
		return indexCalls{wsFile{c.snap.uri, c.snap.index()}}.callers(name)
	}
	var out []call
	seen := map[string]bool{} // (a metric is listed once per use)
	for _, u := range users {
		m, ok := c.snap.metric(u)
		if !ok || seen[u] {
			continue
		}
		seen[u] = true
		for _, cl := range definitionCalls(c.snap.file, m.Def) {
			if cl.name == name {
				out = append(out, call{name: u, def: toRange(c.snap.file, m.Def.NameRange), at: cl.at})
			}
		}
	}
	// The index's order is not the file's.
	sortCalls(out)
	return out
}

func (c checkedCalls) callees(name string, r protocol.Range) ([]call, bool) {
	f := c.snap.file
	def := f.DefinitionAt(f.Offset(int(r.Start.Line), int(r.Start.Character)))
	if def == nil || def.Name != name || toRange(f, def.NameRange) != r {
		return nil, false
	}
	return definitionCalls(f, def), true
}

// definitionCalls are the names def's expression uses, in the order it
// first names them, each with where.
func definitionCalls(f *grammar.File, def *grammar.Definition) []call {
	var out []call
	at := map[string]int{}
	for _, t := range def.Tokens() {
		if t.Kind != grammar.TokName {
			continue
		}
		name := t.Value(def.Expr)
		i, seen := at[name]
		if !seen {
			i = len(out)
			at[name] = i
			out = append(out, call{name: name})
		}
		out[i].at = append(out[i].at, toRange(f, f.ExprRange(def, t.Offset(), t.End())))
	}
	return out
}

// sortCalls orders calls by where their definitions are.
func sortCalls(calls []call) {
	for i := 1; i < len(calls); i++ {
		for j := i; j > 0 && before(calls[j].def.Start, calls[j-1].def.Start); j-- {
			calls[j], calls[j-1] = calls[j-1], calls[j]
		}
	}
}

// indexCalls is a config's part from its index of names.
type indexCalls struct{ wf wsFile }

func (c indexCalls) docURI() uri.URI { return c.wf.uri }

func (c indexCalls) defsOf(name string) []protocol.Range {
	var out []protocol.Range
	for _, o := range c.wf.defsOf(name) {
		out = append(out, o.rng)
	}
	return out
}

func (c indexCalls) callers(name string) []call {
	var out []call
	uses, _ := c.wf.usesOf(name)
	last := -1 // the caller of the previous use: uses come in file order
	for _, u := range uses {
		caller, ok := c.wf.enclosingDef(u.rng.Start)
		if !ok {
			continue
		}
		if k := c.wf.defIndex(caller.rng); k != last {
			out = append(out, call{name: c.wf.nameOf(caller), def: caller.rng})
			last = k
		}
		out[len(out)-1].at = append(out[len(out)-1].at, u.rng)
	}
	return out
}

func (c indexCalls) callees(name string, r protocol.Range) ([]call, bool) {
	k := c.wf.defIndex(r)
	if k < 0 || c.wf.nameOf(c.wf.defs[k]) != name {
		return nil, false
	}
	var out []call
	at := map[string]int{}
	for _, u := range c.wf.usesIn(k) {
		callee := c.wf.nameOf(u)
		i, seen := at[callee]
		if !seen {
			i = len(out)
			at[callee] = i
			out = append(out, call{name: callee})
		}
		out[i].at = append(out[i].at, u.rng)
	}
	return out, true
}
