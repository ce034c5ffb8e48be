// Package pmproxy reads metric metadata and values from a pmcd through
// pmproxy's REST API (/pmapi/context, /pmapi/metric, /pmapi/children,
// /pmapi/indom, /pmapi/fetch; pmwebapi(3)): PCP's own gateway to the
// pmcds of many hosts, reachable over HTTP where pmcd's port is not. No
// Redis is involved: these endpoints are pmproxy's live PMAPI service.
//
// The REST API says less than pmcd's protocol, and the Client makes up
// for it where it can; what it cannot recover is documented on the
// methods (and in docs/fleet.md): optional labels are not sent, a
// metric that is in the namespace but has no descriptor has no PMID, and
// a singular metric with no value reads as pmproxy's last value.
package pmproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Defaults, as for a direct pmcd connection where one applies.
const (
	DefaultPort           = 44322
	DefaultConnectTimeout = 5 * time.Second
	DefaultRequestTimeout = 10 * time.Second
	// DefaultPollTimeout is how long pmproxy keeps our web context (and
	// its pmcd connection) open between requests.
	DefaultPollTimeout = 60 * time.Second
	// DefaultMaxResponse bounds one answer's body: a whole namespace with
	// help text is a few MiB.
	DefaultMaxResponse = 64 << 20
	// maxQuery bounds the names or PMIDs sent in one request's URL.
	maxQuery = 6000
	// derivedDomain is the PMID domain of the derived metrics a libpcp
	// defines itself (DYNAMIC_PMID): pmproxy's, from the derived-metric
	// configs of its own host unless it runs with PCP_DERIVED_CONFIG="".
	derivedDomain = 511
	// maxNames and maxDepth bound a namespace walk.
	maxNames = 1 << 22
	maxDepth = 64
)

// Options tune a Client. Zero values take the defaults; the timeouts
// read $PMCD_CONNECT_TIMEOUT and $PMCD_REQUEST_TIMEOUT as libpcp does.
type Options struct {
	// Hostspec is the pmcd pmproxy is to reach (PCPIntro(1): "host",
	// "host:port"); "" is pmproxy's default, its own host.
	Hostspec       string
	ConnectTimeout time.Duration
	RequestTimeout time.Duration // each HTTP request as a whole
	PollTimeout    time.Duration // pmproxy's idle timeout for our context
	MaxResponse    int64
	// MaxValues bounds the JSON values one answer decodes to (see
	// DefaultMaxValues); default $PCP_DERIVE_LSP_PMPROXY_MAX_VALUES, else
	// DefaultMaxValues.
	MaxValues int64
	// Gate is shared by the clients of one pmproxy to bound the requests
	// in flight to it; nil gives the client a gate of its own. See Gate.
	Gate *Gate
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
	Getenv    func(string) string
}

// Client is a pmclient.Source (and Labeler, NameLister) for one pmcd
// behind one pmproxy. It keeps one pmproxy web context, so pmproxy holds
// one pmcd connection for it, and remembers the metadata pmproxy sent so
// that descriptors and help are asked for once. Safe for concurrent use.
type Client struct {
	base *url.URL
	opts Options
	http *http.Client

	ctxMu   sync.Mutex // serializes context creation
	mu      sync.Mutex
	ctxIDs  [2]string // pmproxy web contexts by slot; "" before first use
	ctxLabs []pmclient.Label
	metrics map[string]*metric
	byPMID  map[pmapi.PMID]*metric
	names   map[pmapi.PMID][]string // every name of a PMID, from a fetch
	indoms  map[pmapi.InDom]*indom
}

// metric is what /pmapi/metric says of one name.
type metric struct {
	desc          pmapi.Desc
	noDesc        bool // in the namespace, but pmproxy found no descriptor
	oneline, help string
	hasText       bool
	labels        []pmclient.Label
}

// indom is what /pmapi/indom says of one instance domain.
type indom struct {
	insts         []pmclient.Instance
	labels        []pmclient.Label // context and indom labels, merged
	oneline, help string
	hasText       bool
}

