package pmcd

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Endpoint is where pmcd listens: a unix socket or a TCP address.
type Endpoint struct {
	Network string // "unix" or "tcp"
	Address string
}

// Endpoints resolves a PCP host specification to the endpoints to try in
// order, as libpcp connects (PCPIntro(1)):
//   - "" and "local:" the unix socket ($PMCD_SOCKET), then localhost over
//     TCP; "local:PATH" that socket, then localhost over TCP;
//   - "unix:" and "unix:PATH" the socket only;
//   - anything else a host over TCP, "localhost" included: "HOST",
//     "HOST:PORT[,PORT...]", "[V6ADDR]:PORT" or a bare IPv6 address,
//     each port in turn ($PMCD_PORT's list, default 44321, when the spec
//     names none).
//
// A pmproxy relay ("HOST@PROXY") and connection attributes ("HOST?...")
// are refused: this client speaks to pmcd directly, without them.
func Endpoints(spec string, getenv func(string) string) ([]Endpoint, error) {
	socket := getenv("PMCD_SOCKET")
	if socket == "" {
		socket = "/run/pcp/pmcd.socket"
	}
	ports := []string{"44321"}
	if p := getenv("PMCD_PORT"); p != "" {
		var err error
		if ports, err = portList(p); err != nil {
			return nil, fmt.Errorf("$PMCD_PORT %q: %w", p, err)
		}
	}
	tcp := func(host string, ports []string) []Endpoint {
		eps := make([]Endpoint, len(ports))
		for i, p := range ports {
			eps[i] = Endpoint{"tcp", net.JoinHostPort(host, p)}
		}
		return eps
	}
	switch {
	case spec == "" || spec == "local:":
		return append([]Endpoint{{"unix", socket}}, tcp("localhost", ports)...), nil
	case strings.HasPrefix(spec, "unix:"):
		if p := strings.TrimPrefix(spec, "unix:"); p != "" {
			socket = p
		}
		return []Endpoint{{"unix", socket}}, nil
	case strings.HasPrefix(spec, "local:"):
		return append([]Endpoint{{"unix", strings.TrimPrefix(spec, "local:")}}, tcp("localhost", ports)...), nil
	}
	if i := strings.IndexAny(spec, "@?"); i >= 0 {
		what := "a pmproxy relay (HOST@PROXY)"
		if spec[i] == '?' {
			what = "connection attributes (HOST?ATTRIBUTES)"
		}
		return nil, fmt.Errorf("host %q: %s not supported: name pmcd's host and port (use --pmproxy for pmproxy's REST API)", spec, what)
	}
	host, portSpec := spec, ""
	switch {
	case strings.HasPrefix(spec, "["):
		end := strings.Index(spec, "]")
		if end < 0 {
			return nil, fmt.Errorf("host %q: no closing ] after the address", spec)
		}
		host, portSpec = spec[1:end], spec[end+1:]
		if portSpec != "" && !strings.HasPrefix(portSpec, ":") {
			return nil, fmt.Errorf("host %q: %q after the address", spec, portSpec)
		}
		portSpec = strings.TrimPrefix(portSpec, ":")
		if portSpec == "" && strings.HasSuffix(spec, ":") {
			return nil, fmt.Errorf("host %q: no port after the colon", spec)
		}
	case strings.Count(spec, ":") > 1:
		// A bare IPv6 address: no port.
	default:
		if h, p, ok := strings.Cut(spec, ":"); ok {
			host, portSpec = h, p
			if p == "" {
				return nil, fmt.Errorf("host %q: no port after the colon", spec)
			}
		}
	}
	if host == "" {
		return nil, fmt.Errorf("host %q: empty host name", spec)
	}
	if portSpec != "" {
		var err error
		if ports, err = portList(portSpec); err != nil {
			return nil, fmt.Errorf("host %q: %w", spec, err)
		}
	}
	return tcp(host, ports), nil
}

// portList parses "PORT[,PORT...]", the ports libpcp tries in turn.
func portList(s string) ([]string, error) {
	var ports []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.ParseUint(f, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%q is not a port number", f)
		}
		ports = append(ports, strconv.FormatUint(n, 10))
	}
	return ports, nil
}

