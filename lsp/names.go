package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// nameIndex is the whole metric namespace of a source, loaded once in the
// background, so completion walks it in memory however large it is.
type nameIndex struct {
	src   pmclient.Source
	mu    sync.Mutex
	ready bool
	tree  *pmclient.NameTree
	count int
}

// lookup answers from the index once loaded; ok is false before that.
func (x *nameIndex) lookup(parent string) ([]pmclient.Child, bool) {
	if x == nil {
		return nil, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.ready {
		return nil, false
	}
	return x.tree.Children(parent), true
}

// loadNames reads the namespace of the current source, reporting
// $/progress when the client supports it.
func (s *server) loadNames(src pmclient.Source) {
	defer s.survive("loading metric names")
	lister, ok := src.(pmclient.NameLister)
	if !ok {
		return
	}
	idx := &nameIndex{src: src}
	s.session.mu.Lock()
	s.session.names = idx
	caps := s.session.caps
	s.session.mu.Unlock()

	ctx, cancel := context.WithTimeout(s.bg, 2*time.Minute)
	defer cancel()
	token := protocol.String(fmt.Sprintf("pcp-derive-lsp/names/%p", idx))
	progress := caps.workDoneProgress && s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: token}) == nil
	send := func(v any) {
		if progress {
			raw, _ := json.Marshal(v)
			s.client.Progress(ctx, &protocol.ProgressParams{Token: token, Value: protocol.LSPAny(raw)})
		}
	}
	send(map[string]any{"kind": "begin", "title": "Loading metric names", "message": src.Describe()})
	start := time.Now()
	names, err := lister.AllNames(ctx)
	if err != nil {
		send(map[string]any{"kind": "end", "message": "failed: " + err.Error()})
		s.log.Warn("loading metric names", zap.Error(err))
		return
	}
	send(map[string]any{"kind": "report", "message": fmt.Sprintf("indexing %d names", len(names))})
	tree := pmclient.NewNameTree(names)
	idx.mu.Lock()
	idx.tree, idx.count, idx.ready = tree, len(names), true
	idx.mu.Unlock()
	send(map[string]any{"kind": "end", "message": fmt.Sprintf("%d metric names", len(names))})
	s.log.Info("metric names loaded", zap.Int("names", len(names)), zap.Duration("took", time.Since(start)))
}

// childrenOf lists a PMNS node's children from the index when it is
// loaded and of src, else from src.
func childrenOf(ctx context.Context, idx *nameIndex, src pmclient.Source, parent string) []pmclient.Child {
	if idx != nil && idx.src == src {
		if kids, ok := idx.lookup(parent); ok {
			return kids
		}
	}
	kids, _ := src.Children(ctx, parent)
	return kids
}
