package lsp

import (
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Call hierarchy over derived metrics: a metric's incoming calls are the
// derived metrics whose expressions use it, its outgoing calls the
// metrics its expression uses, across the configs of the workspace (the
// index references and rename read, wsindex.go). A PCP metric (one no
// config defines) takes part too: its incoming calls are the derived
// metrics built on it; it has no outgoing ones.

// PrepareCallHierarchy names the metric under the cursor: each of its
// definitions in the workspace, or the PCP metric itself.
func (s *server) PrepareCallHierarchy(ctx context.Context, params *protocol.CallHierarchyPrepareParams) ([]protocol.CallHierarchyItem, error) {
	name, r, ok := s.nameUnder(ctx, params.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	return prepareCallHierarchy(s.workspace.snapshot(), name, protocol.Location{URI: params.TextDocument.URI, Range: toRange(r)}), nil
}

// IncomingCalls lists the derived metrics whose expressions use the item.
func (s *server) IncomingCalls(ctx context.Context, params *protocol.CallHierarchyIncomingCallsParams) ([]protocol.CallHierarchyIncomingCall, error) {
	return incomingCalls(s.workspace.snapshot(), params.Item), nil
}

// OutgoingCalls lists the metrics the item's expression uses.
func (s *server) OutgoingCalls(ctx context.Context, params *protocol.CallHierarchyOutgoingCallsParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	return outgoingCalls(s.workspace.snapshot(), params.Item), nil
}

// prepareCallHierarchy is an item per definition of name in the
// workspace's files; a name no config defines is a PCP metric, at where
// the cursor found it.
func prepareCallHierarchy(files []wsFile, name string, at protocol.Location) []protocol.CallHierarchyItem {
	var items []protocol.CallHierarchyItem
	for _, wf := range files {
		for _, d := range wf.defsOf(name) {
			items = append(items, derivedItem(wf.uri, name, d.rng))
		}
	}
	if len(items) == 0 {
		items = append(items, pcpMetricItem(at.URI, name, at.Range))
	}
	return items
}

// incomingCalls are the definitions, in any file of the workspace, whose
// expressions use item's metric, each with where it does; in file order.
func incomingCalls(files []wsFile, item protocol.CallHierarchyItem) []protocol.CallHierarchyIncomingCall {
	var out []protocol.CallHierarchyIncomingCall
	for _, wf := range files {
		uses, _ := wf.usesOf(item.Name)
		last := -1 // the caller of the previous use: uses come in file order
		for _, u := range uses {
			caller, ok := wf.enclosingDef(u.rng.Start)
			if !ok {
				continue
			}
			k := wf.defIndex(caller.rng)
			if k != last {
				out = append(out, protocol.CallHierarchyIncomingCall{From: derivedItem(wf.uri, wf.nameOf(caller), caller.rng)})
				last = k
			}
			call := &out[len(out)-1]
			call.FromRanges = append(call.FromRanges, u.rng)
		}
	}
	return out
}

// outgoingCalls are the metrics item's definition uses, in the order it
// first names them, each with where it does. The definition is the one
// the item points at; an item from elsewhere (another server session)
// stands for every definition of its name.
func outgoingCalls(files []wsFile, item protocol.CallHierarchyItem) []protocol.CallHierarchyOutgoingCall {
	type def struct {
		wf wsFile
		k  int
	}
	var defs []def
	for _, wf := range files {
		if wf.uri != item.URI {
			continue
		}
		if k := wf.defIndex(item.SelectionRange); k >= 0 && wf.nameOf(wf.defs[k]) == item.Name {
			defs = append(defs, def{wf, k})
		}
	}
	if len(defs) == 0 {
		for _, wf := range files {
			for _, k := range wf.defIndexes(item.Name) {
				defs = append(defs, def{wf, int(k)})
			}
		}
	}
	var out []protocol.CallHierarchyOutgoingCall
	for _, d := range defs {
		at := map[string]int{} // callee → index in out
		for _, u := range d.wf.usesIn(d.k) {
			callee := d.wf.nameOf(u)
			i, seen := at[callee]
			if !seen {
				i = len(out)
				at[callee] = i
				out = append(out, protocol.CallHierarchyOutgoingCall{To: calleeItem(files, d.wf, callee, u.rng)})
			}
			out[i].FromRanges = append(out[i].FromRanges, u.rng)
		}
	}
	return out
}

// calleeItem is the item of a metric a definition in wf uses at r: its
// definition (in wf when it has one, else the first file's that does),
// or, for a PCP metric, the use itself.
func calleeItem(files []wsFile, wf wsFile, name string, r protocol.Range) protocol.CallHierarchyItem {
	if d := wf.defsOf(name); len(d) > 0 {
		return derivedItem(wf.uri, name, d[0].rng)
	}
	for _, other := range files {
		if d := other.defsOf(name); len(d) > 0 {
			return derivedItem(other.uri, name, d[0].rng)
		}
	}
	return pcpMetricItem(wf.uri, name, r)
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