// conn is one connection to pmcd after a successful handshake.
type conn struct {
	nc       net.Conn
	sock     *sockIO       // nc's reads and writes (see sockIO)
	br       *bufio.Reader // over sock: a PDU usually arrives whole, one read call for it
	endpoint Endpoint
	features uint16
	timeout  time.Duration // for each PDU read or written
	deadline time.Duration // for each request as a whole
	maxPDU   int
	// rbuf holds the PDU read last (see read); wbuf the request written
	// last (see Client.Fetch). Both are reused while they stay small.
	rbuf  []byte
	wbuf  []byte
	hdr   [headerLen]byte // read's, here so that it is not allocated per PDU
	watch cancelWatch
}

// maxKeptBuffer is the largest read or write buffer a conn keeps for the
// next PDU: a rare large reply (a whole PMNS) does not stay allocated.
const maxKeptBuffer = 1 << 20

// dial connects to the first endpoint that answers and shakes hands, each
// attempt within the connect timeout.
func dial(ctx context.Context, eps []Endpoint, opts Options) (*conn, error) {
	var errs []error
	for _, ep := range eps {
		c, err := dialOne(ctx, ep, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return c, nil
	}
	return nil, errors.Join(errs...)
}

// dialOne connects to ep and shakes hands. The handshake is a request
// like any other: it must end within the request deadline.
func dialOne(ctx context.Context, ep Endpoint, opts Options) (*conn, error) {
	d := net.Dialer{Timeout: opts.ConnectTimeout}
	nc, err := d.DialContext(ctx, ep.Network, ep.Address)
	if err != nil {
		return nil, err
	}
	sock := newSockIO(nc)
	c := &conn{nc: nc, sock: sock, br: bufio.NewReaderSize(sock, 16<<10), endpoint: ep, timeout: opts.RequestTimeout, deadline: opts.RequestDeadline, maxPDU: opts.MaxPDU}
	rq := c.begin(ctx)
	if err := c.handshake(rq); err != nil {
		c.close()
		return nil, fmt.Errorf("%s %s: %w", ep.Network, ep.Address, err)
	}
	return c, nil
}

// DeadlineError is the error of a request that did not end within the
// request deadline (Options.RequestDeadline). Notices counts the positive
// ERROR PDUs (pmcd state-change notices) received while waiting: a peer
// can keep a request alive with them, but not past the deadline.
type DeadlineError struct {
	Deadline time.Duration
	Notices  int
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("%v: no complete answer within the request deadline of %v (%d state-change notices received; raise the deadline with $PCP_DERIVE_LSP_PMCD_DEADLINE)",
		pmclient.ErrTimeout, e.Deadline, e.Notices)
}

// Unwrap makes a deadline error a pmclient.ErrTimeout: the connection is
// then dropped, since the answer may still arrive.
func (e *DeadlineError) Unwrap() error { return pmclient.ErrTimeout }

// request is one request's timing: the caller's context and the request
// deadline (Options.RequestDeadline from its start). It allocates nothing
// while the requests' contexts share a Done channel (see cancelWatch),
// and a fetch costs no timers of its own.
type request struct {
	ctx     context.Context
	c       *conn
	expires time.Time
}

// begin starts a request.
func (c *conn) begin(ctx context.Context) request {
	if done := ctx.Done(); done != nil {
		c.watch.follow(ctx, done, c.nc)
	} else {
		// A context that is never cancelled: an earlier one's watch must
		// not cut this request short when that one is.
		c.watch.release()
	}
	return request{ctx: ctx, c: c, expires: time.Now().Add(c.deadline)}
}

// cancelWatch ends a blocking socket call when the caller's context is
// cancelled, by moving the socket's deadlines to now. One watch serves
// every request whose context shares its Done channel (an eval's samples,
// a session's fetches): a context.AfterFunc per request would cost
// three allocations and about 1% of a fetch's time. The conn's
// requests are serial and own it; only the watch's function runs beside
// them. The watch holds its context until another replaces it or the
// conn closes: a Client left unclosed under a long-lived context stays
// reachable from it.
type cancelWatch struct {
	mu   sync.Mutex
	done <-chan struct{} // the Done channel watched; nil for none
	stop func() bool
}

// follow watches ctx (whose Done channel is done) from now on, unless a
// context with the same Done channel is watched already.
func (w *cancelWatch) follow(ctx context.Context, done <-chan struct{}, nc net.Conn) {
	if w.done == done {
		// Watched: if ctx is cancelled, its deadline is set or about to
		// be, and write and read see ctx.Err() before they wait.
		return
	}
	w.release()
	w.mu.Lock()
	w.done = done
	w.mu.Unlock()
	w.stop = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		// A watch replaced meanwhile must not cut a later request short.
		if w.done == done {
			nc.SetDeadline(time.Now())
		}
	})
}

