package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

func (s *server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	release(ctx) // may wait for metadata
	ctx, cancel := detach(ctx)
	defer cancel()
	if snap := s.current(ctx, params.TextDocument.URI); snap != nil {
		s.noteFocus(snap, params.Position.Line)
		return s.session.clientCaps().hover(s.withNow(ctx, snap, params.Position, hover(ctx, snap, params.Position))), nil
	}
	return nil, nil
}

// hover describes what is under a position: a derived metric (its
// inferred metadata and attributes), a real metric (the source's
// metadata, help, instances and labels), a function or an operator.
func hover(ctx context.Context, d *snapshot, pos protocol.Position) *protocol.Hover {
	off := d.file.Offset(int(pos.Line), int(pos.Character))
	def := d.file.DefinitionAt(off)
	if def == nil {
		return nil
	}
	var md string
	var rg grammar.Range
	if d.file.Covers(def.NameRange, off) {
		md, rg = derivedHover(d, def.Name), def.NameRange
	} else {
		idx := d.file.ExprIndex(def, off)
		tok, ok := tokenAt(def, idx)
		if !ok {
			return nil
		}
		rg = d.file.ExprRange(def, tok.Offset(), tok.End())
		switch tok.Kind {
		case grammar.TokName:
			name := tok.Value(def.Expr)
			if _, ok := d.metric(name); ok {
				md = derivedHover(d, name)
			} else {
				md = metricHover(ctx, d.source(), name)
			}
		case grammar.TokFunc:
			fn, _ := grammar.LookupFunction(tok.Value(def.Expr))
			md = fmt.Sprintf("```\n%s\n```\n%s", fn.Signature, fn.Doc)
			if note := releaseNote(def, tok.Offset(), d.release()); note != "" {
				md += "\n\n" + note
			}
			if info := nodeInfoAt(d, def, tok.Offset()); info != "" {
				md += "\n\nHere: " + info
			}
		default:
			info := nodeInfoAt(d, def, tok.Offset())
			if info == "" {
				return nil
			}
			md = fmt.Sprintf("`%s`: %s", tok.Text(def.Expr), info)
		}
	}
	if md == "" {
		return nil
	}
	r := toRange(d.file, rg)
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}, Range: &r}
}

// releaseNote says which PCP releases accept the construct at an
// expression offset, when not all do, and whether the target does.
func releaseNote(def *grammar.Definition, off int, target pcpver.Version) string {
	tree, err := def.Tree()
	if err != nil {
		return ""
	}
	for _, c := range grammar.NewerConstructs(tree, pcpver.Oldest) {
		if c.At.Contains(off) {
			note := fmt.Sprintf("Releases: %s needs PCP %s or later", c.What, c.Since())
			if target.Has(c.Feature) {
				return note + fmt.Sprintf(" (the target, PCP %s, has it).", target)
			}
			return note + fmt.Sprintf(": the target, PCP %s, rejects it.", target)
		}
	}
	return ""
}

// tokenAt finds the token covering an expression index.
func tokenAt(def *grammar.Definition, idx int) (grammar.Token, bool) {
	if idx < 0 {
		return grammar.Token{}, false
	}
	for _, t := range def.Tokens() {
		if t.Kind != grammar.TokEOS && t.Offset() <= idx && idx < t.End() {
			return t, true
		}
	}
	// The cursor just after a word still hovers it.
	for _, t := range def.Tokens() {
		if t.Kind != grammar.TokEOS && t.End() == idx {
			return t, true
		}
	}
	return grammar.Token{}, false
}

// nodeInfoAt describes the inferred metadata of the node an operator or
// function at an expression offset belongs to.
func nodeInfoAt(d *snapshot, def *grammar.Definition, offset int) string {
	m, ok := d.metric(def.Name)
	if !ok {
		return ""
	}
	tree, err := def.Tree()
	if err != nil {
		return ""
	}
	var found grammar.Node
	grammar.Walk(tree, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Binary:
			if int(n.OpAt.Start) == offset {
				found = n
			}
		case *grammar.Call, *grammar.Rescale, *grammar.Matchinst, *grammar.Mkconst, *grammar.Unary:
			if int(n.Span().Start) == offset {
				found = n
			}
		}
		return found == nil
	})
	if found == nil {
		return ""
	}
	if ni := d.report.NodesOf(m)[found]; ni != nil {
		return checker.DescText(ni.Desc)
	}
	return ""
}