// New makes a client for the pmproxy at rawURL ("http://host:44322",
// "host:44322" or "host"). It does not connect: the first request does.
func New(rawURL string, opts Options) (*Client, error) {
	base, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = pmclient.EnvSeconds(opts.Getenv, "PMCD_CONNECT_TIMEOUT", DefaultConnectTimeout)
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = pmclient.EnvSeconds(opts.Getenv, "PMCD_REQUEST_TIMEOUT", DefaultRequestTimeout)
	}
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = DefaultPollTimeout
	}
	if opts.MaxResponse <= 0 {
		opts.MaxResponse = DefaultMaxResponse
	}
	if opts.MaxValues <= 0 {
		opts.MaxValues = DefaultMaxValues
		if v, err := strconv.ParseInt(opts.Getenv("PCP_DERIVE_LSP_PMPROXY_MAX_VALUES"), 10, 64); err == nil && v > 0 {
			opts.MaxValues = v
		}
	}
	if opts.Gate == nil {
		opts.Gate = NewGate(1)
	}
	if strings.ContainsAny(opts.Hostspec, "\x00\n") {
		return nil, fmt.Errorf("hostspec %q: control characters", opts.Hostspec)
	}
	transport := opts.Transport
	if transport == nil {
		transport = &http.Transport{
			Proxy:               nil, // pmproxy is the proxy: never go through $HTTP_PROXY to it
			DialContext:         (&net.Dialer{Timeout: opts.ConnectTimeout}).DialContext,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     opts.PollTimeout,
			// No ResponseHeaderTimeout: every request's context already
			// ends at RequestTimeout with ErrTimeout as its cause; a
			// second timer of the same length raced it and won now and
			// then with an unclassified "timeout awaiting response
			// headers".
		}
	}
	c := &Client{base: base, opts: opts, http: &http.Client{Transport: transport}}
	c.forget()
	return c, nil
}

// Gate bounds the requests in flight to one pmproxy. pmproxy starts and
// stops libuv timers from its worker threads without a lock, and
// crashes when REST requests overlap, even on different web contexts
// (seen with 6.0.3; fixed upstream by performancecopilot/pcp#2525 in
// March 2026, after the releases we test): every client of one pmproxy
// must share a gate, of 1 unless that pmproxy is known to be fixed.
// A gate from Gates also carries the decoding budget its fleet shares.
type Gate struct {
	slots  chan struct{}
	budget *Budget // nil: none shared
}

// NewGate lets n requests be in flight at once (at least 1).
func NewGate(n int) *Gate { return &Gate{slots: make(chan struct{}, max(n, 1))} }

