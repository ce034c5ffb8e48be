package pmproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

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
