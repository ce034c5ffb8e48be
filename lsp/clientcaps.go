package lsp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// clientCaps are the client capabilities the server adapts to, read
// once at initialize. Every reply is shaped by them here, in one place:
// a client gets markdown, snippets, code action literals, hierarchical
// symbols, a kind or a prepareRename only when it declared it reads them
// (eglot without yasnippet inserts "avg($1)" literally; a client that
// never said it reads markdown shows the asterisks).
type clientCaps struct {
	inlayRefresh, codeLensRefresh, workDoneProgress bool
	// configuration: the client answers workspace/configuration, so
	// settings are pulled rather than taken from notifications alone.
	configuration bool
	// watchFiles: the client lets the server register file watchers
	// (for the project rules file).
	watchFiles bool
	// applyEdit: the client applies a workspace/applyEdit of the server's.
	applyEdit bool
	// pullDiagnostics: the client asks for diagnostics
	// (textDocument/diagnostic), so none are pushed (pulldiag.go);
	// diagnosticRefresh: it can be told to ask again; relatedDocuments:
	// a document's answer may carry other documents' findings.
	pullDiagnostics, diagnosticRefresh, relatedDocuments bool

	snippets          bool // completion items may be snippets
	hoverMarkdown     bool // hover contents may be markdown
	completionMarkdwn bool // completion documentation may be markdown
	codeActionLiteral bool // code actions may be CodeAction literals, not only Commands
	hierarchical      bool // document symbols may be DocumentSymbol trees
	prepareRename     bool // the client sends textDocument/prepareRename
	// The kinds the client knows: its declared value set, or the LSP
	// 3.0 base set when it declared none.
	completionKinds []protocol.CompletionItemKind
	symbolKinds     []protocol.SymbolKind // of document symbols
	wsSymbolKinds   []protocol.SymbolKind // of workspace symbols
	// What of a published diagnostic the client reads: its tags (none
	// unless declared), related information, a code's page.
	diagTags            []protocol.DiagnosticTag
	diagRelated         bool
	diagCodeDescription bool
}

// The LSP 3.0 base sets: what a client that declares no value set knows.
var (
	baseCompletionKinds = kindRange[protocol.CompletionItemKind](protocol.CompletionItemKindText, protocol.CompletionItemKindReference)
	baseSymbolKinds     = kindRange[protocol.SymbolKind](protocol.SymbolKindFile, protocol.SymbolKindArray)
)

