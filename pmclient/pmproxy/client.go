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
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
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

// Version implements pmclient.Source: pmcd.version.
func (c *Client) Version(ctx context.Context) (string, error) { return pmclient.FetchVersion(ctx, c) }