func derivedHover(d *snapshot, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (derived metric)\n\n", name)
	if m, ok := d.metric(name); ok {
		switch m.Status {
		case checker.Valid, checker.Masked:
			fmt.Fprintf(&b, "%s\n", checker.DescText(m.Desc))
		default:
			fmt.Fprintf(&b, "libpcp will not provide it: %s\n", m.Status)
		}
	}
	for _, a := range d.file.Attributes {
		if a.Metric == name && a.Applied {
			fmt.Fprintf(&b, "\n%s: %s\n", a.Attr, a.Value)
		}
	}
	return b.String()
}

// metricHover shows a real metric's metadata, help and instances.
func metricHover(ctx context.Context, src pmclient.Source, name string) string {
	if src == nil {
		return ""
	}
	found, err := pmclient.Resolve(ctx, src, []string{name})
	if err != nil || len(found) == 0 {
		return fmt.Sprintf("**%s**: not in %s", name, src.Describe())
	}
	desc := found[0].Desc
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** — PMID %s\n\n%s\n", name, desc.PMID, checker.DescText(desc))
	target := pmclient.HelpTarget{PMID: desc.PMID, InDom: pmapi.InDomNull}
	one, _ := src.HelpText(ctx, target, false)
	if one != "" {
		fmt.Fprintf(&b, "\n%s\n", one)
	}
	if long, err := src.HelpText(ctx, target, true); err == nil && long != "" && long != one {
		fmt.Fprintf(&b, "\n%s\n", long)
	}
	if desc.InDom != pmapi.InDomNull {
		if insts, err := src.Instances(ctx, desc.InDom); err == nil && len(insts) > 0 {
			var names []string
			for i, in := range insts {
				if i == 10 {
					names = append(names, fmt.Sprintf("… %d more", len(insts)-10))
					break
				}
				names = append(names, in.Name)
			}
			fmt.Fprintf(&b, "\nInstances (%s): %s\n", desc.InDom, strings.Join(names, ", "))
		}
	}
	if l, ok := src.(pmclient.Labeler); ok {
		if ml, err := pmclient.LookupMetricLabels(ctx, l, desc); err == nil {
			// The metric's own labels: the host's (context) ones say
			// nothing about this metric.
			var own []pmclient.Label
			for _, lb := range ml.Metric {
				if lb.Flags&uint8(pmclient.LabelContext) == 0 {
					own = append(own, lb)
				}
			}
			if len(own) > 0 {
				fmt.Fprintf(&b, "\nLabels: `%s`\n", pmclient.FormatLabels(own))
			}
		}
	}
	fmt.Fprintf(&b, "\n_metadata: %s_", src.Describe())
	return b.String()
}

// wordStart is where the dotted metric-name prefix ending at file offset
// off starts. A name has no newline: only off's line is read (a copy of
// the whole text would cost a keystroke's completion the document).
func wordStart(f *grammar.File, off int) int {
	_, lineStart := f.Text.LineOf(off)
	return lineStart + wordBefore(f.Text.Slice(lineStart, off), off-lineStart)
}

// wordBefore returns the dotted metric-name prefix ending at offset.
func wordBefore(src []byte, off int) int {
	start := off
	for start > 0 {
		c := src[start-1]
		if c == '.' || c == '_' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			start--
			continue
		}
		break
	}
	return start
}

const maxCompletions = 200

func (s *server) Completion(ctx context.Context, params *protocol.CompletionParams) (protocol.CompletionResult, error) {
	release(ctx) // may wait for metadata
	ctx, cancel := detach(ctx)
	defer cancel()
	if snap := s.current(ctx, params.TextDocument.URI); snap != nil {
		s.noteFocus(snap, params.Position.Line)
		res, err := completion(ctx, snap, s.session.nameIndex(), params.Position)
		return s.session.clientCaps().completion(res), err
	}
	return nil, nil
}

