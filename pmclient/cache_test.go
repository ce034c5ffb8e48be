package pmclient

import (
	"context"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// counting is a source that counts requests and can report a change.
type counting struct {
	Source
	lookups, descs, names, helps, labels int
	changed                              int32
}

func (c *counting) LookupNames(_ context.Context, names []string) ([]pmapi.PMID, []error, error) {
	c.lookups++
	ids := make([]pmapi.PMID, len(names))
	errs := make([]error, len(names))
	for i, n := range names {
		if n == "nope" {
			ids[i], errs[i] = pmapi.PMIDNull, ErrUnknownName
		} else {
			ids[i] = pmapi.NewPMID(1, 0, uint32(len(n)))
		}
	}
	return ids, errs, nil
}

func (c *counting) Descs(_ context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	c.descs++
	out := make([]pmapi.Desc, len(pmids))
	for i, p := range pmids {
		out[i] = pmapi.Desc{PMID: p, Type: pmapi.TypeU32}
	}
	return out, make([]error, len(pmids)), nil
}

func (c *counting) Changes() int32 {
	ch := c.changed
	c.changed = 0
	return ch
}

func TestCache(t *testing.T) {
	src := &counting{}
	c := NewCache(src)
	ctx := context.Background()
	ids, errs, _ := c.LookupNames(ctx, []string{"a.b", "nope"})
	c.LookupNames(ctx, []string{"a.b", "nope"})
	if src.lookups != 1 || errs[1] != ErrUnknownName {
		t.Errorf("lookups %d, errs %v", src.lookups, errs)
	}
	c.LookupNames(ctx, []string{"a.b", "c.d.e"}) // only c.d.e is new
	if src.lookups != 2 {
		t.Errorf("lookups %d", src.lookups)
	}
	c.Descs(ctx, ids[:1])
	c.Descs(ctx, ids[:1])
	if src.descs != 1 {
		t.Errorf("descs %d", src.descs)
	}
	src.changed = 16 // names changed on pmcd
	c.LookupNames(ctx, []string{"a.b"})
	if src.lookups != 3 {
		t.Errorf("cache not flushed on a change: lookups %d", src.lookups)
	}
}

func (c *counting) AllNames(context.Context) ([]string, error) {
	c.names++
	return []string{"a.b", "c.d.e"}, nil
}

func (c *counting) HelpText(_ context.Context, target HelpTarget, long bool) (string, error) {
	c.helps++
	return "help", nil
}

func (c *counting) Labels(context.Context, LabelType, uint32) ([]LabelSet, error) {
	c.labels++
	return []LabelSet{{Inst: -1, Labels: []Label{{Name: "agent", Value: `"x"`}}}}, nil
}

// The namespace, help text and labels are answered once per change too.
func TestCacheOtherRequests(t *testing.T) {
	src := &counting{}
	c := NewCache(src)
	ctx := context.Background()
	for range 3 {
		c.AllNames(ctx)
		c.HelpText(ctx, HelpTarget{PMID: 1, InDom: pmapi.InDomNull}, true)
		c.Labels(ctx, LabelItem, 1)
	}
	if src.names != 1 || src.helps != 1 || src.labels != 1 {
		t.Errorf("requests: names %d, help %d, labels %d; want 1 each", src.names, src.helps, src.labels)
	}
	src.changed = 8 // labels changed on pmcd
	c.AllNames(ctx)
	c.HelpText(ctx, HelpTarget{PMID: 1, InDom: pmapi.InDomNull}, true)
	c.Labels(ctx, LabelItem, 1)
	if src.names != 2 || src.helps != 2 || src.labels != 2 {
		t.Errorf("after a change: names %d, help %d, labels %d; want 2 each", src.names, src.helps, src.labels)
	}
}
