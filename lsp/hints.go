package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// isLive reports a pmcd source: values that change, worth refreshing.
func isLive(src pmclient.Source) bool {
	if c, ok := src.(*pmclient.Cache); ok {
		src = c.Unwrap()
	}
	_, ok := src.(*pmcd.Client)
	return ok
}

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
	defs := a.file.Definitions
	first := defs.Search(func(d *grammar.Definition) bool { return uint32(max(d.Range.End.Line-1, 0)) >= rg.Start.Line })
	for i := first; i < defs.Len(); i++ {
		def := defs.At(i)
		if uint32(max(def.Range.Start.Line-1, 0)) > rg.End.Line {
			break
		}
		if line := uint32(max(def.Range.End.Line-1, 0)); line < rg.Start.Line || line > rg.End.Line {
			continue
		}
		m, ok := a.report.ByName.Lookup(def.Name)
		if !ok || m.Def != def || m.Status != checker.Valid {
			continue
		}
		pos := toRange(grammar.Range{Start: def.Range.End, End: def.Range.End}).End
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

// previewParams are the parameters of pcp/preview and of the preview
// command: a definition, by any position in it.
type previewParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position               `json:"position"`
}

// PreviewResult is the answer of pcp/preview.
type PreviewResult struct {
	Name      string         `json:"name"`
	Source    string         `json:"source"`
	Timestamp string         `json:"timestamp,omitempty"`
	Metadata  string         `json:"metadata,omitempty"`
	Values    []PreviewValue `json:"values"`
	Error     string         `json:"error,omitempty"`
	// Text is the whole answer in one line for clients that just show it.
	Text string `json:"text"`
}

// PreviewValue is one instance's value.
type PreviewValue struct {
	Instance string `json:"instance,omitempty"`
	Value    string `json:"value"`
}

// Request serves the custom pcp/preview request.
func (s *server) Request(ctx context.Context, method string, params any) (any, error) {
	switch method {
	case "pcp/preview":
		release(ctx) // fetches from pmcd, maybe twice a second apart
		var p previewParams
		if err := decodeAny(params, &p); err != nil {
			return nil, err
		}
		res, err := s.preview(ctx, p)
		if err != nil {
			return nil, err
		}
		return marshalAny(res)
	}
	return nil, fmt.Errorf("%w: %s", jsonrpc2.ErrMethodNotFound, method)
}

// ExecuteCommand runs the preview command and shows its answer.
func (s *server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch params.Command {
	case cmdApplyFix:
		return nil, s.applyFix(ctx, params.Arguments)
	case cmdExplain, cmdPreview:
		if len(params.Arguments) != 1 {
			return nil, invalidParamsf("arguments: %s takes one argument, {textDocument, position}; got %d", params.Command, len(params.Arguments))
		}
	default:
		return nil, fmt.Errorf("unknown command %q: the server runs %s, %s and %s", params.Command, cmdPreview, cmdExplain, cmdApplyFix)
	}
	if params.Command == cmdExplain {
		release(ctx) // fetches, maybe twice a second apart
		var p explainParams
		if err := decodeMember("arguments[0]", params.Arguments[0], &p); err != nil {
			return nil, err
		}
		res, err := s.explainCommand(ctx, p)
		if err != nil {
			return nil, err
		}
		return marshalAny(res)
	}
	release(ctx)
	var p previewParams
	if err := decodeMember("arguments[0]", params.Arguments[0], &p); err != nil {
		return nil, err
	}
	res, err := s.preview(ctx, p)
	if err != nil {
		return nil, err
	}
	s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: res.Text})
	return marshalAny(res)
}

// decodeAny decodes a custom request's params into v; a value of the
// wrong shape is InvalidParams naming the member.
func decodeAny(params any, v any) error {
	raw, ok := params.(protocol.LSPAny)
	if !ok {
		b, err := json.Marshal(params)
		if err != nil {
			return invalidParamsf("params: %v", err)
		}
		raw = b
	}
	return decodeMember("", raw, v)
}

func marshalAny(v any) (protocol.LSPAny, error) {
	b, err := json.Marshal(v)
	return protocol.LSPAny(b), err
}

