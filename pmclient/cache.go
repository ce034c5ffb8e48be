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
	c.labels = map[labelKey][]LabelSet{}
}

// checkChanges flushes when the source reports a change.
func (c *Cache) checkChanges() {
	if cr, ok := c.Source.(ChangeReporter); ok && cr.Changes() != 0 {
		c.Flush()
	}
}

// LookupNames asks the source only for names it has not answered yet.
func (c *Cache) LookupNames(ctx context.Context, names []string) ([]pmapi.PMID, []error, error) {
	c.checkChanges()
	pmids := make([]pmapi.PMID, len(names))
	errs := make([]error, len(names))
	var missing []string
	var where []int
	c.mu.Lock()
	for i, n := range names {
		if p, ok := c.pmids[n]; ok {
			pmids[i] = p
		} else if err, ok := c.unknown[n]; ok {
			pmids[i], errs[i] = pmapi.PMIDNull, err
		} else {
			missing = append(missing, n)
			where = append(where, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return pmids, errs, nil
	}
	got, gotErrs, err := c.Source.LookupNames(ctx, missing)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, i := range where {
		pmids[i], errs[i] = got[k], gotErrs[k]
		if gotErrs[k] == nil {
			c.pmids[missing[k]] = got[k]
		} else {
			c.unknown[missing[k]] = gotErrs[k]
		}
	}
	return pmids, errs, nil
}

// Descs asks the source only for descriptors it has not answered yet.
func (c *Cache) Descs(ctx context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	c.checkChanges()
	descs := make([]pmapi.Desc, len(pmids))
	errs := make([]error, len(pmids))
	var missing []pmapi.PMID
	var where []int
	c.mu.Lock()
	for i, p := range pmids {
		if d, ok := c.descs[p]; ok {
			descs[i] = d
		} else {
			missing = append(missing, p)
			where = append(where, i)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return descs, errs, nil
	}
	got, gotErrs, err := c.Source.Descs(ctx, missing)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, i := range where {
		descs[i], errs[i] = got[k], gotErrs[k]
		if gotErrs[k] == nil {
			c.descs[missing[k]] = got[k]
		}
	}
	return descs, errs, nil
}

// Children is cached per node.
func (c *Cache) Children(ctx context.Context, name string) ([]Child, error) {
	c.checkChanges()
	c.mu.Lock()
	kids, ok := c.children[name]
	c.mu.Unlock()
	if ok {
		return kids, nil
	}
	kids, err := c.Source.Children(ctx, name)
	if err == nil {
		c.mu.Lock()
		c.children[name] = kids
		c.mu.Unlock()
	}
	return kids, err
}

// Instances is cached per instance domain until the next change.
func (c *Cache) Instances(ctx context.Context, indom pmapi.InDom) ([]Instance, error) {
	c.checkChanges()
	c.mu.Lock()
	in, ok := c.insts[indom]
	c.mu.Unlock()
	if ok {
		return in, nil
	}
	in, err := c.Source.Instances(ctx, indom)
	if err == nil {
		c.mu.Lock()
		c.insts[indom] = in
		c.mu.Unlock()
	}
	return in, err
}

// HelpText is cached per target.
func (c *Cache) HelpText(ctx context.Context, target HelpTarget, long bool) (string, error) {
	k := helpKey{target, long}
	c.mu.Lock()
	text, ok := c.help[k]
	c.mu.Unlock()
	if ok {
		return text, nil
	}
	text, err := c.Source.HelpText(ctx, target, long)
	if err == nil {
		c.mu.Lock()
		c.help[k] = text
		c.mu.Unlock()
	}
	return text, err
}

// AllNames passes through to sources that can list their namespace.
func (c *Cache) AllNames(ctx context.Context) ([]string, error) {
	if l, ok := c.Source.(NameLister); ok {
		return l.AllNames(ctx)
	}
	return nil, ErrNoValues
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
	c.checkChanges()
	key := labelKey{typ, ident}
	c.mu.Lock()
	sets, hit := c.labels[key]
	c.mu.Unlock()
	if hit {
		return sets, nil
	}
	sets, err := l.Labels(ctx, typ, ident)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.labels[key] = sets
	c.mu.Unlock()
	return sets, nil
}