func (g *Gate) enter(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (g *Gate) leave() { <-g.slots }

// ParseURL reads a pmproxy address: a URL with scheme http or https, or
// "host[:port]" (http, port 44322).
func ParseURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("pmproxy URL is empty")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("pmproxy URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("pmproxy URL %q: scheme %q, want http or https", raw, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("pmproxy URL %q: no host", raw)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(DefaultPort))
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// forget drops everything learnt from pmproxy.
func (c *Client) forget() {
	c.metrics = map[string]*metric{}
	c.byPMID = map[pmapi.PMID]*metric{}
	c.names = map[pmapi.PMID][]string{}
	c.indoms = map[pmapi.InDom]*indom{}
}

// Describe implements pmclient.Source.
func (c *Client) Describe() string {
	target := "its own host"
	if c.opts.Hostspec != "" {
		target = c.opts.Hostspec
	}
	return fmt.Sprintf("pmcd at %s through pmproxy %s", target, c.base.Host)
}

// Hostspec is the pmcd this client reaches through pmproxy.
func (c *Client) Hostspec() string { return c.opts.Hostspec }

// Close lets go of idle HTTP connections. pmproxy drops the web context
// itself after the poll timeout.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// Error is pmproxy's answer to a failed request: the HTTP status and
// pmproxy's message. It unwraps to the PCP error the message ends with,
// when it is one (so errors.Is(err, pmclient.ErrUnknownName) works).
type Error struct {
	Status  int
	Message string
	Code    pmclient.Error // 0 when the message names no PCP error
}

func (e *Error) Error() string {
	return fmt.Sprintf("pmproxy answered %d: %s", e.Status, e.Message)
}

func (e *Error) Unwrap() error {
	if e.Code == 0 {
		return nil
	}
	return e.Code
}

// contextLost reports pmproxy forgetting our web context (it expired
// after the poll timeout, or pmproxy restarted).
func (e *Error) contextLost() bool {
	return strings.Contains(e.Message, "unknown context identifier") || strings.Contains(e.Message, "expired context identifier")
}

// Web context slots. pmproxy 6.0 caches labels per context, computed
// when first needed and never again, from what it has read by then: a
// metric looked up before its instance domain's labels were read keeps
// a label set without them, and an instance domain first met through a
// metric keeps that stale set too. Instance domains are therefore asked
// about in a context of their own, where /pmapi/indom reads the labels
// before it renders them.
const (
	metricSlot = 0
	indomSlot  = 1
)

// get asks pmproxy for endpoint with params, in the slot's web context,
// and decodes the JSON answer into out. A context pmproxy has forgotten
// is made again, once.
func (c *Client) get(ctx context.Context, slot int, endpoint string, params url.Values, out any) error {
	for attempt := 0; ; attempt++ {
		id, err := c.context(ctx, slot)
		if err != nil {
			return err
		}
		q := url.Values{}
		for k, v := range params {
			q[k] = v
		}
		q.Set("context", id)
		err = c.do(ctx, endpoint, q, out)
		var pe *Error
		if attempt == 0 && errors.As(err, &pe) && pe.contextLost() {
			c.mu.Lock()
			if c.ctxIDs[slot] == id {
				c.ctxIDs[slot] = ""
			}
			c.mu.Unlock()
			continue
		}
		return err
	}
}

// context returns the slot's web context, making it on first use: the
// request that connects pmproxy to the pmcd, so a host that is down
// fails here.
func (c *Client) context(ctx context.Context, slot int) (string, error) {
	c.ctxMu.Lock()
	defer c.ctxMu.Unlock()
	c.mu.Lock()
	id := c.ctxIDs[slot]
	c.mu.Unlock()
	if id != "" {
		return id, nil
	}
	q := url.Values{}
	if c.opts.Hostspec != "" {
		q.Set("hostspec", c.opts.Hostspec)
	}
	q.Set("polltimeout", strconv.FormatFloat(c.opts.PollTimeout.Seconds(), 'f', -1, 64))
	var ans struct {
		Context json.Number     `json:"context"`
		Labels  json.RawMessage `json:"labels"`
	}
	if err := c.do(ctx, "context", q, &ans); err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(ans.Context.String(), 10, 32); err != nil {
		return "", fmt.Errorf("%s: /pmapi/context answered context %q, not a number", c.Describe(), ans.Context)
	}
	labels, err := parseLabels(ans.Labels)
	if err != nil {
		return "", fmt.Errorf("%s: context labels: %w", c.Describe(), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.metrics)+len(c.indoms) > 0 {
		// A new context may be a new pmcd (pmproxy restarted, the host
		// came back): what we knew may be stale.
		c.forget()
	}
	c.ctxIDs[slot], c.ctxLabs = ans.Context.String(), labels
	return c.ctxIDs[slot], nil
}

// do makes one HTTP request within the request timeout and decodes the
// answer. Errors name pmproxy, the host and the request.
func (c *Client) do(ctx context.Context, endpoint string, q url.Values, out any) error {
	if err := c.opts.Gate.enter(ctx); err != nil {
		return fmt.Errorf("%s: waiting to ask pmproxy: %w", c.Describe(), err)
	}
	defer c.opts.Gate.leave()
	u := *c.base
	u.Path += "/pmapi/" + endpoint
	u.RawQuery = q.Encode()
	what := requestName(endpoint, q)
	fail := func(err error) error { return fmt.Errorf("%s: %s: %w", c.Describe(), what, err) }
	rctx, cancel := context.WithTimeoutCause(ctx, c.opts.RequestTimeout, pmclient.ErrTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fail(context.Cause(ctx))
		case rctx.Err() != nil:
			return fail(fmt.Errorf("%w: no answer within %v", pmclient.ErrTimeout, c.opts.RequestTimeout))
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail(fmt.Errorf("connecting to pmproxy: %w", err))
	}
	defer resp.Body.Close()
	body := &cappedBody{r: resp.Body, left: c.opts.MaxResponse, max: c.opts.MaxResponse}
	if resp.StatusCode != http.StatusOK {
		return fail(errorAnswer(resp.StatusCode, io.LimitReader(body, maxErrorAnswer)))
	}
	// Decoded from the stream, its values counted as they arrive: no
	// copy of the body, and nothing built from an answer over budget.
	vc := &valueCounter{r: body, ctx: rctx, max: c.opts.MaxValues, budget: c.opts.Gate.budget}
	defer vc.release()
	dec := json.NewDecoder(vc)
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case vc.err != nil:
			return fail(vc.err)
		case body.err != nil:
			return fail(body.err)
		case ctx.Err() != nil:
			return fail(context.Cause(ctx))
		case rctx.Err() != nil:
			return fail(fmt.Errorf("%w: answer not complete within %v", pmclient.ErrTimeout, c.opts.RequestTimeout))
		case errors.As(err, &syntax), errors.As(err, &typ), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return fail(fmt.Errorf("%w: answer is not the JSON expected: %v", pmclient.ErrIPC, err))
		}
		return fail(err) // the connection failed
	}
	// Read the answer to its end (a newline, the last chunk): the
	// connection can then carry the next request, and pmproxy has
	// finished this answer before the gate lets another one through.
	_, _ = io.CopyN(io.Discard, body, maxTrailer)
	return nil
}

// maxTrailer bounds what is read after an answer's JSON value.
const maxTrailer = 4 << 10

// maxErrorAnswer bounds what is read of an error answer (its message).
const maxErrorAnswer = 64 << 10

// errorAnswer is the Error of a non-200 answer: pmproxy's JSON message,
// else the start of the body, else the status.
func errorAnswer(status int, r io.Reader) error {
	body, _ := io.ReadAll(r)
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Message == "" {
		e.Message = strings.TrimSpace(string(body[:min(len(body), 200)]))
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
	}
	pe := &Error{Status: status, Message: e.Message}
	pe.Code, _ = pmclient.ErrorFromText(e.Message)
	return pe
}

// errTooLong is what an answer over Options.MaxResponse bytes wraps.
var errTooLong = errors.New("answer too long")

// cappedBody reads an answer's body up to a number of bytes, and fails
// the read that would go past them.
type cappedBody struct {
	r    io.Reader
	left int64
	max  int64
	err  error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.err = fmt.Errorf("%w: over the %d-byte limit", errTooLong, b.max)
		return 0, b.err
	}
	return n, err
}