// preview evaluates one definition now. Metrics that need history
// (delta, rate) are sampled twice, a second apart, as pmval would.
func (s *server) preview(ctx context.Context, p previewParams) (*PreviewResult, error) {
	ctx, cancel := detach(ctx)
	defer cancel()
	snap := s.current(ctx, p.TextDocument.URI)
	if snap == nil {
		return nil, fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	return previewAt(ctx, snap, p.Position)
}

// previewAt evaluates the definition at a position now, from the
// snapshot's source.
func previewAt(ctx context.Context, a *snapshot, pos protocol.Position) (*PreviewResult, error) {
	def := a.file.DefinitionAt(a.file.Offset(int(pos.Line), int(pos.Character)))
	if def == nil {
		return nil, errors.New("no derived metric definition here")
	}
	src := a.source()
	res := &PreviewResult{Name: def.Name, Values: []PreviewValue{}}
	if src == nil || a.report == nil {
		res.Error = "no metric source answers: values need a pmcd or an archive"
		res.Text = def.Name + ": " + res.Error
		return res, nil
	}
	res.Source = src.Describe()
	m, ok := a.report.ByName.Lookup(def.Name)
	if !ok || m.Status != checker.Valid {
		res.Error = "libpcp would not provide this metric (see its diagnostics)"
		res.Text = def.Name + ": " + res.Error
		return res, nil
	}
	res.Metadata = checker.DescText(m.Desc)
	ev, err := evaluator.New(ctx, src, &checker.Report{Metrics: pvec.Of([]*checker.Metric{m}), ByName: a.report.ByName, Operands: a.report.Operands, Version: a.report.Version})
	if err != nil {
		return nil, err
	}
	sample, err := ev.Sample(ctx)
	if tree, terr := def.Tree(); err == nil && terr == nil && grammar.NeedsHistory(tree) {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		sample, err = ev.Sample(ctx)
	}
	if err != nil {
		if errors.Is(err, pmclient.ErrNoValues) {
			res.Error = src.Describe() + " has metadata only, no values"
		} else {
			res.Error = err.Error()
		}
		res.Text = def.Name + ": " + res.Error
		return res, nil
	}
	res.Timestamp = sample.Timestamp.UTC().Format(time.RFC3339Nano)
	r := sample.Results[0]
	v := formatValues(ev, r)
	res.Values = v.values
	if r.Err != nil {
		res.Error = r.Err.Error()
	}
	res.Text = def.Name + " = " + v.long
	return res, nil
}

// shownValues is one metric's values rendered for hints and previews.
type shownValues struct {
	short, long string
	values      []PreviewValue
}

const maxShownInstances = 3

func formatValues(ev *evaluator.Evaluator, r evaluator.Result) shownValues {
	units := r.Desc.Units.String()
	withUnits := func(v string) string {
		if units == "" {
			return v
		}
		return v + " " + units
	}
	var out shownValues
	for _, v := range r.Values {
		pv := PreviewValue{Value: evaluator.Format(r.Desc.Type, v)}
		if r.Desc.InDom != pmapi.InDomNull {
			pv.Instance = ev.InstanceName(r.Desc.InDom, v.Inst)
		}
		out.values = append(out.values, pv)
	}
	switch {
	case r.Err != nil:
		out.short, out.long = "error", r.Err.Error()
	case len(out.values) == 0:
		out.short, out.long = "no values", "no values"
	case r.Desc.InDom == pmapi.InDomNull:
		out.short = withUnits(out.values[0].Value)
		out.long = out.short
	default:
		var parts []string
		for _, pv := range out.values {
			parts = append(parts, pv.Instance+": "+pv.Value)
		}
		out.long = withUnits(strings.Join(parts, ", "))
		if len(parts) > maxShownInstances {
			parts = append(parts[:maxShownInstances], fmt.Sprintf("… %d more", len(out.values)-maxShownInstances))
		}
		out.short = withUnits(strings.Join(parts, ", "))
	}
	return out
}

// previewStore keeps the latest live values per document version.
type previewStore struct {
	mu   sync.Mutex
	docs map[uri.URI]docValues
}

type docValues struct {
	version int32
	values  map[string]shownValues
}

func newPreviewStore() *previewStore { return &previewStore{docs: map[uri.URI]docValues{}} }

func (p *previewStore) get(u uri.URI, version int32) map[string]shownValues {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.docs[u]; ok && d.version == version {
		return d.values
	}
	return nil
}

func (p *previewStore) set(u uri.URI, version int32, values map[string]shownValues) {
	p.mu.Lock()
	p.docs[u] = docValues{version, values}
	p.mu.Unlock()
}

// restartPreview (re)starts the loop that samples the open documents'
// metrics on the preview interval, when preview is on and the source is a
// live pmcd (an archive's "next record" or a snapshot's metadata are not
// live values).
func (s *server) restartPreview() {
	se := s.session
	se.mu.Lock()
	if se.previewStop != nil {
		se.previewStop()
		se.previewStop = nil
	}
	cfg := se.cfg
	if !cfg.settings.previewOn() || !isLive(cfg.source) {
		se.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(s.bg)
	se.previewStop = cancel
	se.mu.Unlock()
	go s.previewLoop(ctx, cfg)
}

// previewLoop samples, on the preview interval, the metrics of the open
// documents analysed under cfg (a loop per configuration: new settings
// restart it).
func (s *server) previewLoop(ctx context.Context, cfg *config) {
	src, every := cfg.source, cfg.settings.previewInterval()
	defer s.survive("preview")
	evs := map[uri.URI]*docEvaluator{}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		changed := false
		down, caps := s.session.down(), s.session.clientCaps()
		for _, a := range s.docs.checkedSnapshots() {
			if down {
				break
			}
			if a.cfg != cfg {
				continue // analysed under other settings: its own loop's
			}
			de := evs[a.uri]
			if de == nil || de.version != a.version {
				ev, err := evaluator.New(ctx, src, a.report)
				if err != nil {
					s.log.Debug("preview", zap.Error(err))
					continue
				}
				de = &docEvaluator{version: a.version, ev: ev}
				de.rec = observe(ev, &de.keep)
				evs[a.uri] = de
			}
			de.keep = s.explains.recorded(a)
			sctx, cancel := context.WithTimeout(ctx, every)
			de.rec.Begin()
			sample, err := de.ev.Sample(sctx)
			cancel()
			if err != nil {
				s.log.Debug("preview sample", zap.Error(err))
				continue
			}
			de.rec.End(sample)
			if s.cycleDone(ctx, a, de.rec, de.keep, sample) {
				s.republish(a.uri)
			}
			values := map[string]shownValues{}
			for _, r := range sample.Results {
				values[r.Name] = formatValues(de.ev, r)
			}
			s.previews.set(a.uri, a.version, values)
			changed = true
		}
		if changed && caps.inlayRefresh {
			// Bounded: a client that never answers must not stall the
			// preview.
			rctx, cancel := context.WithTimeout(ctx, refreshTimeout)
			s.client.InlayHintRefresh(rctx)
			cancel()
		}
		if changed && caps.codeLensRefresh {
			s.refreshLenses(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// docEvaluator keeps delta()/rate() history for one document version.
type docEvaluator struct {
	version int32
	ev      *evaluator.Evaluator
	rec     *explain.Recorder        // every node's values, for hover and empty-now
	keep    map[*checker.Metric]bool // the definitions rec records this cycle
}

// applyFix asks the client to apply a quick fix's edit: the code action
// of a client that takes code actions only as Commands (cmdApplyFix).
func (s *server) applyFix(ctx context.Context, args []protocol.LSPAny) error {
	if len(args) != 1 {
		return invalidParamsf("arguments: %s takes one argument, a WorkspaceEdit; got %d", cmdApplyFix, len(args))
	}
	var edit protocol.WorkspaceEdit
	if err := protocol.Unmarshal(args[0], &edit); err != nil {
		return invalidParams(cmdApplyFix, args[0], err)
	}
	release(ctx) // waits for the client, which may be waiting on us
	ctx, cancel := detach(ctx)
	defer cancel()
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Edit: edit})
	if err != nil {
		return fmt.Errorf("workspace/applyEdit: %w", err)
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return fmt.Errorf("the editor did not apply the fix: %s", reason)
	}
	return nil
}
