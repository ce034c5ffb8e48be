package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// nameIndex is the whole metric namespace of a source, loaded once in the
// background, so completion walks it in memory however large it is.
type nameIndex struct {
	src      pmclient.Source
	mu       sync.Mutex
	ready    bool
	children map[string][]pmclient.Child // parent ("" is the root) -> sorted children
	count    int
}

// children answers from the index once loaded; ok is false before that.
func (x *nameIndex) lookup(parent string) ([]pmclient.Child, bool) {
	if x == nil {
		return nil, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.ready {
		return nil, false
	}
	return x.children[parent], true
}

// buildChildren turns full names into per-node child lists.
func buildChildren(names []string) map[string][]pmclient.Child {
	type kid struct{ leaf bool }
	nodes := map[string]map[string]kid{}
	for _, n := range names {
		parent := ""
		rest := n
		for {
			i := strings.IndexByte(rest, '.')
			comp := rest
			if i >= 0 {
				comp = rest[:i]
			}
			kids := nodes[parent]
			if kids == nil {
				kids = map[string]kid{}
				nodes[parent] = kids
			}
			if i < 0 {
				kids[comp] = kid{leaf: true}
				break
			}
			if _, seen := kids[comp]; !seen {
				kids[comp] = kid{}
			}
			if parent == "" {
				parent = comp
			} else {
				parent += "." + comp
			}
			rest = rest[i+1:]
		}
	}
	out := make(map[string][]pmclient.Child, len(nodes))
	for p, kids := range nodes {
		list := make([]pmclient.Child, 0, len(kids))
		for name, k := range kids {
			list = append(list, pmclient.Child{Name: name, Leaf: k.leaf})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		out[p] = list
	}
	return out
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
	children := buildChildren(names)
	idx.mu.Lock()
	idx.children, idx.count, idx.ready = children, len(names), true
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
