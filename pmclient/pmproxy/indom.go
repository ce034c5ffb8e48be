package pmproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// indomOf asks /pmapi/indom about an instance domain, once.
func (c *Client) indomOf(ctx context.Context, id pmapi.InDom) (*indom, error) {
	c.mu.Lock()
	in, ok := c.indoms[id]
	c.mu.Unlock()
	if ok {
		return in, nil
	}
	var ans struct {
		Labels    json.RawMessage `json:"labels"`
		OneLine   *string         `json:"text-oneline"`
		Help      *string         `json:"text-help"`
		Instances []struct {
			Instance json.Number `json:"instance"`
			Name     string      `json:"name"`
		} `json:"instances"`
	}
	if err := c.get(ctx, indomSlot, "indom", url.Values{"indom": {id.String()}}, &ans); err != nil {
		return nil, err
	}
	labels, err := parseLabels(ans.Labels)
	if err != nil {
		return nil, fmt.Errorf("%s: indom %s labels: %w", c.Describe(), id, err)
	}
	in = &indom{labels: labels}
	if ans.OneLine != nil {
		in.oneline, in.hasText = *ans.OneLine, true
	}
	if ans.Help != nil {
		in.help, in.hasText = *ans.Help, true
	}
	for _, inst := range ans.Instances {
		n, err := strconv.ParseInt(inst.Instance.String(), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: indom %s: instance %q is not a number", c.Describe(), id, inst.Instance)
		}
		in.insts = append(in.insts, pmclient.Instance{ID: int32(n), Name: inst.Name})
	}
	// pmproxy lists instances in its hash table's order; pmcd lists
	// them as the PMDA does, which for most PMDAs is by number.
	sort.SliceStable(in.insts, func(i, j int) bool { return in.insts[i].ID < in.insts[j].ID })
	c.mu.Lock()
	c.indoms[id] = in
	c.mu.Unlock()
	return in, nil
}

// Instances implements pmclient.Source with /pmapi/indom. pmproxy
// answers an unknown instance domain with no instances, not an error.
func (c *Client) Instances(ctx context.Context, id pmapi.InDom) ([]pmclient.Instance, error) {
	in, err := c.indomOf(ctx, id)
	if err != nil {
		return nil, err
	}
	return in.insts, nil
}

// Labels implements pmclient.Labeler as far as pmproxy tells labels:
// the context's set; at the indom level the indom's labels merged with
// the context's; at the item level each metric's labels merged from
// every level (none at the domain and cluster levels), so that
// pmclient.LookupMetricLabels merges to the metric's labels even where
// pmproxy's metric answer lacks the indom's (see metricSlot). Instances'
// own labels are not available (see below), and pmproxy leaves optional
// labels out.
func (c *Client) Labels(ctx context.Context, typ pmclient.LabelType, ident uint32) ([]pmclient.LabelSet, error) {
	switch typ {
	case pmclient.LabelContext:
		if _, err := c.context(ctx, metricSlot); err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		return []pmclient.LabelSet{{Inst: pmclient.InNull, Labels: c.ctxLabs}}, nil
	case pmclient.LabelInDom:
		in, err := c.indomOf(ctx, pmapi.InDom(ident))
		if err != nil {
			return nil, err
		}
		return []pmclient.LabelSet{{Inst: pmclient.InNull, Labels: in.labels}}, nil
	case pmclient.LabelDomain, pmclient.LabelCluster:
		return nil, nil
	case pmclient.LabelItem:
		ms, errs, err := c.byID(ctx, []pmapi.PMID{pmapi.PMID(ident)})
		if err != nil {
			return nil, err
		}
		if errs[0] != nil {
			return nil, errs[0]
		}
		return []pmclient.LabelSet{{Inst: pmclient.InNull, Labels: ms[0].labels}}, nil
	case pmclient.LabelInstances:
		// pmproxy 6.0 computes an instance's labels when it first meets
		// the instance, before it has read the instance's (and the
		// indom's) label sets, and never again: what /pmapi/indom says
		// of instance labels is wrong, so none are claimed.
		return nil, nil
	}
	return nil, fmt.Errorf("label type %d: %w", typ, pmclient.ErrType)
}