// completion offers what may be typed at a position: instances inside
// "[...]", spec keys and values inside mkconst() and the like, else
// metric names level by level (from the namespace index when loaded),
// functions and the document's derived metrics. The metric names and
// their metadata come from the snapshot's source, as does the analysis.
func completion(ctx context.Context, d *snapshot, names *nameIndex, pos protocol.Position) (protocol.CompletionResult, error) {
	src := d.source()
	off := d.file.Offset(int(pos.Line), int(pos.Character))
	ask, items := toolCompletion(ctx, d, off)
	if ask == askItems {
		return &protocol.CompletionList{Items: items}, nil
	}
	// Inside "[...]": the instances of the metric before the bracket
	// (on the cursor's line: a bracket does not span lines).
	_, lineStart := d.file.Text.LineOf(off)
	before := d.file.Text.Slice(lineStart, off)
	if open := bytes.LastIndexByte(before, '['); open >= 0 && bytes.IndexByte(before[open:], ']') < 0 && src != nil && ask != askMetric {
		return completeInstances(ctx, d, src, lineStart+open, off)
	}
	if def := d.file.DefinitionAt(off); def != nil {
		if items, ok := specCompletion(d, def, off); ok {
			return &protocol.CompletionList{Items: items}, nil
		}
	}
	start := lineStart + wordBefore(before, len(before))
	word := string(before[start-lineStart:])
	parent, partial := "", word
	if i := strings.LastIndexByte(word, '.'); i >= 0 {
		parent, partial = word[:i], word[i+1:]
	}
	rg := spanRange(d.file, start, off)
	if src != nil {
		for _, k := range childrenOf(ctx, names, src, parent) {
			if !strings.HasPrefix(k.Name, partial) {
				continue
			}
			full := k.Name
			if parent != "" {
				full = parent + "." + k.Name
			}
			kind := protocol.CompletionItemKindModule
			if k.Leaf {
				kind = protocol.CompletionItemKindVariable
			}
			items = append(items, protocol.CompletionItem{
				Label: k.Name, Kind: kind, FilterText: protocol.NewOptional(full),
				TextEdit: &protocol.TextEdit{Range: rg, NewText: full},
			})
		}
	}
	if parent == "" && ask != askMetric {
		for _, fn := range grammar.Functions() {
			if fn.Internal || !strings.HasPrefix(fn.Name, partial) {
				continue
			}
			items = append(items, protocol.CompletionItem{
				Label: fn.Name, Kind: protocol.CompletionItemKindFunction, Detail: protocol.NewOptional(fn.Signature),
				Documentation: protocol.String(fn.Doc), InsertTextFormat: protocol.InsertTextFormatSnippet,
				TextEdit: &protocol.TextEdit{Range: rg, NewText: fn.Name + "($1)"},
			})
		}
	}
	for _, name := range d.file.RegisteredWithPrefix(word) {
		if name != word {
			items = append(items, protocol.CompletionItem{Label: name, Kind: protocol.CompletionItemKindField,
				Detail: protocol.NewOptional("derived metric"), TextEdit: &protocol.TextEdit{Range: rg, NewText: name}})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	incomplete := len(items) > maxCompletions
	if incomplete {
		items = items[:maxCompletions]
	}
	describeLeaves(ctx, d.cfg, items)
	return &protocol.CompletionList{IsIncomplete: incomplete, Items: items}, nil
}

// describeLeaves adds type, semantics and units to leaf items, batched.
func describeLeaves(ctx context.Context, cfg *config, items []protocol.CompletionItem) {
	src := cfg.source
	if src == nil {
		return
	}
	var names []string
	itemOf := map[string]int{}
	for i, it := range items {
		if it.Kind == protocol.CompletionItemKindVariable {
			if te, ok := it.TextEdit.(*protocol.TextEdit); ok {
				names = append(names, te.NewText)
				itemOf[te.NewText] = i
			}
		}
	}
	found, err := pmclient.Resolve(ctx, src, names)
	if err != nil {
		return
	}
	for _, r := range found {
		i := itemOf[r.Name]
		items[i].Detail = protocol.NewOptional(checker.DescText(r.Desc))
		data, _ := json.Marshal(resolveData{Metric: r.Name, PMID: uint32(r.PMID), Config: cfg.gen})
		items[i].Data = protocol.LSPAny(data)
	}
}

// resolveData rides on a metric's completion item until it is resolved.
type resolveData struct {
	Metric string `json:"metric"`
	PMID   uint32 `json:"pmid"`
	// Config is the configuration the PMID is of: the help text is asked
	// of the same source, or not at all.
	Config int `json:"config"`
}

// CompletionResolve adds a metric's help text when the editor shows the
// item: one round trip for the item looked at, not for the whole list.
func (s *server) CompletionResolve(ctx context.Context, item *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	release(ctx)
	ctx, cancel := detach(ctx)
	defer cancel()
	item = resolveCompletion(ctx, s.session.config(), item)
	s.session.clientCaps().completionItem(item)
	return item, nil
}

// resolveCompletion adds a metric item's help text, from the source of
// cfg when the item was made under cfg (settings may have changed since).
func resolveCompletion(ctx context.Context, cfg *config, item *protocol.CompletionItem) *protocol.CompletionItem {
	var d resolveData
	if len(item.Data) == 0 || json.Unmarshal(item.Data, &d) != nil || d.Metric == "" || cfg.source == nil || d.Config != cfg.gen {
		return item
	}
	src := cfg.source
	target := pmclient.HelpTarget{PMID: pmapi.PMID(d.PMID), InDom: pmapi.InDomNull}
	one, _ := src.HelpText(ctx, target, false)
	long, _ := src.HelpText(ctx, target, true)
	doc := one
	if long != "" && long != one {
		doc = one + "\n\n" + long
	}
	if doc != "" {
		item.Documentation = &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}
	}
	return item
}

func completeInstances(ctx context.Context, d *snapshot, src pmclient.Source, open, off int) (protocol.CompletionResult, error) {
	nameStart := wordStart(d.file, open)
	name := strings.TrimSpace(string(d.file.Text.Slice(nameStart, open)))
	rg := spanRange(d.file, open+1, off)
	items := instanceItems(ctx, src, name, rg, strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace)
	if items == nil {
		return nil, nil
	}
	return &protocol.CompletionList{Items: items}, nil
}

func (s *server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return s.session.clientCaps().documentSymbols(snap.uri, documentSymbols(snap)), nil
	}
	return nil, nil
}