func kindRange[K ~uint32](from, to K) []K {
	var out []K
	for k := from; k <= to; k++ {
		out = append(out, k)
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }

func readClientCaps(p *protocol.InitializeParams) clientCaps {
	c := clientCaps{completionKinds: baseCompletionKinds, symbolKinds: baseSymbolKinds, wsSymbolKinds: baseSymbolKinds}
	if ws := p.Capabilities.Workspace; ws != nil {
		if ws.InlayHint != nil {
			c.inlayRefresh = isTrue(ws.InlayHint.RefreshSupport)
		}
		if ws.CodeLens != nil {
			c.codeLensRefresh = isTrue(ws.CodeLens.RefreshSupport)
		}
		c.configuration = isTrue(ws.Configuration)
		if w := ws.DidChangeWatchedFiles; w != nil {
			c.watchFiles = isTrue(w.DynamicRegistration)
		}
		c.applyEdit = isTrue(ws.ApplyEdit)
		if ws.Diagnostics != nil {
			c.diagnosticRefresh = isTrue(ws.Diagnostics.RefreshSupport)
		}
		if ws.Symbol != nil && ws.Symbol.SymbolKind != nil && len(ws.Symbol.SymbolKind.ValueSet) > 0 {
			c.wsSymbolKinds = ws.Symbol.SymbolKind.ValueSet
		}
	}
	if w := p.Capabilities.Window; w != nil {
		c.workDoneProgress = isTrue(w.WorkDoneProgress)
	}
	td := p.Capabilities.TextDocument
	if td == nil {
		return c
	}
	if d := td.Diagnostic; d != nil {
		c.pullDiagnostics = true
		c.relatedDocuments = isTrue(d.RelatedDocumentSupport)
	}
	if cc := td.Completion; cc != nil {
		if it := cc.CompletionItem; it != nil {
			c.snippets = isTrue(it.SnippetSupport)
			c.completionMarkdwn = slices.Contains(it.DocumentationFormat, protocol.MarkupKindMarkdown)
		}
		if k := cc.CompletionItemKind; k != nil && len(k.ValueSet) > 0 {
			c.completionKinds = k.ValueSet
		}
	}
	if h := td.Hover; h != nil {
		c.hoverMarkdown = slices.Contains(h.ContentFormat, protocol.MarkupKindMarkdown)
	}
	if ca := td.CodeAction; ca != nil {
		c.codeActionLiteral = ca.CodeActionLiteralSupport.CodeActionKind.ValueSet != nil
	}
	if ds := td.DocumentSymbol; ds != nil {
		c.hierarchical = isTrue(ds.HierarchicalDocumentSymbolSupport)
		if ds.SymbolKind != nil && len(ds.SymbolKind.ValueSet) > 0 {
			c.symbolKinds = ds.SymbolKind.ValueSet
		}
	}
	if r := td.Rename; r != nil {
		c.prepareRename = isTrue(r.PrepareSupport)
	}
	if pd := td.PublishDiagnostics; pd != nil {
		c.diagTags = pd.TagSupport.ValueSet
		c.diagRelated = isTrue(pd.RelatedInformation)
		c.diagCodeDescription = isTrue(pd.CodeDescriptionSupport)
	}
	return c
}

// diagnostic shapes a published diagnostic for the client: only the tags
// it declared, a code's page only with codeDescriptionSupport, and the
// related information, to a client that does not read it, as lines of
// the message ("PATH:LINE: message"), so none of it is lost.
func (c clientCaps) diagnostic(d *protocol.Diagnostic) {
	if d.Tags.Len() > 0 {
		d.Tags = protocol.NewDiagnosticTags(slices.DeleteFunc(d.Tags.Slice(), func(t protocol.DiagnosticTag) bool {
			return !slices.Contains(c.diagTags, t)
		})...)
	}
	if !c.diagCodeDescription {
		d.CodeDescription = protocol.CodeDescription{}
	}
	if !c.diagRelated && len(d.RelatedInformation) > 0 {
		if msg, ok := d.Message.(protocol.String); ok {
			var b strings.Builder
			b.WriteString(string(msg))
			for _, r := range d.RelatedInformation {
				fmt.Fprintf(&b, "\n%s:%d: %s", fileName(r.Location.URI), r.Location.Range.Start.Line+1, r.Message)
			}
			d.Message = protocol.String(b.String())
		}
		d.RelatedInformation = nil
	}
}

// markup is text written in markdown, as the client reads it: markdown
// when it said so, else plain text.
func markup(md string, markdown bool) *protocol.MarkupContent {
	if markdown {
		return &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}
	}
	return &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: plainText(md)}
}

var (
	mdFence    = regexp.MustCompile("(?m)^```[a-z]*\n?")
	mdCodeSpan = regexp.MustCompile("`([^`\n]*)`")
	mdStrong   = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	mdEm       = regexp.MustCompile(`(^|[\s(])[*_]([^*_\s][^*_\n]*?)[*_]($|[\s).,:;])`)
	mdLink     = regexp.MustCompile(`\[([^\]\n]*)\]\(([^)\s]*)\)`)
	mdEscape   = regexp.MustCompile(`\\([\\` + "`" + `*_{}\[\]()#+\-.!|>])`)
)

// plainText renders the markdown the server writes (code spans and
// fences, emphasis, links, escapes) as the text a reader would see.
func plainText(md string) string {
	s := mdFence.ReplaceAllString(md, "")
	s = mdLink.ReplaceAllString(s, "$1 ($2)")
	s = mdCodeSpan.ReplaceAllString(s, "$1")
	s = mdStrong.ReplaceAllString(s, "$1$2")
	s = mdEm.ReplaceAllString(s, "$1$2$3")
	s = mdEscape.ReplaceAllString(s, "$1")
	return strings.TrimRight(s, "\n")
}

// hover shapes a hover for the client.
func (c clientCaps) hover(h *protocol.Hover) *protocol.Hover {
	if h == nil {
		return nil
	}
	if mc, ok := h.Contents.(*protocol.MarkupContent); ok && mc.Kind == protocol.MarkupKindMarkdown {
		h.Contents = markup(mc.Value, c.hoverMarkdown)
	}
	return h
}

// snippetPlaceholder is a tab stop, a placeholder or a choice: $1, ${1},
// ${1:text}, ${1|a,b|}. As plain text, a placeholder is its text; the
// others are nothing (a choice is offered again by the value completion).
var snippetPlaceholder = regexp.MustCompile(`\$(\d+)|\$\{\d+(?::([^}]*)|\|[^}]*\|)?\}`)

