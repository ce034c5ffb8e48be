package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
)

// cmdExplain is "Explain this metric": the tree of a definition with every
// node's values, as markdown (and the JSON form of docs/explain.md).
const cmdExplain = "pcp-derive.explain"

// emptyNowCode is the information diagnostic on a valid definition that
// has no values in the preview's latest sample.
const emptyNowCode = codes.EmptyNow

// hoverInstances is how many values a hover shows per node.
const hoverInstances = 3

// ExplainResult is the answer of the explain command.
type ExplainResult struct {
	Name string `json:"name"`
	// Markdown is the tree for a client to show beside the editor.
	Markdown string `json:"markdown"`
	// Explanation is the JSON form (docs/explain.md), absent on error.
	Explanation json.RawMessage `json:"explanation,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// explainStore keeps, per open document, what the preview's latest cycle
// observed of every node (explain.Recorder) and the findings it gave:
// hover reads node values from it, diagnostics the empty definitions.
// Nothing here fetches.
type explainStore struct {
	mu   sync.Mutex
	docs map[uri.URI]*docExplain
	// visible is the line range each document's client last asked inlay
	// hints for: what is on screen.
	visible map[uri.URI]protocol.Range
}

// maxRecordedDefinitions is the size of document whose every definition
// the preview records when the client never said what is on screen.
const maxRecordedDefinitions = 2000

type docExplain struct {
	version int32
	report  *checker.Report
	rec     *explain.Recorder
	src     pmclient.Source
	empty   []grammar.Diagnostic // emptyNowCode findings of the latest cycle
}

func newExplainStore() *explainStore {
	return &explainStore{docs: map[uri.URI]*docExplain{}, visible: map[uri.URI]protocol.Range{}}
}

// setVisible records the range a client asked inlay hints for.
func (e *explainStore) setVisible(u uri.URI, rg protocol.Range) {
	e.mu.Lock()
	e.visible[u] = rg
	e.mu.Unlock()
}

// recorded picks the definitions whose every node the preview records:
// those on screen (the range of the latest inlay hint request), or every
// one of a document of at most maxRecordedDefinitions when the client
// never asked. A 100,000-line config costs the nodes on screen, not all.
func (e *explainStore) recorded(a *snapshot) map[*checker.Metric]bool {
	e.mu.Lock()
	rg, seen := e.visible[a.uri]
	e.mu.Unlock()
	if !seen && a.file.Definitions.Len() > maxRecordedDefinitions {
		return nil
	}
	out := map[*checker.Metric]bool{}
	for _, def := range a.file.Definitions.All() {
		line, end := toPosition(a.file, def.Range.Start).Line, toPosition(a.file, def.Range.End).Line
		if seen && (end < rg.Start.Line || line > rg.End.Line) {
			continue
		}
		if m, ok := a.report.ByName.Lookup(def.Name); ok && m.Def == def {
			out[m] = true
		}
	}
	return out
}

// get returns the latest cycle's record of a document version.
func (e *explainStore) get(u uri.URI, version int32, rep *checker.Report) *docExplain {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d := e.docs[u]; d != nil && d.version == version && d.report == rep {
		return d
	}
	return nil
}

// emptyFindings are the emptyNowCode findings of a document version.
func (e *explainStore) emptyFindings(u uri.URI, version int32) []grammar.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d := e.docs[u]; d != nil && d.version == version {
		return d.empty
	}
	return nil
}

// observe makes a preview evaluator record every node's values of the
// definitions *keep holds (the preview sets it before each sample).
func observe(ev *evaluator.Evaluator, keep *map[*checker.Metric]bool) *explain.Recorder {
	rec := explain.NewRecorder(func(m *checker.Metric) bool { return (*keep)[m] })
	ev.Observe(rec.Observer())
	return rec
}

// cycleDone stores a preview cycle's record of a document and finds its
// recorded valid definitions without values; it reports whether those
// findings changed (the diagnostics are then published again). Only the
// empty definitions are explained.
func (s *server) cycleDone(ctx context.Context, a *snapshot, rec *explain.Recorder, recorded map[*checker.Metric]bool, sample *evaluator.Sample) bool {
	src := a.source()
	var empty []grammar.Diagnostic
	for _, r := range sample.Results {
		if len(r.Values) > 0 && r.Err == nil {
			continue
		}
		m, ok := a.report.ByName.Lookup(r.Name)
		if !ok || m.Status != checker.Valid || m.Broken || !recorded[m] {
			continue
		}
		def := m.Def
		if !fileHas(a.file, def) {
			continue
		}
		x, err := rec.Explain(ctx, src, explain.Target{Report: a.report, Metric: m})
		if err != nil || len(x.Origins) == 0 {
			continue
		}
		o := x.Origins[0]
		if historyPending(o, x) {
			continue // the next cycle has the previous sample
		}
		what := "no values now"
		if x.Root.Err() != nil {
			what = "fails now"
		}
		sp := o.Span()
		rg := a.file.ExprRange(def, int(sp.Start), int(sp.End))
		empty = append(empty, grammar.Diagnostic{Range: rg, Severity: grammar.SeverityInfo, Code: emptyNowCode,
			Message: fmt.Sprintf("%s %s: %s", def.Name, what, o.EmptyBecause())})
	}
	s.explains.mu.Lock()
	defer s.explains.mu.Unlock()
	old := s.explains.docs[a.uri]
	s.explains.docs[a.uri] = &docExplain{version: a.version, report: a.report, rec: rec, src: src, empty: empty}
	return old == nil || old.version != a.version || !sameFindings(old.empty, empty)
}

// historyPending reports a delta() or rate() that is empty only because
// the preview has taken one sample so far.
func historyPending(o *explain.Node, x *explain.Explanation) bool {
	c, ok := o.Syntax().(*grammar.Call)
	if !ok {
		return false
	}
	f, _ := grammar.LookupFunction(c.Func)
	return f.History && x.Samples < 2
}

func fileHas(f *grammar.File, def *grammar.Definition) bool {
	for _, d := range f.Definitions.All() {
		if d == def {
			return true
		}
	}
	return false
}

func sameFindings(a, b []grammar.Diagnostic) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Range != b[i].Range || a[i].Message != b[i].Message {
			return false
		}
	}
	return true
}

// republish sends a document's diagnostics again with the latest
// findings of the preview, when its checked snapshot is of its latest
// text.
func (s *server) republish(u uri.URI) {
	s.docs.mu.Lock()
	d := s.docs.m[u]
	var snap *snapshot
	gen := 0
	if d != nil && d.checked != nil && d.checked.version == d.version && d.checked.text == d.text {
		snap, gen = d.checked, d.gen
	}
	s.docs.mu.Unlock()
	if snap != nil {
		s.publish(u, gen, snap)
	}
}

// emptyNowDiagnostics are the preview's empty-now findings of a snapshot.
func (s *server) emptyNowDiagnostics(snap *snapshot) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, g := range s.explains.emptyFindings(snap.uri, snap.version) {
		out = append(out, toProtocolDiagnostic(snap.uri, snap.file, g, s.opts.DocsURL))
	}
	return out
}

// hoverNow is the hover's section on the current values of the node under
// a position ("" when the preview has none).
func (s *server) hoverNow(ctx context.Context, d *snapshot, pos protocol.Position) (string, grammar.Range) {
	off := d.file.Offset(int(pos.Line), int(pos.Character))
	def := d.file.DefinitionAt(off)
	if def == nil || d.file.Covers(def.NameRange, off) {
		return "", grammar.Range{}
	}
	tok, ok := tokenAt(def, d.file.ExprIndex(def, off))
	if !ok {
		return "", grammar.Range{}
	}
	rg := d.file.ExprRange(def, tok.Offset(), tok.End())
	return s.hoverValues(ctx, d, def, tok), rg
}

// withNow adds the current values of the node under the cursor to a
// hover (or makes one of them).
func (s *server) withNow(ctx context.Context, snap *snapshot, pos protocol.Position, h *protocol.Hover) *protocol.Hover {
	now, rg := s.hoverNow(ctx, snap, pos)
	switch {
	case now == "":
		return h
	case h == nil:
		r := toRange(snap.file, rg)
		return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: now}, Range: &r}
	}
	if mc, ok := h.Contents.(*protocol.MarkupContent); ok {
		mc.Value += "\n\n" + now
	}
	return h
}

// hoverValues is the hover's section on the current values of the node
// at an expression offset: from the preview's latest cycle, never a fetch
// of its own.
func (s *server) hoverValues(ctx context.Context, d *snapshot, def *grammar.Definition, tok grammar.Token) string {
	if d.report == nil {
		return ""
	}
	de := s.explains.get(d.uri, d.version, d.report)
	m, ok := d.report.ByName.Lookup(def.Name)
	if de == nil || !ok || m.Def != def || m.Status != checker.Valid {
		return ""
	}
	x, err := de.rec.Explain(ctx, de.src, explain.Target{Report: de.report, Metric: m})
	if err != nil {
		return ""
	}
	n := nodeAtToken(x.Root, tok)
	if n == nil {
		return ""
	}
	when := x.Timestamp.Format("15:04:05")
	var b strings.Builder
	switch {
	case !n.Evaluated():
		fmt.Fprintf(&b, "Now (%s): %s", when, n.NotEvaluated())
	case n.EmptyBecause() != "":
		fmt.Fprintf(&b, "Now (%s): **no values** — %s", when, n.EmptyBecause())
	case n.EmptyAt() != nil:
		fmt.Fprintf(&b, "Now (%s): no values, because `%s` has none: %s", when, n.EmptyAt().Text(), n.EmptyAt().EmptyBecause())
	default:
		fmt.Fprintf(&b, "Now (%s): %s", when, valuesLine(n))
	}
	return b.String()
}

// valuesLine shows the first few values of a node.
func valuesLine(n *explain.Node) string {
	vals := n.Values()
	if len(vals) == 1 && vals[0].Singular() {
		return "`" + vals[0].Text + "`"
	}
	var parts []string
	for i, v := range vals {
		if i == hoverInstances {
			parts = append(parts, fmt.Sprintf("… %d more", len(vals)-hoverInstances))
			break
		}
		parts = append(parts, fmt.Sprintf("%s `%s`", v.Instance, v.Text))
	}
	return strings.Join(parts, ", ")
}

// nodeAtToken finds the node a token belongs to: an operator's symbol, a
// function's name, a metric name, a number, a ternary's ? or :.
func nodeAtToken(root *explain.Node, tok grammar.Token) *explain.Node {
	var found *explain.Node
	stack := []*explain.Node{root}
	for len(stack) > 0 && found == nil {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch syn := n.Syntax().(type) {
		case *grammar.Binary:
			if int(syn.OpAt.Start) == tok.Offset() {
				found = n
			}
		case *grammar.Ternary:
			between := func(a, b grammar.Node) bool {
				return int(a.Span().End) <= tok.Offset() && tok.End() <= int(b.Span().Start)
			}
			if (tok.Kind == grammar.TokQuest && between(syn.Cond, syn.Then)) || (tok.Kind == grammar.TokColon && between(syn.Then, syn.Else)) {
				found = n
			}
		default:
			if int(n.Span().Start) == tok.Offset() {
				found = n
			}
		}
		for i, kids := len(n.Children())-1, n.Children(); i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return found
}

// explainParams are the explain command's argument: a definition, by any
// position in it (the same as pcp/preview's).
type explainParams = previewParams

// explainCommand explains a definition now, sampling as the explain
// command line does (twice, a second apart, for delta and rate).
func (s *server) explainCommand(ctx context.Context, p explainParams) (*ExplainResult, error) {
	ctx, cancel := detach(ctx)
	defer cancel()
	a := s.current(ctx, p.TextDocument.URI)
	if a == nil {
		return nil, fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	def := a.file.DefinitionAt(a.file.Offset(int(p.Position.Line), int(p.Position.Character)))
	if def == nil {
		return nil, errors.New("no derived metric definition here")
	}
	res := &ExplainResult{Name: def.Name}
	fail := func(msg string) (*ExplainResult, error) {
		res.Error = msg
		res.Markdown = fmt.Sprintf("**Explain `%s`**\n\n%s\n", def.Name, msg)
		return res, nil
	}
	m, ok := a.metric(def.Name)
	switch {
	case a.report == nil:
		return fail("no metric source answers: values need a pmcd or an archive")
	case !ok || m.Def != def:
		return fail("libpcp does not register this definition (see its diagnostics)")
	}
	src, done, err := s.valueSource(ctx, a)
	if err != nil {
		return fail(err.Error())
	}
	defer done()
	x, err := explain.Explain(ctx, src, explain.Target{Report: a.report, Metric: m}, explain.Options{SampleTimeout: 10 * time.Second})
	if err != nil {
		return fail(err.Error())
	}
	res.Markdown = explain.Markdown(x, explain.TextOptions{})
	var js bytes.Buffer
	if err := explain.WriteJSON(&js, x); err == nil {
		res.Explanation = js.Bytes()
	}
	return res, nil
}

// valueSource is where the explain command fetches from: the snapshot's
// live pmcd itself (its own instance-name lookups, as libpcp's), or a
// fresh copy of its archive, so the command replays it from the start
// without moving anyone else's place in it.
func (s *server) valueSource(ctx context.Context, a *snapshot) (pmclient.Source, func(), error) {
	src, st := a.source(), a.settings()
	if src == nil {
		return nil, nil, errors.New("no metric source answers: values need a pmcd or an archive")
	}
	if c, ok := src.(*pmclient.Cache); ok {
		src = c.Unwrap()
	}
	if isLive(src) {
		return src, func() {}, nil
	}
	archive := st.Source.Archive
	if archive == "" && s.opts.Getenv != nil {
		archive = s.opts.Getenv("PCP_ARCHIVE")
	}
	if r, ok := src.(pmclient.Recording); ok && r.Recorded() && archive != "" {
		fresh, err := choose.Open(ctx, choose.Spec{Archive: archive}, choose.Options{Getenv: s.opts.Getenv})
		if err != nil {
			return nil, nil, err
		}
		closer := func() {
			if c, ok := fresh.(interface{ Close() error }); ok {
				c.Close()
			}
		}
		return fresh, closer, nil
	}
	return nil, nil, fmt.Errorf("%s has metadata only, no values: explain needs a pmcd or an archive", src.Describe())
}

// explainAction offers "Explain this metric" on a registered definition.
func explainAction(a *snapshot, from int) protocol.CommandOrCodeAction {
	def := a.file.DefinitionAt(from)
	if def == nil || a.report == nil {
		return nil
	}
	if m, ok := a.report.ByName.Lookup(def.Name); !ok || m.Def != def {
		return nil
	}
	arg, _ := json.Marshal(explainParams{TextDocument: protocol.TextDocumentIdentifier{URI: a.uri}, Position: toPosition(a.file, def.NameRange.Start)})
	cmd := protocol.Command{Title: "Explain this metric", Command: cmdExplain, Arguments: []protocol.LSPAny{arg}}
	return &protocol.CodeAction{Title: cmd.Title, Command: cmd}
}
