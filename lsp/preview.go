package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// The values preview: the pcp/preview request and the preview command
// evaluate one definition now, from the snapshot's source.

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
