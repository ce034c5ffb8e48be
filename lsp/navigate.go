package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// nameAt finds the derived-metric-like name under a position: the name of
// a definition, of an attribute line, or a metric name in an expression,
// and the name's range.
func nameAt(a *snapshot, p protocol.Position) (string, protocol.Range, bool) {
	f := a.file
	off := f.Offset(int(p.Line), int(p.Character))
	if def := f.DefinitionAt(off); def != nil {
		if f.Covers(def.NameRange, off) {
			return def.Name, toRange(f, def.NameRange), true
		}
		if tok, ok := tokenAt(def, f.ExprIndex(def, off)); ok && tok.Kind == grammar.TokName {
			return tok.Value(def.Expr), spanRange(f, f.ExprPos(def, tok.Offset()), f.ExprPos(def, tok.End()-1)+1), true
		}
	}
	for _, at := range f.Attributes {
		if r := attributeNameRange(f, at); f.Covers(r, off) {
			return at.Metric, toRange(f, r), true
		}
	}
	return "", protocol.Range{}, false
}

func attributeNameRange(f *grammar.File, at *grammar.Attribute) grammar.Range {
	start := f.OffsetOf(at.Range.Start)
	return grammar.Range{Start: f.Pos(start), End: f.Pos(start + len(at.Metric))}
}

// occurrences lists every place a derived metric name appears in the
// workspace: definitions (decl), uses in expressions and attribute lines.
func (s *server) occurrences(name string) (decls, uses map[uri.URI][]protocol.Range) {
	decls, uses = map[uri.URI][]protocol.Range{}, map[uri.URI][]protocol.Range{}
	for _, wf := range s.workspace.snapshot() {
		id, ok := wf.lookup(name)
		if !ok {
			continue
		}
		for _, d := range wf.defs {
			if d.name == id {
				decls[wf.uri] = append(decls[wf.uri], d.rng)
			}
		}
		for _, u := range wf.uses {
			if u.name == id {
				uses[wf.uri] = append(uses[wf.uri], u.rng)
			}
		}
	}
	return decls, uses
}

// nameUnder finds the derived-metric-like name at a position of a document.
func (s *server) nameUnder(ctx context.Context, tdp protocol.TextDocumentPositionParams) (string, protocol.Range, bool) {
	a := s.parsed(ctx, tdp.TextDocument.URI)
	if a == nil {
		return "", protocol.Range{}, false
	}
	return nameAt(a, tdp.Position)
}

// locations flattens ranges per document into LSP locations.
func locations(m map[uri.URI][]protocol.Range) []protocol.Location {
	var locs []protocol.Location
	for u, rs := range m {
		for _, r := range rs {
			locs = append(locs, protocol.Location{URI: u, Range: r})
		}
	}
	return locs
}

// Definition jumps from a use of a derived metric to its definition, in
// any config file of the workspace.
func (s *server) Definition(ctx context.Context, params *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	name, _, ok := s.nameUnder(ctx, params.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	decls, _ := s.occurrences(name)
	locs := protocol.LocationSlice(locations(decls))
	if len(locs) == 0 {
		if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
			locs = derivedFileDefinitions(snap, name)
		}
	}
	if len(locs) == 0 {
		return nil, nil
	}
	sortLocations(locs)
	if len(locs) == 1 {
		return &locs[0], nil
	}
	return locs, nil
}

// References lists the uses of a derived metric across the workspace.
func (s *server) References(ctx context.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	name, _, ok := s.nameUnder(ctx, params.TextDocumentPositionParams)
	if !ok {
		return nil, nil
	}
	decls, uses := s.occurrences(name)
	if len(decls) == 0 {
		return nil, nil // a PMNS metric: not ours to track
	}
	var locs []protocol.Location
	if params.Context.IncludeDeclaration {
		locs = locations(decls)
	}
	locs = append(locs, locations(uses)...)
	sortLocations(locs)
	return locs, nil
}

func sortLocations(locs []protocol.Location) {
	less := func(a, b protocol.Location) bool {
		if a.URI != b.URI {
			return a.URI < b.URI
		}
		if a.Range.Start.Line != b.Range.Start.Line {
			return a.Range.Start.Line < b.Range.Start.Line
		}
		return a.Range.Start.Character < b.Range.Start.Character
	}
	for i := 1; i < len(locs); i++ {
		for j := i; j > 0 && less(locs[j], locs[j-1]); j-- {
			locs[j], locs[j-1] = locs[j-1], locs[j]
		}
	}
}

// PrepareRename accepts only derived metrics defined in the workspace.
func (s *server) PrepareRename(ctx context.Context, params *protocol.PrepareRenameParams) (protocol.PrepareRenameResult, error) {
	name, r, ok := s.nameUnder(ctx, params.TextDocumentPositionParams)
	if !ok {
		return nil, fmt.Errorf("only derived metric names can be renamed")
	}
	if decls, _ := s.occurrences(name); len(decls) == 0 {
		return nil, fmt.Errorf("%s is not a derived metric defined in this workspace: it cannot be renamed here", name)
	}
	return &protocol.PrepareRenamePlaceholder{Range: r, Placeholder: name}, nil
}

