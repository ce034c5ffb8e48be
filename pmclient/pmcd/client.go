package pmcd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/wire"
)

// Options tune a Client. Zero values take PCP's defaults, read from the
// environment as libpcp does.
type Options struct {
	ConnectTimeout time.Duration // $PMCD_CONNECT_TIMEOUT, default 5 s
	RequestTimeout time.Duration // $PMCD_REQUEST_TIMEOUT, default 10 s
	// RequestDeadline bounds each request as a whole, however many PDUs
	// its answer takes ($PCP_DERIVE_LSP_PMCD_DEADLINE in seconds; default
	// DefaultRequestDeadline, or 3×RequestTimeout when that is longer).
	RequestDeadline time.Duration
	MaxPDU          int // largest reply accepted, default 64 MiB
	// Backoff is the wait after consecutive connection failures
	// ($PMCD_RECONNECT_TIMEOUT, default 5,10,20,40,80 s).
	Backoff []time.Duration
	// Now and Getenv are for tests; default time.Now and os.Getenv.
	Now    func() time.Time
	Getenv func(string) string
}

// Client talks to one pmcd. It connects on first use, serializes requests
// on its connection (the protocol has one outstanding request), and
// reconnects after failures with PCP's back-off. Safe for concurrent use.
type Client struct {
	spec string
	eps  []Endpoint
	opts Options

	mu          sync.Mutex
	c           *conn
	profileSent bool
	failures    int
	retryAt     time.Time
	types       map[pmapi.PMID]pmapi.Type
	// described is the PMID list Fetch last found all in types (which
	// only grows): a fetch of the same list again, the common case,
	// skips a map lookup per metric.
	described []pmapi.PMID
	dec       wire.Decoder // Fetch's: layouts and strings seen before
	// Changes accumulates pmcd state-change flags (agents added or
	// restarted, names changed) seen since the caller last cleared them.
	changes int32
}

// New makes a client for a PCP host specification (see Endpoints).
func New(spec string, opts Options) (*Client, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = pmclient.EnvSeconds(opts.Getenv, "PMCD_CONNECT_TIMEOUT", DefaultConnectTimeout)
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = pmclient.EnvSeconds(opts.Getenv, "PMCD_REQUEST_TIMEOUT", DefaultRequestTimeout)
	}
	if opts.RequestDeadline == 0 {
		opts.RequestDeadline = pmclient.EnvSeconds(opts.Getenv, "PCP_DERIVE_LSP_PMCD_DEADLINE", max(DefaultRequestDeadline, 3*opts.RequestTimeout))
	}
	if opts.MaxPDU == 0 {
		opts.MaxPDU = DefaultMaxPDU
	}
	if len(opts.Backoff) == 0 {
		opts.Backoff = parseBackoff(opts.Getenv("PMCD_RECONNECT_TIMEOUT"))
	}
	eps, err := Endpoints(spec, opts.Getenv)
	if err != nil {
		return nil, err
	}
	return &Client{spec: spec, eps: eps, opts: opts, types: map[pmapi.PMID]pmapi.Type{}}, nil
}

func parseBackoff(s string) []time.Duration {
	var out []time.Duration
	for _, f := range splitComma(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v <= 0 {
			out = nil
			break
		}
		out = append(out, time.Duration(v*float64(time.Second)))
	}
	if len(out) == 0 {
		for _, s := range []int{5, 10, 20, 40, 80} {
			out = append(out, time.Duration(s)*time.Second)
		}
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// Describe implements pmclient.Source.
func (c *Client) Describe() string {
	if c.spec == "" || c.spec == "local:" {
		return "pmcd on this host (" + c.eps[0].Address + ")"
	}
	return "pmcd at " + c.spec
}

// Close drops the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c == nil {
		return nil
	}
	err := c.c.close()
	c.c = nil
	return err
}

// Changes returns and clears the pmcd state-change flags seen so far
// (1 agent added, 2 agent restarted, 4 agent dropped, 8 labels changed,
// 16 names changed): a cache in front of the client should flush on them.
func (c *Client) Changes() int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.changes
	c.changes = 0
	return ch
}

