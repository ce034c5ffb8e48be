package pmproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// metricJSON is one element of /pmapi/metric's "metrics".
type metricJSON struct {
	Name    string          `json:"name"`
	PMID    string          `json:"pmid"`
	InDom   string          `json:"indom"`
	Type    string          `json:"type"`
	Sem     string          `json:"sem"`
	Units   string          `json:"units"`
	Labels  json.RawMessage `json:"labels"`
	OneLine *string         `json:"text-oneline"`
	Help    *string         `json:"text-help"`
	Message string          `json:"message"`
	Success *bool           `json:"success"`
}

// failed reports an element standing for a name pmproxy could not look
// up: "failed to lookup metric name" when the name is in the namespace
// but has no descriptor, else pmErrStr of the traversal's error.
func (m *metricJSON) failed() bool { return m.Success != nil && !*m.Success }

// entry converts a successful element.
func (m *metricJSON) entry() (*metric, error) {
	d, err := descFrom(m)
	if err != nil {
		return nil, fmt.Errorf("metric %s: %w", m.Name, err)
	}
	labels, err := parseLabels(m.Labels)
	if err != nil {
		return nil, fmt.Errorf("metric %s: labels: %w", m.Name, err)
	}
	e := &metric{desc: d, labels: labels}
	if m.OneLine != nil {
		e.oneline, e.hasText = *m.OneLine, true
	}
	if m.Help != nil {
		e.help, e.hasText = *m.Help, true
	}
	return e, nil
}

// metrics looks names up with /pmapi/metric, in batches, and returns
// per name its entry or why not. pmproxy traverses the namespace below
// each name, so the answer to a non-leaf is its leaves.
func (c *Client) lookup(ctx context.Context, names []string) ([]*metric, []error, error) {
	out := make([]*metric, len(names))
	errs := make([]error, len(names))
	var ask []int
	c.mu.Lock()
	for i, n := range names {
		switch m, ok := c.metrics[n]; {
		case ok:
			out[i] = m
		case n == "" || strings.ContainsAny(n, ",\x00") || len(n) > maxQuery:
			errs[i] = pmclient.ErrUnknownName // pmproxy would split it
		default:
			ask = append(ask, i)
		}
	}
	c.mu.Unlock()
	for start := 0; start < len(ask); {
		end, size := start, 0
		for end < len(ask) && (end == start || size+len(names[ask[end]])+1 < maxQuery) {
			size += len(names[ask[end]]) + 1
			end++
		}
		batch := ask[start:end]
		if err := c.lookupBatch(ctx, names, batch, out, errs); err != nil {
			return nil, nil, err
		}
		start = end
	}
	return out, errs, nil
}

func (c *Client) lookupBatch(ctx context.Context, names []string, batch []int, out []*metric, errs []error) error {
	list := make([]string, len(batch))
	for k, i := range batch {
		list[k] = names[i]
	}
	var ans struct {
		Metrics []metricJSON `json:"metrics"`
	}
	q := url.Values{"names": {strings.Join(list, ",")}}
	err := c.get(ctx, metricSlot, "metric", q, &ans)
	var pe *Error
	if len(batch) == 1 && errors.As(err, &pe) && pe.Code != 0 && pe.Status == http.StatusBadRequest {
		// One name: pmproxy fails the request instead of the element.
		errs[batch[0]] = pe.Code
		return nil
	}
	if err != nil {
		return err
	}
	// The answer lists, name by name in the order asked, the name itself
	// (a leaf), an element saying why not, or the leaves below it.
	cur := 0
	for _, i := range batch {
		name := names[i]
		leaf, below := false, false
		for cur < len(ans.Metrics) {
			m := &ans.Metrics[cur]
			if m.Name != name && !strings.HasPrefix(m.Name, name+".") {
				break
			}
			cur++
			if m.Name != name {
				below = true
				if !m.failed() {
					c.remember(m) // a leaf below: we know it now
				}
				continue
			}
			leaf = true
			switch {
			case m.failed() && m.Message == "failed to lookup metric name":
				// In the namespace (the traversal found it), but no
				// descriptor: pmproxy does not say the PMID.
				out[i] = &metric{desc: pmapi.Desc{PMID: pmapi.PMIDNull}, noDesc: true}
			case m.failed():
				code, ok := pmclient.ErrorFromText(m.Message)
				if !ok {
					errs[i] = fmt.Errorf("%s: %s", name, m.Message)
				} else {
					errs[i] = code
				}
			default:
				e, err := c.remember(m)
				if err != nil {
					return fmt.Errorf("%s: %s: %w", c.Describe(), requestName("metric", q), err)
				}
				if e.desc.PMID.Domain() == derivedDomain {
					// Defined by pmproxy's own libpcp (its host's derived
					// configs), not served by the pmcd.
					errs[i] = pmclient.ErrUnknownName
					continue
				}
				out[i] = e
			}
		}
		switch {
		case leaf:
		case below:
			// A non-leaf: pmcd's PMNS_NAMES answers these as unknown.
			errs[i] = pmclient.ErrUnknownName
		case errs[i] == nil:
			errs[i] = pmclient.ErrUnknownName
		}
	}
	c.mu.Lock()
	for _, i := range batch {
		if out[i] != nil && out[i].noDesc {
			c.metrics[names[i]] = out[i]
		}
	}
	c.mu.Unlock()
	return nil
}

