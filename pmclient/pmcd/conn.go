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
	timeout  time.Duration
	maxPDU   int
}

// dial connects to the first endpoint that answers and shakes hands.
func dial(ctx context.Context, eps []Endpoint, connectTimeout, requestTimeout time.Duration, maxPDU int) (*conn, error) {
	var errs []error
	for _, ep := range eps {
		d := net.Dialer{Timeout: connectTimeout}
		nc, err := d.DialContext(ctx, ep.Network, ep.Address)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c := &conn{nc: nc, endpoint: ep, timeout: requestTimeout, maxPDU: maxPDU}
		if err := c.handshake(ctx); err != nil {
			nc.Close()
			errs = append(errs, fmt.Errorf("%s %s: %w", ep.Network, ep.Address, err))
			continue
		}
		return c, nil
	}
	return nil, errors.Join(errs...)
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

// deadline is the earlier of the request timeout and the context's.
func (c *conn) deadline(ctx context.Context) time.Time {
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
	c.nc.SetWriteDeadline(c.deadline(ctx))
	if _, err := c.nc.Write(pdu); err != nil {
		return c.ioError(ctx, err)
	}
	return nil
}

// read reads one whole PDU within the request timeout.
func (c *conn) read(ctx context.Context) ([]byte, error) {
	defer c.watch(ctx)()
	c.nc.SetReadDeadline(c.deadline(ctx))
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

func (c *conn) ioError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
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

// roundTrip sends a request and returns its reply. A negative ERROR reply
// becomes a pmclient.Error; positive ones (pmcd state changes, sent before
// a fetch result) are collected in changes.
func (c *conn) roundTrip(ctx context.Context, req []byte, changes *int32) ([]byte, error) {
	if err := c.write(ctx, req); err != nil {
		return nil, err
	}
	for {
		p, err := c.read(ctx)
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