// documentSymbols lists the definitions, with their attributes inside;
// in a tool's file the sections, with their specs inside.
func documentSymbols(d *snapshot) protocol.DocumentSymbolSlice {
	if syms, ok := toolSymbols(d); ok {
		return syms
	}
	var syms protocol.DocumentSymbolSlice
	index := map[string]int{}
	for _, def := range d.file.Definitions.All() {
		detail := withoutCR(def.Expr)
		index[def.Name] = len(syms)
		syms = append(syms, protocol.DocumentSymbol{Name: def.Name, Detail: &detail, Kind: protocol.SymbolKindVariable,
			Range: toRange(d.file, def.Range), SelectionRange: toRange(d.file, def.NameRange)})
	}
	for _, a := range d.file.Attributes {
		i, ok := index[a.Metric]
		if !ok {
			continue
		}
		v := withoutCR(a.Value)
		syms[i].Children = append(syms[i].Children, protocol.DocumentSymbol{Name: a.Attr, Detail: &v,
			Kind: protocol.SymbolKindProperty, Range: toRange(d.file, a.Range), SelectionRange: toRange(d.file, a.Range)})
	}
	return syms
}

// withoutCR is text of the document as a client shows it: its line
// endings ("\r\n", "\n" or a lone "\r") as "\n", none at its end.
func withoutCR(s string) string {
	s = strings.ReplaceAll(strings.TrimSuffix(s, "\r"), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n") // the lone ones
}

// withEndingsOf is text (lines ended by "\n") with the line endings of
// old, line for line: a CRLF line stays CRLF. Lines past old's end with
// last, the ending of the line old ends on.
func withEndingsOf(old, text, last string) string {
	if !strings.Contains(text, "\n") {
		return text
	}
	oldLines := strings.Split(old, "\n") // all but the last ended
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i == len(lines)-1 {
			break
		}
		switch {
		case i >= len(oldLines)-1:
			b.WriteString(last)
		case strings.HasSuffix(oldLines[i], "\r"):
			b.WriteString("\r\n")
		default:
			b.WriteString("\n")
		}
	}
	return b.String()
}