// remember records a metric pmproxy described.
func (c *Client) remember(m *metricJSON) (*metric, error) {
	e, err := m.entry()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byPMID[e.desc.PMID]; ok && old.desc == e.desc {
		e = old // names of one PMID share one entry
	} else {
		c.byPMID[e.desc.PMID] = e
	}
	c.metrics[m.Name] = e
	return e, nil
}

// LookupNames implements pmclient.Source with one /pmapi/metric request
// per batch. A name that is in the namespace but has no descriptor
// resolves to PMIDNull (pmproxy does not say its PMID), whose Descs
// fails: pmclient.ResolveNames still tells it from an unknown name.
func (c *Client) LookupNames(ctx context.Context, names []string) ([]pmapi.PMID, []error, error) {
	ms, errs, err := c.lookup(ctx, names)
	if err != nil {
		return nil, nil, err
	}
	pmids := make([]pmapi.PMID, len(names))
	for i, m := range ms {
		pmids[i] = pmapi.PMIDNull
		if errs[i] == nil && m != nil {
			pmids[i] = m.desc.PMID
		}
	}
	return pmids, errs, nil
}

// Descs implements pmclient.Source: from what name lookups learnt, else
// a fetch names the PMIDs (pmproxy 6 cannot describe a PMID directly)
// and /pmapi/metric describes one name of each.
func (c *Client) Descs(ctx context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	ms, errs, err := c.byID(ctx, pmids)
	if err != nil {
		return nil, nil, err
	}
	descs := make([]pmapi.Desc, len(pmids))
	for i, m := range ms {
		if errs[i] == nil {
			descs[i] = m.desc
		}
	}
	return descs, errs, nil
}

// byID finds the entries of PMIDs.
func (c *Client) byID(ctx context.Context, pmids []pmapi.PMID) ([]*metric, []error, error) {
	out := make([]*metric, len(pmids))
	errs := make([]error, len(pmids))
	var missing []pmapi.PMID
	c.mu.Lock()
	for i, p := range pmids {
		if m, ok := c.byPMID[p]; ok {
			out[i] = m
		} else if p != pmapi.PMIDNull {
			missing = append(missing, p)
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		names, nerrs, err := c.NamesOf(ctx, missing)
		if err != nil {
			return nil, nil, err
		}
		var first []string
		for k := range missing {
			if nerrs[k] == nil && len(names[k]) > 0 {
				first = append(first, names[k][0])
			}
		}
		if _, _, err := c.lookup(ctx, first); err != nil {
			return nil, nil, err
		}
		c.mu.Lock()
		for i, p := range pmids {
			if out[i] == nil {
				out[i] = c.byPMID[p]
			}
		}
		c.mu.Unlock()
	}
	for i := range pmids {
		if out[i] == nil {
			errs[i] = pmclient.ErrUnknownPMID
		}
	}
	return out, errs, nil
}

// HelpText implements pmclient.Source: a metric's text comes with its
// descriptor, an instance domain's with its instances. As from libpcp,
// missing long help falls back to the one-line text.
func (c *Client) HelpText(ctx context.Context, target pmclient.HelpTarget, long bool) (string, error) {
	var oneline, help string
	var has bool
	if target.InDom != pmapi.InDomNull {
		in, err := c.indomOf(ctx, target.InDom)
		if err != nil {
			return "", err
		}
		oneline, help, has = in.oneline, in.help, in.hasText
	} else {
		ms, errs, err := c.byID(ctx, []pmapi.PMID{target.PMID})
		if err != nil {
			return "", err
		}
		if errs[0] != nil {
			return "", errs[0]
		}
		oneline, help, has = ms[0].oneline, ms[0].help, ms[0].hasText
	}
	text := oneline
	if long && help != "" {
		text = help
	}
	if !has || text == "" {
		return "", pmclient.ErrNoHelp
	}
	return text, nil
}