// do runs fn on a connected conn, connecting first if needed. Errors that
// leave the stream in an unknown state drop the connection.
func (c *Client) do(ctx context.Context, fn func(*conn) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c == nil {
		now := c.opts.Now()
		if now.Before(c.retryAt) {
			return fmt.Errorf("%s is unreachable; next attempt in %v", c.Describe(), c.retryAt.Sub(now).Round(time.Second))
		}
		nc, err := dial(ctx, c.eps, c.opts)
		if err != nil {
			if ctx.Err() == nil {
				c.retryAt = now.Add(c.opts.Backoff[min(c.failures, len(c.opts.Backoff)-1)])
				c.failures++
			}
			return fmt.Errorf("connecting to %s: %w", c.Describe(), err)
		}
		c.c, c.failures, c.retryAt, c.profileSent = nc, 0, time.Time{}, false
	}
	err := fn(c.c)
	if _, fromPmcd := pmcdError(err); err != nil && !fromPmcd {
		// The reply may still arrive later: never reuse the stream.
		c.c.close()
		c.c = nil
	}
	return err
}

// pmcdError reports whether err is an error pmcd sent in an ERROR PDU
// (the stream is then fine), as opposed to a local failure.
func pmcdError(err error) (pmclient.Error, bool) {
	if err == nil {
		return 0, false
	}
	var pe pmclient.Error
	if !errors.As(err, &pe) {
		return 0, false
	}
	switch pe {
	case pmclient.ErrIPC, pmclient.ErrTimeout, pmclient.ErrEOF:
		return 0, false
	}
	return pe, true
}