// Rename renames a derived metric everywhere in the workspace: its
// definitions, its attribute lines and every expression using it.
func (s *server) Rename(ctx context.Context, params *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	name, _, ok := s.nameUnder(ctx, params.TextDocumentPositionParams)
	if !ok {
		return nil, fmt.Errorf("only derived metric names can be renamed")
	}
	if !grammar.ValidMetricName(params.NewName) || strings.HasSuffix(params.NewName, ".") {
		return nil, fmt.Errorf("%q is not a valid metric name: dot-separated parts starting with a letter, then letters, digits or _", params.NewName)
	}
	decls, uses := s.occurrences(name)
	if len(decls) == 0 {
		return nil, fmt.Errorf("%s is not a derived metric defined in this workspace", name)
	}
	if other, _ := s.occurrences(params.NewName); len(other) > 0 {
		return nil, fmt.Errorf("%s is already defined: renaming would make a duplicate", params.NewName)
	}
	changes := map[uri.URI][]protocol.TextEdit{}
	for _, m := range []map[uri.URI][]protocol.Range{decls, uses} {
		for u, rs := range m {
			for _, r := range rs {
				changes[u] = append(changes[u], protocol.TextEdit{Range: r, NewText: params.NewName})
			}
		}
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}

// Symbols finds derived metrics by name across the workspace's configs.
func (s *server) Symbols(ctx context.Context, params *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	q := strings.ToLower(params.Query)
	kind := symbolKind(protocol.SymbolKindVariable, s.session.clientCaps().wsSymbolKinds)
	var out protocol.WorkspaceSymbolSlice
	for _, wf := range s.workspace.snapshot() {
		for _, def := range wf.defs {
			name := wf.nameOf(def)
			if q != "" && !strings.Contains(strings.ToLower(name), q) {
				continue
			}
			container := fileName(wf.uri)
			out = append(out, protocol.WorkspaceSymbol{
				BaseSymbolInformation: protocol.BaseSymbolInformation{Name: name, Kind: kind, ContainerName: &container},
				Location:              &protocol.Location{URI: wf.uri, Range: def.rng},
			})
			if len(out) >= 1000 {
				return out, nil
			}
		}
	}
	return out, nil
}

// FoldingRanges folds multi-line definitions, multi-line help text and
// runs of comment lines.
func (s *server) FoldingRanges(ctx context.Context, params *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return foldingRanges(snap), nil
	}
	return nil, nil
}

func foldingRanges(a *snapshot) []protocol.FoldingRange {
	var out []protocol.FoldingRange
	span := func(r grammar.Range, kind protocol.FoldingRangeKind) {
		if r.Start.Line == 0 {
			return // no range
		}
		rg := toRange(a.file, r)
		end := rg.End.Line
		if rg.End.Character == 0 && end > rg.Start.Line {
			end-- // the range ends with the newline of the line before
		}
		if end > rg.Start.Line {
			out = append(out, protocol.FoldingRange{StartLine: rg.Start.Line, EndLine: end, Kind: kind})
		}
	}
	for _, def := range a.file.Definitions.All() {
		span(def.Range, protocol.FoldingRangeKindRegion)
	}
	for _, at := range a.file.Attributes {
		span(at.Range, protocol.FoldingRangeKindRegion)
	}
	// Consecutive comment lines fold together.
	var run grammar.Range
	flush := func() {
		span(run, protocol.FoldingRangeKindComment)
		run = grammar.Range{}
	}
	for _, c := range a.file.Comments {
		if run.Start.Line != 0 && c.Start.Line == run.End.Line+1 {
			run.End = c.End
			continue
		}
		flush()
		run = c
	}
	flush()
	return out
}

// SignatureHelp shows the parameters of the function call around the
// cursor, with the one being typed highlighted.
func (s *server) SignatureHelp(ctx context.Context, params *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		s.noteFocus(snap, params.Position.Line)
		return signatureHelp(snap, params.Position), nil
	}
	return nil, nil
}

func signatureHelp(a *snapshot, pos protocol.Position) *protocol.SignatureHelp {
	off := a.file.Offset(int(pos.Line), int(pos.Character))
	def := a.file.DefinitionAt(off)
	if def == nil {
		return nil
	}
	idx := a.file.ExprIndex(def, off)
	if idx < 0 {
		return nil
	}
	var stack callStack
	for _, t := range def.Tokens() {
		if t.Offset() >= idx || t.Kind == grammar.TokEOS {
			break
		}
		stack = stack.push(t, def.Expr)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		f := stack[i]
		if f.fn == "" {
			continue
		}
		fn, ok := grammar.LookupFunction(f.fn)
		if !ok {
			return nil
		}
		ps := fn.Params
		if !f.opened {
			continue
		}
		active := uint32(f.arg)
		if f.fn == "mkconst" || f.fn == "novalue" {
			active = min(active, uint32(len(ps)-1))
		}
		sig := protocol.SignatureInformation{Label: f.fn + "(" + strings.Join(ps, ", ") + ")",
			Documentation: protocol.String(fn.Doc)}
		for _, p := range ps {
			sig.Parameters = append(sig.Parameters, protocol.ParameterInformation{Label: protocol.String(p)})
		}
		zero := uint32(0)
		return &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{sig}, ActiveSignature: &zero,
			ActiveParameter: protocol.NewNullable(active)}
	}
	return nil
}

// callFrame is an open parenthesis while scanning the tokens before the
// cursor (signature help, completion inside calls).
type callFrame struct {
	fn     string // "" for a plain parenthesis
	opened bool   // the call's "(" has been seen
	arg    int    // commas seen inside
}

// callStack is the open calls and parentheses, innermost last.
type callStack []callFrame

// push updates the stack with the next token of expr.
func (st callStack) push(t grammar.Token, expr string) callStack {
	n := len(st)
	switch t.Kind {
	case grammar.TokFunc:
		return append(st, callFrame{fn: t.Value(expr)})
	case grammar.TokLParen:
		if n > 0 && st[n-1].fn != "" && !st[n-1].opened {
			st[n-1].opened = true
			return st
		}
		return append(st, callFrame{opened: true})
	case grammar.TokComma:
		if n > 0 {
			st[n-1].arg++
		}
	case grammar.TokRParen:
		if n > 0 {
			return st[:n-1]
		}
	}
	return st
}
