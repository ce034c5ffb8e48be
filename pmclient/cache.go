package pmclient

import (
	"context"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// ChangeReporter is implemented by sources that learn of changes on the
// far side (pmcd's state-change flags: agents added or restarted, names
// or labels changed). Changes returns and clears the flags seen.
type ChangeReporter interface {
	Changes() int32
}

// Generationer is implemented by sources whose answers change as a whole
// now and then (a Cache dropped after pmcd reported a change): a verdict
// reached in an earlier generation may be stale.
type Generationer interface {
	Generation() uint64
}

// Cache answers metadata requests from memory once a source has answered
// them, so an editor re-checking a file on every keystroke does not go
// back to pmcd. Values are never cached. The cache is dropped whenever the
// source reports a change (see ChangeReporter) and by Flush.
type Cache struct {
	Source
	mu       sync.Mutex
	pmids    map[string]pmapi.PMID
	unknown  map[string]error
	descs    map[pmapi.PMID]pmapi.Desc
	children map[string][]Child
	insts    map[pmapi.InDom][]Instance
	help     map[helpKey]string
	labels   map[labelKey][]LabelSet
	allNames map[struct{}][]string
	gen      uint64 // how many times it was dropped
}

type labelKey struct {
	typ   LabelType
	ident uint32
}

type helpKey struct {
	target HelpTarget
	long   bool
}

// NewCache puts a cache in front of a source.
func NewCache(src Source) *Cache {
	c := &Cache{Source: src}
	c.Flush()
	return c
}

// Flush forgets everything.
func (c *Cache) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pmids, c.unknown = map[string]pmapi.PMID{}, map[string]error{}
	c.descs, c.children = map[pmapi.PMID]pmapi.Desc{}, map[string][]Child{}
	c.insts, c.help = map[pmapi.InDom][]Instance{}, map[helpKey]string{}
	c.labels, c.allNames = map[labelKey][]LabelSet{}, map[struct{}][]string{}
	c.gen++
}

// Generation counts the times the cache was dropped (Flush, or a change
// the source reported, which it asks about first): an analysis that keeps
// verdicts across edits checks everything again when it moved.
func (c *Cache) Generation() uint64 {
	c.checkChanges()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// checkChanges flushes when the source reports a change.
func (c *Cache) checkChanges() {
	if cr, ok := c.Source.(ChangeReporter); ok && cr.Changes() != 0 {
		c.Flush()
	}
}

// LookupNames asks the source only for names it has not answered yet
// (names it does not know included).
func (c *Cache) LookupNames(ctx context.Context, names []string) ([]pmapi.PMID, []error, error) {
	known := func(n string) (pmapi.PMID, error, bool) {
		if p, ok := c.pmids[n]; ok {
			return p, nil, true
		}
		err, ok := c.unknown[n]
		return pmapi.PMIDNull, err, ok
	}
	remember := func(n string, p pmapi.PMID, err error) {
		if err == nil {
			c.pmids[n] = p
		} else {
			c.unknown[n] = err
		}
	}
	return cachedBatch(ctx, c, names, known, c.Source.LookupNames, remember)
}

// Descs asks the source only for descriptors it has not answered yet.
func (c *Cache) Descs(ctx context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	known := func(p pmapi.PMID) (pmapi.Desc, error, bool) {
		d, ok := c.descs[p]
		return d, nil, ok
	}
	remember := func(p pmapi.PMID, d pmapi.Desc, err error) {
		if err == nil {
			c.descs[p] = d
		}
	}
	return cachedBatch(ctx, c, pmids, known, c.Source.Descs, remember)
}

// cachedBatch answers a batch of keys: from memory those known answers
// (read under the lock, since Flush swaps the tables), and the rest with
// one request to the source, each of whose answers it then remembers.
func cachedBatch[K comparable, V any](ctx context.Context, c *Cache, keys []K,
	known func(K) (V, error, bool),
	ask func(context.Context, []K) ([]V, []error, error),
	remember func(K, V, error),
) ([]V, []error, error) {
	c.checkChanges()
	vals := make([]V, len(keys))
	errs := make([]error, len(keys))
	var missing []K
	var where []int
	c.mu.Lock()
	for i, k := range keys {
		var ok bool
		if vals[i], errs[i], ok = known(k); !ok {
			missing = append(missing, k)
			where = append(where, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return vals, errs, nil
	}
	got, gotErrs, err := ask(ctx, missing)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, i := range where {
		vals[i], errs[i] = got[k], gotErrs[k]
		remember(missing[k], got[k], gotErrs[k])
	}
	return vals, errs, nil
}

// cached answers key from table (read under the lock, since Flush swaps
// the tables) or asks fetch once and remembers a successful answer.
func cached[K comparable, V any](c *Cache, table func() map[K]V, key K, fetch func() (V, error)) (V, error) {
	c.checkChanges()
	c.mu.Lock()
	v, ok := table()[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := fetch()
	if err == nil {
		c.mu.Lock()
		table()[key] = v
		c.mu.Unlock()
	}
	return v, err
}

// Children is cached per node.
func (c *Cache) Children(ctx context.Context, name string) ([]Child, error) {
	return cached(c, func() map[string][]Child { return c.children }, name,
		func() ([]Child, error) { return c.Source.Children(ctx, name) })
}

// Instances is cached per instance domain until the next change.
func (c *Cache) Instances(ctx context.Context, indom pmapi.InDom) ([]Instance, error) {
	return cached(c, func() map[pmapi.InDom][]Instance { return c.insts }, indom,
		func() ([]Instance, error) { return c.Source.Instances(ctx, indom) })
}

// HelpText is cached per target.
func (c *Cache) HelpText(ctx context.Context, target HelpTarget, long bool) (string, error) {
	return cached(c, func() map[helpKey]string { return c.help }, helpKey{target, long},
		func() (string, error) { return c.Source.HelpText(ctx, target, long) })
}

// AllNames is cached too: the checker's "did you mean" and the server's
// completion index ask for the whole namespace.
func (c *Cache) AllNames(ctx context.Context) ([]string, error) {
	l, ok := c.Source.(NameLister)
	if !ok {
		return nil, ErrNoValues
	}
	return cached(c, func() map[struct{}][]string { return c.allNames }, struct{}{},
		func() ([]string, error) { return l.AllNames(ctx) })
}

// Unwrap returns the cached source.
func (c *Cache) Unwrap() Source { return c.Source }

// Labels answers from memory after the first request for a level; a source
// without labels answers ErrNoLabels.
func (c *Cache) Labels(ctx context.Context, typ LabelType, ident uint32) ([]LabelSet, error) {
	l, ok := c.Source.(Labeler)
	if !ok {
		return nil, ErrNoLabels
	}
	return cached(c, func() map[labelKey][]LabelSet { return c.labels }, labelKey{typ, ident},
		func() ([]LabelSet, error) { return l.Labels(ctx, typ, ident) })
}

// Recorded implements Recording for a cached recording, so that wrapping an
// archive in a Cache keeps its replay semantics visible.
func (c *Cache) Recorded() bool {
	r, ok := c.Source.(Recording)
	return ok && r.Recorded()
}
