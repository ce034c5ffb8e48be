package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// Bounds of the LSP base protocol as this server reads it. The client is
// trusted to speak LSP, not to be well-behaved: a peer that never sends a
// newline, or declares a huge Content-Length, must not make the server
// allocate without limit (jsonrpc2 v1.0.1's reader grows a header line
// forever and accepts bodies up to 1 GiB).
const (
	// MaxHeaderLine is the longest header line accepted, terminator
	// included. Real headers ("Content-Length: N", "Content-Type: …") are
	// under 100 bytes; a longer line is a framing error and ends the
	// session.
	MaxHeaderLine = 4 << 10
	// MaxHeaderBlock bounds all header lines of one message together, so
	// a stream of short header lines without the blank line cannot keep
	// the reader busy forever.
	MaxHeaderBlock = 64 << 10
	// MaxMessageSize is the largest message body read. A larger body is
	// skipped without being held in memory and answered with an
	// InvalidRequest error (id null); the session goes on. 64 MiB is well
	// above the largest config a client would send (whole-document sync
	// of a 16 MiB file, JSON-escaped).
	MaxMessageSize = 64 << 20
)

// FramingError is a message header the server cannot read past: the
// stream is out of step with the client, so the session ends with it.
type FramingError struct {
	Problem string // what was wrong, for the log
}

func (e *FramingError) Error() string { return "LSP framing: " + e.Problem }

// boundedStream reads LSP base-protocol frames under the limits above and
// writes with the library's header framing. A body that is not JSON-RPC,
// or is too large, is answered with an error (id null, as JSON-RPC asks)
// and reading goes on: the frame was consumed whole, so the stream is
// still in step.
type boundedStream struct {
	in     *bufio.Reader
	out    jsonrpc2.Stream // writes only
	conn   io.Writer       // for the error replies, serialised with out's writes
	closer io.Closer
	log    *zap.Logger
	lim    frameLimits
}

// frameLimits are the bounds a boundedStream reads under: the constants
// above, the body's set by serve --max-message-size. The fuzz target
// lowers them so that small inputs reach them.
type frameLimits struct {
	line, block int   // MaxHeaderLine, MaxHeaderBlock
	body        int64 // MaxMessageSize
}

// serverLimits are the bounds Serve reads under; maxBody <= 0 means
// MaxMessageSize.
func serverLimits(maxBody int64) frameLimits {
	if maxBody <= 0 {
		maxBody = MaxMessageSize
	}
	return frameLimits{line: MaxHeaderLine, block: MaxHeaderBlock, body: maxBody}
}

func newBoundedStream(conn *lockedConn, log *zap.Logger, lim frameLimits) *boundedStream {
	return &boundedStream{
		// The buffer size is the header line bound: ReadSlice fails with
		// ErrBufferFull on a longer line instead of growing.
		in:     bufio.NewReaderSize(conn, lim.line),
		out:    jsonrpc2.NewHeaderStream(conn),
		conn:   conn,
		closer: conn,
		log:    log,
		lim:    lim,
	}
}

func (s *boundedStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.out.Write(ctx, msg)
}

func (s *boundedStream) Close() error { return s.closer.Close() }

func (s *boundedStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, hdr, err := s.readHeader()
		if err != nil {
			return nil, 0, err
		}
		if length > s.lim.body {
			if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
				return nil, 0, fmt.Errorf("skipping an oversized message body: %w", unexpected(err))
			}
			s.log.Error("message too large: skipped", zap.Int64("contentLength", length), zap.Int64("limit", s.lim.body))
			if err := s.replyError(jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is over the server's %d-byte limit: skipped", length, s.lim.body)); err != nil {
				return nil, 0, err
			}
			continue
		}
		body, err := readBody(s.in, length)
		if err != nil {
			return nil, 0, fmt.Errorf("reading a %d-byte message body: %w", length, unexpected(err))
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.log.Warn("malformed message", zap.Error(err))
			if err := s.replyError(jsonrpc2.ParseError, "parse error: "+err.Error()); err != nil {
				return nil, 0, err
			}
			continue
		}
		return msg, int64(hdr) + length, nil
	}
}

// appendFrameHeader appends the base protocol's header of a body of n
// bytes to dst.
func appendFrameHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}

// readHeader reads one header block and returns the declared body length
// and the header's size.
func (s *boundedStream) readHeader() (length int64, size int, err error) {
	length = -1
	for {
		line, err := s.in.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return 0, 0, &FramingError{Problem: fmt.Sprintf("header line longer than %d bytes (starts %q)", s.lim.line, prefix(line))}
		case errors.Is(err, io.EOF) && size == 0 && len(line) == 0:
			return 0, 0, io.EOF // the client closed between messages
		case err != nil:
			return 0, 0, fmt.Errorf("reading a message header: %w", unexpected(err))
		}
		size += len(line)
		if size > s.lim.block {
			return 0, 0, &FramingError{Problem: fmt.Sprintf("message header longer than %d bytes", s.lim.block)}
		}
		field := bytes.TrimRight(line, "\r\n")
		if len(field) == 0 {
			break
		}
		name, value, ok := bytes.Cut(field, []byte(":"))
		if !ok {
			return 0, 0, &FramingError{Problem: fmt.Sprintf("header line without a colon: %q", prefix(field))}
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type and unknown fields are ignored
		}
		v := string(bytes.TrimSpace(value))
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || n <= 0 || v[0] == '+' {
			return 0, 0, &FramingError{Problem: fmt.Sprintf("invalid Content-Length %q: want a positive decimal byte count", prefix([]byte(v)))}
		}
		length = n
	}
	if length < 0 {
		return 0, 0, &FramingError{Problem: "message header without a Content-Length"}
	}
	return length, size, nil
}

// bodyStep is the buffer a message body is first read into; readBody
// doubles it as the bytes arrive.
const bodyStep = 64 << 10

// readBody reads a body of exactly n bytes. Its buffer grows with the
// bytes that actually arrive, never ahead of them by more than their
// count: a Content-Length is only a claim, and a client that declares
// 60 MiB and then sends ten bytes (or closes) must not cost 60 MiB.
func readBody(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, bodyStep))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(n-int64(len(buf)), int64(len(buf)))))
		}
		m, err := r.Read(buf[len(buf):int(min(int64(cap(buf)), n))])
		buf = buf[:len(buf)+m]
		if err != nil && int64(len(buf)) < n {
			return nil, err
		}
	}
	return buf, nil
}

// replyError answers a message the server could not read with an error
// whose id is null: the server cannot know which request it was.
func (s *boundedStream) replyError(code jsonrpc2.Code, msg string) error {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, code, msg)
	if _, err := fmt.Fprintf(s.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return fmt.Errorf("answering an unreadable message: %w", err)
	}
	return nil
}

// unexpected reports a stream that ended inside a message as such.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// prefix shortens hostile input quoted in a log message.
func prefix(b []byte) []byte {
	const n = 64
	if len(b) > n {
		return b[:n]
	}
	return b
}
