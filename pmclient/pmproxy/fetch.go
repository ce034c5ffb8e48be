package pmproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// fetchJSON is /pmapi/fetch's answer.
type fetchJSON struct {
	Timestamp json.Number `json:"timestamp"`
	Values    []struct {
		PMID      string `json:"pmid"`
		Name      string `json:"name"`
		Instances []struct {
			Instance json.Number `json:"instance"` // null for a singular metric
			Value    any         `json:"value"`
		} `json:"instances"`
	} `json:"values"`
}

func (c *Client) fetch(ctx context.Context, pmids []pmapi.PMID) (*fetchJSON, error) {
	list := make([]string, len(pmids))
	for i, p := range pmids {
		list[i] = p.String()
	}
	var ans fetchJSON
	if err := c.get(ctx, metricSlot, "fetch", url.Values{"pmids": {strings.Join(list, ",")}}, &ans); err != nil {
		return nil, err
	}
	return &ans, nil
}

// Fetch implements pmclient.Source with /pmapi/fetch. pmproxy sends no
// per-metric errors: a metric it cannot fetch has no values (and an
// unknown PMID is ErrUnknownPMID), and a singular metric with no value
// reads as pmproxy's previous value of it (zero at first).
func (c *Client) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	ms, errs, err := c.byID(ctx, pmids)
	if err != nil {
		return nil, err
	}
	var ask []pmapi.PMID
	for i, p := range pmids {
		if errs[i] == nil {
			ask = append(ask, p)
		}
	}
	res := &pmclient.Result{Metrics: make([]pmclient.MetricValues, len(pmids))}
	got := map[pmapi.PMID][]pmapi.Value{}
	seen := map[pmapi.PMID]bool{}
	if len(ask) > 0 {
		ans, err := c.fetch(ctx, ask)
		if err != nil {
			return nil, err
		}
		if res.Timestamp, err = parseTimestamp(ans.Timestamp); err != nil {
			return nil, fmt.Errorf("%s: /pmapi/fetch: %w", c.Describe(), err)
		}
		types := map[pmapi.PMID]pmapi.Type{}
		for i, m := range ms {
			if errs[i] == nil {
				types[pmids[i]] = m.desc.Type
			}
		}
		for _, v := range ans.Values {
			id, err := pmapi.ParsePMID(v.PMID)
			if err != nil {
				return nil, fmt.Errorf("%s: /pmapi/fetch: %w", c.Describe(), err)
			}
			if seen[id] {
				continue // the same values again, under another name
			}
			seen[id] = true
			var vals []pmapi.Value
			for _, inst := range v.Instances {
				if inst.Value == nil {
					continue // events, or no value
				}
				val, err := valueOf(types[id], inst.Instance, inst.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: /pmapi/fetch: %s: %w", c.Describe(), v.Name, err)
				}
				vals = append(vals, val)
			}
			got[id] = vals
		}
	}
	for i, p := range pmids {
		res.Metrics[i] = pmclient.MetricValues{PMID: p, Err: errs[i], Values: got[p]}
		if errs[i] == nil && !seen[p] {
			res.Metrics[i].Err = pmclient.ErrUnknownPMID
		}
	}
	return res, nil
}
