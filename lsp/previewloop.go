package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// The preview loop: the open documents' metrics sampled on the
// preview interval from a live pmcd, kept per document version for the
// inlay hints, hovers and empty-now findings.

// isLive reports a pmcd source: values that change, worth refreshing.
func isLive(src pmclient.Source) bool {
	if c, ok := src.(*pmclient.Cache); ok {
		src = c.Unwrap()
	}
	_, ok := src.(*pmcd.Client)
	return ok
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