// release stops watching. A watch function already running sees that
// and leaves the socket alone.
func (w *cancelWatch) release() {
	if w.stop == nil && w.done == nil {
		return
	}
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.mu.Lock()
	w.done = nil
	w.mu.Unlock()
}

// handshake reads pmcd's challenge and sends plain credentials.
func (c *conn) handshake(rq request) error {
	p, err := c.read(rq)
	if err != nil {
		return fmt.Errorf("waiting for pmcd's greeting: %w", err)
	}
	if pduType(p) != pduError || len(p) != 20 {
		return fmt.Errorf("%w: greeting is a %d-byte PDU of type %#x, not pmcd's 20-byte ERROR", pmclient.ErrIPC, len(p), pduType(p))
	}
	status := int32(binary.BigEndian.Uint32(p[12:]))
	if status != 0 {
		if status <= -1000 && status > -12345 {
			status += 1000 - 12345 // PCP 1.x numbering
		}
		return fmt.Errorf("pmcd refused the connection: %w", pmclient.Error(status))
	}
	challenge := binary.BigEndian.Uint32(p[16:])
	if version := challenge >> 24 & 0x7f; version != 2 {
		return fmt.Errorf("%w: pmcd speaks protocol version %d, not 2", pmclient.ErrIPC, version)
	}
	c.features = uint16(challenge)
	local := c.endpoint.Network == "unix"
	switch {
	case c.features&featureCredsReqd != 0 && !local:
		return errors.New("pmcd requires authenticated (SASL) connections, which pcp-derive-lsp does not support: use the unix socket or a pmcd without -S")
	case c.features&featureCertReqd != 0 && !local:
		return errors.New("pmcd requires TLS client certificates, which pcp-derive-lsp does not support")
	}
	var flags uint32
	if c.features&featureCredsReqd != 0 {
		flags |= featureCredsReqd
	}
	var w builder
	w.u32(1)                         // one credential
	w.u32(0x01020000 | flags&0xffff) // CVERSION, version 2, flags
	pdu := w.pdu(pduCreds)
	binary.BigEndian.PutUint32(pdu[8:], uint32(os.Getpid()))
	return c.write(rq, pdu)
}

// ioDeadline is the earliest of the request timeout from now, the
// request deadline and the context's.
func (rq request) ioDeadline() time.Time {
	d := time.Now().Add(rq.c.timeout)
	if rq.expires.Before(d) {
		d = rq.expires
	}
	if cd, ok := rq.ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return d
}

func (c *conn) write(rq request, pdu []byte) error {
	if len(pdu) > maxClientPDU {
		return fmt.Errorf("request of %d bytes is over pmcd's %d-byte limit", len(pdu), maxClientPDU)
	}
	c.nc.SetWriteDeadline(rq.ioDeadline())
	if err := rq.ctx.Err(); err != nil {
		// Cancelled before the deadline above was set: the watch's
		// deadline may have been overwritten.
		return context.Cause(rq.ctx)
	}
	if _, err := c.sock.Write(pdu); err != nil {
		return c.ioError(rq, err)
	}
	return nil
}

