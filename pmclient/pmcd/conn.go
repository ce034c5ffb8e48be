package pmcd

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Endpoint is where pmcd listens: a unix socket or a TCP address.
type Endpoint struct {
	Network string // "unix" or "tcp"
	Address string
}

// Endpoints resolves a PCP host specification to the endpoints to try in
// order: "" and "local:" mean the unix socket, then TCP on localhost;
// "unix:" or "unix:/path" the socket only; anything else is "host",
// "host:port" or "[v6addr]:port" over TCP ($PMCD_PORT, default 44321).
func Endpoints(spec string, getenv func(string) string) ([]Endpoint, error) {
	socket := getenv("PMCD_SOCKET")
	if socket == "" {
		socket = "/run/pcp/pmcd.socket"
	}
	port := "44321"
	if p := getenv("PMCD_PORT"); p != "" {
		port = strings.TrimSpace(strings.Split(p, ",")[0])
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return nil, fmt.Errorf("$PMCD_PORT %q: not a port number", p)
		}
	}
	switch {
	case spec == "" || spec == "local:" || spec == "localhost":
		return []Endpoint{{"unix", socket}, {"tcp", net.JoinHostPort("localhost", port)}}, nil
	case strings.HasPrefix(spec, "unix:"):
		if p := strings.TrimPrefix(spec, "unix:"); p != "" {
			socket = p
		}
		return []Endpoint{{"unix", socket}}, nil
	case strings.HasPrefix(spec, "local:"):
		return []Endpoint{{"unix", strings.TrimPrefix(spec, "local:")}}, nil
	}
	host := spec
	if h, p, err := net.SplitHostPort(spec); err == nil {
		host, port = h, p
	} else if strings.Count(spec, ":") > 1 {
		host = strings.Trim(spec, "[]") // a bare IPv6 address
	}
	if host == "" {
		return nil, fmt.Errorf("host %q: empty host name", spec)
	}
	return []Endpoint{{"tcp", net.JoinHostPort(host, port)}}, nil
}

// conn is one connection to pmcd after a successful handshake.
type conn struct {
	nc       net.Conn
	endpoint Endpoint
	features uint16
	timeout  time.Duration // for each PDU read or written
	deadline time.Duration // for each request as a whole
	maxPDU   int
}

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
	c := &conn{nc: nc, endpoint: ep, timeout: opts.RequestTimeout, deadline: opts.RequestDeadline, maxPDU: opts.MaxPDU}
	hctx, cancel := c.request(ctx)
	defer cancel()
	if err := c.handshake(hctx); err != nil {
		nc.Close()
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

// request derives the context of one request: its deadline is the
// request deadline from now, or the caller's if that is sooner, and
// its cause a *DeadlineError whose Notices roundTrip fills in.
func (c *conn) request(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.deadline, &DeadlineError{Deadline: c.deadline})
}

// handshake reads pmcd's challenge and sends plain credentials.
func (c *conn) handshake(ctx context.Context) error {
	p, err := c.read(ctx)
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
	return c.write(ctx, pdu)
}

// ioDeadline is the earlier of the request timeout and the context's.
func (c *conn) ioDeadline(ctx context.Context) time.Time {
	d := time.Now().Add(c.timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return d
}

// watch makes a blocking socket call return when ctx is cancelled.
func (c *conn) watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { c.nc.SetDeadline(time.Now()) })
}

func (c *conn) write(ctx context.Context, pdu []byte) error {
	if len(pdu) > maxClientPDU {
		return fmt.Errorf("request of %d bytes is over pmcd's %d-byte limit", len(pdu), maxClientPDU)
	}
	defer c.watch(ctx)()
	c.nc.SetWriteDeadline(c.ioDeadline(ctx))
	if _, err := c.nc.Write(pdu); err != nil {
		return c.ioError(ctx, err)
	}
	return nil
}

// read reads one whole PDU within the request timeout.
func (c *conn) read(ctx context.Context) ([]byte, error) {
	defer c.watch(ctx)()
	c.nc.SetReadDeadline(c.ioDeadline(ctx))
	var hdr [headerLen]byte
	if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
		return nil, c.ioError(ctx, err)
	}
	n := int(binary.BigEndian.Uint32(hdr[:]))
	if n < headerLen || n > c.maxPDU {
		return nil, fmt.Errorf("%w: PDU length %d (limit %d)", pmclient.ErrIPC, n, c.maxPDU)
	}
	if t := int32(binary.BigEndian.Uint32(hdr[4:])); t < 0 {
		return nil, fmt.Errorf("%w: PDU type %d", pmclient.ErrIPC, t)
	}
	p := make([]byte, n)
	copy(p, hdr[:])
	if _, err := io.ReadFull(c.nc, p[headerLen:]); err != nil {
		return nil, c.ioError(ctx, err)
	}
	return p, nil
}

// ioError says why a socket call failed: the caller's cancellation or
// deadline, the request deadline, the request timeout, or the peer.
func (c *conn) ioError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		// The socket gave up at the context's deadline; its timer, which
		// sets the cause, fires at the same instant or just after.
		<-ctx.Done()
		return context.Cause(ctx)
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
// collected in changes.
func (c *conn) roundTrip(ctx context.Context, req []byte, changes *int32) ([]byte, error) {
	ctx, cancel := c.request(ctx)
	defer cancel()
	if err := c.write(ctx, req); err != nil {
		return nil, err
	}
	for notices := 0; ; notices++ {
		p, err := c.read(ctx)
		var de *DeadlineError
		if errors.As(err, &de) {
			return nil, &DeadlineError{Deadline: de.Deadline, Notices: notices}
		}
		if err != nil {
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

func (c *conn) close() error { return c.nc.Close() }