// LookupNames implements pmclient.Source with one PMNS_NAMES request per
// batch (pmcd accepts requests up to 64 KiB).
func (c *Client) LookupNames(ctx context.Context, names []string) ([]pmapi.PMID, []error, error) {
	pmids := make([]pmapi.PMID, len(names))
	errs := make([]error, len(names))
	for start := 0; start < len(names); {
		end, size := start, 24
		for end < len(names) && (end == start || size+len(names[end])+8 < 63*1024) {
			size += len(names[end]) + 8
			end++
		}
		batch := names[start:end]
		err := c.do(ctx, func(cn *conn) error {
			p, err := cn.roundTrip(ctx, encodeNames(batch), nil)
			if pe, ok := pmcdError(err); len(batch) == 1 && ok {
				pmids[start], errs[start] = pmapi.PMIDNull, pe
				return nil
			}
			if err != nil {
				return err
			}
			ids, err := decodeIDs(p, len(batch))
			if err != nil {
				return err
			}
			for i, id := range ids {
				pmids[start+i] = id
				if id == pmapi.PMIDNull {
					errs[start+i] = pmclient.ErrUnknownName
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		start = end
	}
	return pmids, errs, nil
}

// NamesOf implements pmclient.Source (pmcd takes one PMID per request).
func (c *Client) NamesOf(ctx context.Context, pmids []pmapi.PMID) ([][]string, []error, error) {
	names := make([][]string, len(pmids))
	errs := make([]error, len(pmids))
	err := c.do(ctx, func(cn *conn) error {
		return cn.roundTrips(ctx, len(pmids), func(dst []byte, i int) []byte {
			var w builder
			w.u32(0)
			w.u32(1)
			w.u32(uint32(pmids[i]))
			return append(dst, w.pdu(pduPMNSIDs)...)
		}, func(i int, p []byte, err error) error {
			if pe, ok := pmcdError(err); ok {
				errs[i] = pe
				return nil
			}
			names[i], _, err = decodeNames(p)
			return err
		})
	})
	return names, errs, err
}

// Children implements pmclient.Source.
func (c *Client) Children(ctx context.Context, name string) ([]pmclient.Child, error) {
	var out []pmclient.Child
	err := c.do(ctx, func(cn *conn) error {
		p, err := cn.roundTrip(ctx, encodeChild(name, 1, pduPMNSChild), nil)
		if err != nil {
			return err
		}
		names, status, err := decodeNames(p)
		for i, n := range names {
			out = append(out, pmclient.Child{Name: n, Leaf: i < len(status) && status[i] == 0})
		}
		return err
	})
	return out, err
}

// AllNames implements pmclient.NameLister with one PMNS_TRAVERSE.
func (c *Client) AllNames(ctx context.Context) ([]string, error) {
	var out []string
	err := c.do(ctx, func(cn *conn) error {
		p, err := cn.roundTrip(ctx, encodeChild("", 0, pduPMNSTraverse), nil)
		if err != nil {
			return err
		}
		out, _, err = decodeNames(p)
		return err
	})
	return out, err
}

// Descs implements pmclient.Source: one DESC_IDS request per batch when
// pmcd supports it, else one DESC_REQ per PMID.
func (c *Client) Descs(ctx context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	descs := make([]pmapi.Desc, len(pmids))
	errs := make([]error, len(pmids))
	err := c.do(ctx, func(cn *conn) error {
		if cn.features&featureDescs == 0 {
			return cn.roundTrips(ctx, len(pmids), func(dst []byte, i int) []byte {
				return append(dst, encodeDescReq(pmids[i])...)
			}, func(i int, p []byte, err error) error {
				if pe, ok := pmcdError(err); ok {
					errs[i] = pe
					return nil
				}
				descs[i], err = decodeDesc(p)
				return err
			})
		}
		const batch = 16000
		for start := 0; start < len(pmids); start += batch {
			ids := pmids[start:min(start+batch, len(pmids))]
			p, err := cn.roundTrip(ctx, encodeDescIDs(ids), nil)
			if pe, ok := pmcdError(err); len(ids) == 1 && ok {
				errs[start] = pe
				continue
			}
			if err != nil {
				return err
			}
			ds, err := decodeDescs(p, len(ids))
			if err != nil {
				return err
			}
			for i, d := range ds {
				if d.PMID == pmapi.PMIDNull {
					errs[start+i] = pmclient.ErrUnknownPMID
					continue
				}
				descs[start+i] = d
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	for i, d := range descs {
		if errs[i] == nil {
			if t, ok := c.types[d.PMID]; ok && t != d.Type {
				c.dec.ForgetTypes()
			}
			c.types[d.PMID] = d.Type
		}
	}
	c.mu.Unlock()
	return descs, errs, nil
}

// Instances implements pmclient.Source.
func (c *Client) Instances(ctx context.Context, indom pmapi.InDom) ([]pmclient.Instance, error) {
	var out []pmclient.Instance
	err := c.do(ctx, func(cn *conn) error {
		if err := c.sendProfile(ctx, cn); err != nil {
			return err
		}
		p, err := cn.roundTrip(ctx, encodeInstanceReq(indom, -1, ""), nil)
		if err != nil {
			return err
		}
		out, err = decodeInstances(p)
		return err
	})
	return out, err
}

// HelpText implements pmclient.Source. Like libpcp, empty long help falls
// back to the one-line text.
func (c *Client) HelpText(ctx context.Context, target pmclient.HelpTarget, long bool) (string, error) {
	ident, kind := uint32(target.PMID), uint32(4)
	if target.InDom != pmapi.InDomNull {
		ident, kind = uint32(target.InDom), 8
	}
	var text string
	err := c.do(ctx, func(cn *conn) error {
		for _, which := range []uint32{2, 1} {
			if which == 2 && !long {
				continue
			}
			p, err := cn.roundTrip(ctx, encodeTextReq(ident, which|kind), nil)
			if err != nil {
				return err
			}
			if text, err = decodeText(p); err != nil || text != "" {
				return err
			}
		}
		return nil
	})
	if err == nil && text == "" {
		err = pmclient.ErrNoHelp
	}
	return text, err
}

// Labels implements pmclient.Labeler. Like libpcp it asks only a pmcd that
// advertised label support, and sends the instance profile before an
// instances request.
func (c *Client) Labels(ctx context.Context, typ pmclient.LabelType, ident uint32) ([]pmclient.LabelSet, error) {
	switch typ {
	case pmclient.LabelContext, pmclient.LabelDomain, pmclient.LabelInDom, pmclient.LabelCluster, pmclient.LabelItem, pmclient.LabelInstances:
	default:
		return nil, fmt.Errorf("label type %d: %w", typ, pmclient.ErrType)
	}
	var sets []pmclient.LabelSet
	err := c.do(ctx, func(cn *conn) error {
		if cn.features&featureLabels == 0 {
			return pmclient.ErrNoLabels
		}
		if typ == pmclient.LabelInstances {
			if err := c.sendProfile(ctx, cn); err != nil {
				return err
			}
		}
		p, err := cn.roundTrip(ctx, encodeLabelReq(ident, typ), nil)
		if err != nil {
			return err
		}
		sets, err = decodeLabels(p, ident, typ)
		return err
	})
	return sets, err
}

func (c *Client) sendProfile(ctx context.Context, cn *conn) error {
	if c.profileSent {
		return nil
	}
	rq := cn.begin(ctx)
	if err := cn.write(rq, encodeProfile(0)); err != nil {
		return err
	}
	c.profileSent = true
	return nil
}

// Fetch implements pmclient.Source. Descriptors of unseen metrics are
// looked up first, since values are decoded by type.
func (c *Client) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	c.mu.Lock()
	var unknown []pmapi.PMID
	if !slices.Equal(pmids, c.described) {
		for _, id := range pmids {
			if _, ok := c.types[id]; !ok {
				unknown = append(unknown, id)
			}
		}
		if len(unknown) == 0 {
			c.described = append(c.described[:0], pmids...)
		}
	}
	c.mu.Unlock()
	if len(unknown) > 0 {
		if _, _, err := c.Descs(ctx, unknown); err != nil {
			return nil, err
		}
	}
	var res *pmclient.Result
	err := c.do(ctx, func(cn *conn) error {
		// The instance profile, when not sent yet, goes in the same write
		// as the fetch: it has no reply.
		req := cn.wbuf[:0]
		if !c.profileSent {
			req = append(req, encodeProfile(0)...)
		}
		req = appendFetch(req, 0, pmids, cn.features&featureHighres != 0)
		if cap(req) <= maxKeptBuffer {
			cn.wbuf = req
		}
		p, err := cn.roundTrip(ctx, req, &c.changes)
		c.profileSent = true // or the connection is dropped
		if err != nil {
			return err
		}
		if t := pduType(p); t != pduResult && t != pduHighresResult {
			return fmt.Errorf("%w: fetch answered with PDU type %#x", pmclient.ErrIPC, t)
		}
		res, err = decodeResult(p, c.types, &c.dec)
		return err
	})
	return res, err
}

// Version implements pmclient.Source: pmcd.version.
func (c *Client) Version(ctx context.Context) (string, error) { return pmclient.FetchVersion(ctx, c) }

// LookupInstance asks the PMDA for the instance of an external name
// (pmLookupInDom): the PMDA decides how names match.
func (c *Client) LookupInstance(ctx context.Context, indom pmapi.InDom, name string) (int32, error) {
	var id int32
	err := c.do(ctx, func(cn *conn) error {
		if err := c.sendProfile(ctx, cn); err != nil {
			return err
		}
		var w builder
		w.u32(uint32(indom))
		w.u32(0)
		w.u32(0)
		w.i32(-1)
		w.str(name)
		p, err := cn.roundTrip(ctx, w.pdu(pduInstanceReq), nil)
		if err != nil {
			return err
		}
		insts, err := decodeInstances(p)
		if err != nil {
			return err
		}
		if len(insts) == 0 {
			return pmclient.ErrUnknownInst
		}
		// An empty name is a request for every instance: libpcp takes the
		// first one, and so do we.
		id = insts[0].ID
		return nil
	})
	return id, err
}