// read reads one whole PDU within the request timeout. The PDU is in a
// buffer the next read reuses: callers decode it (copying what they keep)
// before they read again.
func (c *conn) read(rq request) ([]byte, error) {
	c.nc.SetReadDeadline(rq.ioDeadline())
	if err := rq.ctx.Err(); err != nil {
		return nil, context.Cause(rq.ctx)
	}
	hdr := c.hdr[:]
	if _, err := io.ReadFull(c.br, hdr); err != nil {
		return nil, c.ioError(rq, err)
	}
	n := int(binary.BigEndian.Uint32(hdr))
	if n < headerLen || n > c.maxPDU {
		return nil, fmt.Errorf("%w: PDU length %d (limit %d)", pmclient.ErrIPC, n, c.maxPDU)
	}
	if t := int32(binary.BigEndian.Uint32(hdr[4:])); t < 0 {
		return nil, fmt.Errorf("%w: PDU type %d", pmclient.ErrIPC, t)
	}
	p := c.rbuf
	if cap(p) < n {
		p = make([]byte, n)
	}
	p = p[:n]
	if n <= maxKeptBuffer {
		c.rbuf = p
	}
	copy(p, hdr)
	if _, err := io.ReadFull(c.br, p[headerLen:]); err != nil {
		return nil, c.ioError(rq, err)
	}
	return p, nil
}

// ioError says why a socket call failed: the caller's cancellation or
// deadline, the request deadline, the request timeout, or the peer.
func (c *conn) ioError(rq request, err error) error {
	ctx := rq.ctx
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	now := time.Now()
	if d, ok := ctx.Deadline(); ok && !now.Before(d) && !rq.expires.Before(d) {
		// The socket gave up at the context's deadline; its timer, which
		// sets the cause, fires at the same instant or just after.
		<-ctx.Done()
		return context.Cause(ctx)
	}
	if !now.Before(rq.expires) {
		return &DeadlineError{Deadline: c.deadline}
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w after %v", pmclient.ErrTimeout, c.timeout)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: pmcd closed the connection", pmclient.ErrEOF)
	}
	return err
}

// roundTrip sends a request and returns its reply, all within the
// request deadline. A negative ERROR reply becomes a pmclient.Error;
// positive ones (pmcd state changes, sent before a fetch result) are
// collected in changes. The reply is valid until the next read.
func (c *conn) roundTrip(ctx context.Context, req []byte, changes *int32) ([]byte, error) {
	rq := c.begin(ctx)
	if err := c.write(rq, req); err != nil {
		return nil, err
	}
	return c.reply(rq, changes)
}

// reply reads the answer to one request (see roundTrip).
func (c *conn) reply(rq request, changes *int32) ([]byte, error) {
	for notices := 0; ; notices++ {
		p, err := c.read(rq)
		if err != nil {
			if de, ok := err.(*DeadlineError); ok {
				return nil, &DeadlineError{Deadline: de.Deadline, Notices: notices}
			}
			return nil, err
		}
		if pduType(p) != pduError {
			return p, nil
		}
		code, err := decodeError(p)
		switch {
		case err != nil:
			return nil, err
		case code > 0 && changes != nil:
			*changes |= code
			continue
		case code < 0:
			return nil, pmclient.Error(code)
		}
		return p, nil
	}
}

// pipelineWindow is how many requests roundTrips has outstanding at once:
// small requests, so that pmcd never waits to write a reply while we wait
// to write a request.
const pipelineWindow = 64

// roundTrips sends n requests and hands each reply to handle in order,
// writing up to pipelineWindow requests before reading their replies
// (pmcd answers in order): n round trips cost about n/64 network waits.
// encode appends request i to dst. handle gets the reply (valid until
// handle returns) or pmcd's error for that request; an error it returns,
// or any other failure, ends the exchange.
func (c *conn) roundTrips(ctx context.Context, n int, encode func(dst []byte, i int) []byte, handle func(i int, p []byte, err error) error) error {
	rq := c.begin(ctx)
	for start := 0; start < n; start += pipelineWindow {
		end := min(start+pipelineWindow, n)
		buf := c.wbuf[:0]
		for i := start; i < end; i++ {
			buf = encode(buf, i)
		}
		if cap(buf) <= maxKeptBuffer {
			c.wbuf = buf
		}
		if err := c.write(rq, buf); err != nil {
			return err
		}
		for i := start; i < end; i++ {
			p, err := c.reply(rq, nil)
			if _, ok := pmcdError(err); err != nil && !ok {
				return err
			}
			if err := handle(i, p, err); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *conn) close() error {
	c.watch.release()
	return c.nc.Close()
}
