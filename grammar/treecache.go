package grammar

import (
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TreeCache shares syntax trees between definitions of the same
// expression text, for a caller that builds the trees of a whole config
// once (check): a generated or hand-written config repeats its short
// expressions (a bare metric name, anon(PM_TYPE_U64), a number) many
// times, and the participle parse is the costliest part of a check. Only
// short expressions are remembered, and at most treeCacheEntries of them,
// so the cache is a bounded part of a big config's memory; a long
// expression rarely repeats. Safe for concurrent use.
//
// Sharing is what a Memo does for an editor (definitions of one text use
// one tree); the trees are read-only for everyone. It is for a caller
// that only reads the trees: one that keeps state by node for each
// metric (the evaluator's delta() history) needs a tree per definition.
//
// A tree it builds takes participle's parse from the definitions of the
// same shape before it (Shapes), long expressions too.
type TreeCache struct {
	mu     sync.Mutex
	m      map[treeCacheKey]*treeResult
	shapes *Shapes
}

type treeCacheKey struct {
	expr    string
	version pcpver.Version
	leaked  bool
}

const (
	// treeCacheMaxExpr is the longest expression text remembered.
	treeCacheMaxExpr = 64
	// treeCacheEntries bounds the trees remembered (a few MB).
	treeCacheEntries = 1 << 15
)

// NewTreeCache makes an empty cache.
func NewTreeCache() *TreeCache {
	return &TreeCache{m: map[treeCacheKey]*treeResult{}, shapes: NewShapes()}
}

// Tree returns the definition's syntax tree as Definition.Tree does,
// taking it from an earlier definition of the same text when the cache
// has one. The definition keeps the tree as if it had built it (DropTree
// forgets it). A nil cache just builds.
func (c *TreeCache) Tree(d *Definition) (Node, error) {
	if c == nil {
		return d.Tree()
	}
	if d.memo != nil || len(d.Expr) > treeCacheMaxExpr {
		return d.TreeWith(c.shapes)
	}
	if r := d.tree.p.Load(); r != nil {
		return r.tree, r.err
	}
	k := treeCacheKey{d.Expr, d.version(), d.leaked}
	c.mu.Lock()
	r := c.m[k]
	c.mu.Unlock()
	if r != nil {
		// A tree already there (built by a racing caller) stays: a
		// definition's nodes never change once seen.
		d.tree.p.CompareAndSwap(nil, r)
		r = d.tree.p.Load()
		return r.tree, r.err
	}
	tree, err := d.TreeWith(c.shapes)
	r = d.tree.p.Load()
	c.mu.Lock()
	if _, ok := c.m[k]; !ok && len(c.m) < treeCacheEntries {
		c.m[k] = r
	}
	c.mu.Unlock()
	return tree, err
}