// formatWidth is where pcp7 definitions break onto continuation lines.
const formatWidth = 100

// Formatting rewrites every definition that parses into the canonical
// form: "name = expression" with canonical spacing, and in pcp7 long ones
// over continuation lines (but on a CRLF line, which libpcp cannot
// continue). Comments and attribute lines are left alone.
func (s *server) Formatting(ctx context.Context, params *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	if snap := s.parsed(ctx, params.TextDocument.URI); snap != nil {
		return formatting(snap), nil
	}
	return nil, nil
}

// formatting is the edits that put every definition that parses in the
// canonical form of the snapshot's release.
func formatting(d *snapshot) []protocol.TextEdit {
	if len(d.res.Files) > 0 && d.res.Files[0].ToolFile() {
		return nil // a pmrep, pcp-dstat or pcp-htop file: its formulas are values of its own syntax
	}
	var edits []protocol.TextEdit
	for _, def := range d.file.Definitions.All() {
		if e, ok := formatEdit(d, def); ok {
			edits = append(edits, e)
		}
	}
	return edits
}

// formatEdit is the edit that puts one definition in the canonical form,
// false when it parses not or is in that form.
func formatEdit(d *snapshot, def *grammar.Definition) (protocol.TextEdit, bool) {
	tree, err := def.Tree()
	if err != nil || !def.Verdict.OK {
		return protocol.TextEdit{}, false
	}
	start, end := d.file.Offsets(def.Range)
	// The edit ends before the last line's "\r" (of a "\r\n", or a lone
	// one at the end of the text), which it keeps.
	got := string(d.file.Text.Slice(start, end))
	last := "\n" // the ending of the definition's last line
	width := formatWidth
	if strings.HasSuffix(got, "\r") {
		got, end, last = got[:len(got)-1], end-1, "\r\n"
		if !d.file.Text.HasByte('\n', end+1, end+2) {
			last = "\r"
		}
		// libpcp joins a line ending in a backslash with the next
		// only at "\n": before "\r\n" the backslash is an illegal
		// character. A definition on such a line stays on one.
		width = math.MaxInt
	}
	want := grammar.FormatDefinition(def.Name, tree, d.release(), width)
	if withoutCR(got) == want {
		return protocol.TextEdit{}, false
	}
	return protocol.TextEdit{Range: spanRange(d.file, start, end), NewText: withEndingsOf(got, want, last)}, true
}

// CodeAction offers the checker's fixes for diagnostics in the range.
func (s *server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	if snap := s.current(ctx, params.TextDocument.URI); snap != nil {
		if params.Range.End.Line == params.Range.Start.Line {
			// At the cursor, or a selection on its line; a whole
			// document's actions (on save) say nothing of where the
			// user is.
			s.noteFocus(snap, params.Range.Start.Line)
		}
		out := codeActions(snap, params.Range, s.opts.DocsURL)
		if act := explainAction(snap, snap.file.Offset(int(params.Range.Start.Line), int(params.Range.Start.Character))); act != nil {
			out = append(out, act)
		}
		return s.session.clientCaps().codeActions(out), nil
	}
	return nil, nil
}

// codeActions are the quick fixes of the findings in a range.
func codeActions(d *snapshot, rg protocol.Range, docsURL string) []protocol.CommandOrCodeAction {
	from := d.file.Offset(int(rg.Start.Line), int(rg.Start.Character))
	to := d.file.Offset(int(rg.End.Line), int(rg.End.Character))
	kind := protocol.CodeActionKindQuickFix
	var out []protocol.CommandOrCodeAction
	for g := range d.findings.All() {
		if start, end := d.file.Offsets(g.Range); end < from || start > to {
			continue
		}
		for _, fix := range g.Fixes {
			var edits []protocol.TextEdit
			for _, e := range fix.Edits {
				edits = append(edits, protocol.TextEdit{Range: toRange(d.file, e.Range), NewText: e.NewText})
			}
			out = append(out, &protocol.CodeAction{
				Title: fix.Title, Kind: &kind, Diagnostics: []protocol.Diagnostic{toProtocolDiagnostic(d.uri, d.file, *g, docsURL)},
				Edit: &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{d.uri: edits}},
			})
		}
	}
	return out
}