// completionItem shapes a completion item for the client: a snippet as
// the plain text it inserts, markdown documentation as plain text, a
// kind the client does not know as the nearest one it does (or none).
func (c clientCaps) completionItem(it *protocol.CompletionItem) {
	if it.InsertTextFormat == protocol.InsertTextFormatSnippet && !c.snippets {
		plain := func(s string) string { return snippetPlaceholder.ReplaceAllString(s, "$2") }
		if te, ok := it.TextEdit.(*protocol.TextEdit); ok {
			te.NewText = plain(te.NewText)
		}
		if v, ok := it.InsertText.Get(); ok {
			it.InsertText = protocol.NewOptional(plain(v))
		}
		it.InsertTextFormat = 0 // omitted: plain text
	}
	if mc, ok := it.Documentation.(*protocol.MarkupContent); ok && mc.Kind == protocol.MarkupKindMarkdown && !c.completionMarkdwn {
		it.Documentation = protocol.String(plainText(mc.Value))
	}
	if it.Kind != 0 && !slices.Contains(c.completionKinds, it.Kind) {
		newer := it.Kind
		it.Kind = 0 // omitted, unless a kind the client knows is near
		for _, k := range completionFallback[newer] {
			if slices.Contains(c.completionKinds, k) {
				it.Kind = k
				break
			}
		}
	}
}

// completionFallback are the 3.0 kinds nearest to the newer ones.
var completionFallback = map[protocol.CompletionItemKind][]protocol.CompletionItemKind{
	protocol.CompletionItemKindEnumMember: {protocol.CompletionItemKindValue, protocol.CompletionItemKindEnum},
	protocol.CompletionItemKindConstant:   {protocol.CompletionItemKindValue},
	protocol.CompletionItemKindOperator:   {protocol.CompletionItemKindKeyword},
	protocol.CompletionItemKindFolder:     {protocol.CompletionItemKindModule},
}

// completion shapes a completion answer for the client.
func (c clientCaps) completion(res protocol.CompletionResult) protocol.CompletionResult {
	if list, ok := res.(*protocol.CompletionList); ok && list != nil {
		for i := range list.Items {
			c.completionItem(&list.Items[i])
		}
	}
	return res
}

// symbolKind is k if the client knows it, else the nearest kind it does.
func symbolKind(k protocol.SymbolKind, known []protocol.SymbolKind) protocol.SymbolKind {
	if slices.Contains(known, k) {
		return k
	}
	for _, alt := range []protocol.SymbolKind{protocol.SymbolKindVariable, protocol.SymbolKindField, protocol.SymbolKindProperty} {
		if slices.Contains(known, alt) {
			return alt
		}
	}
	return known[0]
}

// documentSymbols shapes document symbols for the client: the tree when
// it reads DocumentSymbol, else a flat SymbolInformation list, each
// child naming its parent as container.
func (c clientCaps) documentSymbols(u uri.URI, syms protocol.DocumentSymbolSlice) protocol.DocumentSymbolResult {
	if c.hierarchical {
		var fit func([]protocol.DocumentSymbol)
		fit = func(ss []protocol.DocumentSymbol) {
			for i := range ss {
				ss[i].Kind = symbolKind(ss[i].Kind, c.symbolKinds)
				fit(ss[i].Children)
			}
		}
		fit(syms)
		return syms
	}
	out := protocol.SymbolInformationSlice{}
	var flatten func(ss []protocol.DocumentSymbol, container *string)
	flatten = func(ss []protocol.DocumentSymbol, container *string) {
		for _, s := range ss {
			out = append(out, protocol.SymbolInformation{
				BaseSymbolInformation: protocol.BaseSymbolInformation{Name: s.Name, Kind: symbolKind(s.Kind, c.symbolKinds), ContainerName: container},
				Location:              protocol.Location{URI: u, Range: s.Range},
			})
			name := s.Name
			flatten(s.Children, &name)
		}
	}
	flatten(syms, nil)
	return out
}

// cmdApplyFix applies a quick fix's edit for a client that takes code
// actions only as Commands: the server asks it to apply the edit
// (workspace/applyEdit).
const cmdApplyFix = "pcp-derive.applyFix"

// codeActions shapes code actions for the client: literals when it reads
// them, else their commands (a quick fix's edit becomes cmdApplyFix,
// when the client applies the server's edits; else the fix is left out).
func (c clientCaps) codeActions(actions []protocol.CommandOrCodeAction) []protocol.CommandOrCodeAction {
	if c.codeActionLiteral {
		return actions
	}
	out := []protocol.CommandOrCodeAction{}
	for _, a := range actions {
		ca, ok := a.(*protocol.CodeAction)
		switch {
		case !ok:
			out = append(out, a)
		case ca.Edit != nil && c.applyEdit:
			arg, err := protocol.Marshal(ca.Edit)
			if err != nil {
				continue
			}
			out = append(out, &protocol.Command{Title: ca.Title, Command: cmdApplyFix, Arguments: []protocol.LSPAny{arg}})
		case ca.Edit == nil && ca.Command.Command != "":
			cmd := ca.Command
			out = append(out, &cmd)
		}
	}
	return out
}