// requestName renders a request for an error message: the endpoint and
// its main parameter, shortened.
func requestName(endpoint string, q url.Values) string {
	for _, k := range []string{"names", "prefix", "pmids", "indom"} {
		if v := q.Get(k); v != "" || q.Has(k) {
			if len(v) > 80 {
				v = v[:77] + "..."
			}
			return "/pmapi/" + endpoint + "?" + k + "=" + v
		}
	}
	return "/pmapi/" + endpoint
}

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

// NamesOf implements pmclient.Source with a fetch by PMID: pmproxy
// answers a fetch with a value set under every name of each metric.
func (c *Client) NamesOf(ctx context.Context, pmids []pmapi.PMID) ([][]string, []error, error) {
	names := make([][]string, len(pmids))
	errs := make([]error, len(pmids))
	var ask []pmapi.PMID
	c.mu.Lock()
	for _, p := range pmids {
		if _, ok := c.names[p]; !ok && p != pmapi.PMIDNull {
			ask = append(ask, p)
		}
	}
	c.mu.Unlock()
	for start := 0; start < len(ask); start += maxQuery / 16 {
		batch := ask[start:min(start+maxQuery/16, len(ask))]
		ans, err := c.fetch(ctx, batch)
		if err != nil {
			return nil, nil, err
		}
		got := map[pmapi.PMID][]string{}
		for _, v := range ans.Values {
			if id, err := pmapi.ParsePMID(v.PMID); err == nil {
				got[id] = append(got[id], v.Name)
			}
		}
		c.mu.Lock()
		for _, p := range batch {
			c.names[p] = got[p] // nil: pmproxy knows no such metric
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, p := range pmids {
		names[i] = c.names[p]
		if len(names[i]) == 0 {
			errs[i] = pmclient.ErrUnknownPMID
		}
	}
	return names, errs, nil
}

// Children implements pmclient.Source with /pmapi/children. pmproxy
// lists leaves and non-leaves apart; they come back leaves first, each
// group in the namespace's order.
func (c *Client) Children(ctx context.Context, name string) ([]pmclient.Child, error) {
	q := url.Values{}
	if name != "" {
		q.Set("prefix", name)
	}
	var ans struct {
		Leaf    []string `json:"leaf"`
		NonLeaf []string `json:"nonleaf"`
	}
	if err := c.get(ctx, metricSlot, "children", q, &ans); err != nil {
		return nil, err
	}
	out := make([]pmclient.Child, 0, len(ans.Leaf)+len(ans.NonLeaf))
	for _, n := range ans.Leaf {
		out = append(out, pmclient.Child{Name: n, Leaf: true})
	}
	for _, n := range ans.NonLeaf {
		out = append(out, pmclient.Child{Name: n})
	}
	return out, nil
}

// AllNames implements pmclient.NameLister by walking the namespace with
// /pmapi/children: names only, a tenth of the time of a /pmapi/metric
// traversal, which also reads every metric's help and labels.
func (c *Client) AllNames(ctx context.Context) ([]string, error) {
	var names []string
	level := []string{""}
	for depth := 0; len(level) > 0; depth++ {
		if depth > maxDepth {
			return nil, fmt.Errorf("%s: the namespace is more than %d levels deep (%s...)", c.Describe(), maxDepth, level[0][:min(len(level[0]), 60)])
		}
		var next []string
		for _, node := range level {
			kids, err := c.Children(ctx, node)
			if err != nil {
				return nil, err
			}
			for _, k := range kids {
				name := k.Name
				if node != "" {
					name = node + "." + k.Name
				}
				if k.Leaf {
					names = append(names, name)
				} else {
					next = append(next, name)
				}
			}
			if len(names)+len(next) > maxNames {
				return nil, fmt.Errorf("%s: the namespace has more than %d names", c.Describe(), maxNames)
			}
		}
		level = next
	}
	return names, nil
}

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

// Version implements pmclient.Source: pmcd.version.
func (c *Client) Version(ctx context.Context) (string, error) { return pmclient.FetchVersion(ctx, c) }
