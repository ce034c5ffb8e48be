package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// fuzzConn is a client that sends a fixed byte string and records what
// the server writes back.
type fuzzConn struct {
	io.Reader
	out bytes.Buffer
}

func (c *fuzzConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *fuzzConn) Close() error                { return nil }

// frameSeeds are the framing attacks of issue #12 and their neighbours,
// also stored as the corpus in testdata/fuzz/FuzzFrame.
var frameSeeds = []string{
	"Content-Length: 2\r\n\r\n{}",
	frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
	"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(`{"jsonrpc":"2.0","method":"initialized"}`),
	"Content-Type: application/json\r\n\r\n{}",                  // no Content-Length
	"Content-Length: -1\r\n\r\n{}",                              // negative
	"Content-Length: 0\r\n\r\n",                                 // zero
	"Content-Length: +5\r\n\r\n{}",                              // signed
	"Content-Length: 99999999999999999999999\r\n\r\n",           // overflow
	"Content-Length 12\r\n\r\n",                                 // no colon
	strings.Repeat("X", fuzzLimits.line+10),                     // header line without newline
	strings.Repeat("X-A: b\r\n", fuzzLimits.block/8+1) + "\r\n", // header block without end
	"Content-Length: 67108864\r\n\r\n{\"jsonrpc\"",              // a claim at the body limit, cut short
	"Content-Length: 67108865\r\n\r\n{}",                        // a body over the limit, cut short
	"Content-Length: 1073741824\r\n\r\n",                        // jsonrpc2's own limit
	"Content-Length: 4\r\n\r\nnope",                             // not JSON
	"Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]",    // two messages
	"Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n",          // ends inside a header
	"Content-Length: 5\nContent-Length: 2\n\n{}",                // bare newlines, repeated field
	"Content-Length: 2\r\n\r\n{",                                // ends inside a body
}

// fuzzLimits are the server's framing limits scaled down, so that short
// inputs reach the header bounds (the fuzzer minimises slowly over long
// ones); the body limit stays, to exercise buffers growing with the data.
var fuzzLimits = frameLimits{line: 64, block: 256, body: MaxMessageSize}

// frame is body with its header.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// FuzzFrame feeds arbitrary bytes to the server's framing reader: it
// must end (the input is finite) with a clean end of stream, a
// FramingError or a truncated stream, never a panic; what it consumes
// and allocates is bounded by what it was sent (the buffer of a
// declared body grows only with the bytes that arrive); and every error
// reply it writes is a frame its own reader accepts, with id null.
func FuzzFrame(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		conn := &fuzzConn{Reader: bytes.NewReader(data)}
		s := newBoundedStream(&lockedConn{ReadWriteCloser: conn}, zap.NewNop(), fuzzLimits)
		var consumed int64
		var err error
		for {
			var n int64
			_, n, err = s.Read(context.Background())
			if err != nil {
				break
			}
			consumed += n
			if consumed > int64(len(data)) {
				t.Fatalf("messages of %d bytes read from %d bytes", consumed, len(data))
			}
		}
		var fe *FramingError
		if !errors.Is(err, io.EOF) && !errors.As(err, &fe) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Read ended with %v (%T), want io.EOF, a FramingError or io.ErrUnexpectedEOF", err, err)
		}
		checkReplies(t, conn.out.Bytes())
	})
}

// checkReplies reads the server's error replies back with its own
// framing reader: each must be a JSON-RPC error response with id null.
func checkReplies(t *testing.T, out []byte) {
	t.Helper()
	r := &boundedStream{in: bufio.NewReaderSize(bytes.NewReader(out), MaxHeaderLine), log: zap.NewNop(), lim: serverLimits(0), conn: io.Discard}
	for {
		msg, _, err := r.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("an error reply is not a frame: %v\n%q", err, out)
		}
		resp, ok := msg.(*jsonrpc2.Response)
		if !ok || resp.Err() == nil || resp.ID() != (jsonrpc2.ID{}) {
			t.Fatalf("reply %+v: want an error response with id null", msg)
		}
	}
}

// TestBodyBufferGrowsWithData: a body declared at 60 MiB of which ten
// bytes arrive costs about the bytes that arrived, not the claim (the
// reader allocated the declared length up front).
func TestBodyBufferGrowsWithData(t *testing.T) {
	in := "Content-Length: 62914560\r\n\r\n{\"jsonrpc\""
	conn := &fuzzConn{Reader: strings.NewReader(in)}
	s := newBoundedStream(&lockedConn{ReadWriteCloser: conn}, zap.NewNop(), serverLimits(0))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := s.Read(context.Background())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Read: %v, want io.ErrUnexpectedEOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("reading a truncated 60 MiB body allocated %d bytes, want under 1 MiB", got)
	}
}

// TestReadBody: bodies of every size around the buffer's steps are read
// whole, and one cut short is an error.
func TestReadBody(t *testing.T) {
	for _, n := range []int{1, bodyStep - 1, bodyStep, bodyStep + 1, 3*bodyStep + 7, 1 << 20} {
		src := bytes.Repeat([]byte("x"), n)
		// A first read of one byte, then the rest.
		got, err := readBody(io.MultiReader(bytes.NewReader(src[:1]), bytes.NewReader(src[1:])), int64(n))
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
		if _, err := readBody(bytes.NewReader(src[:n-1]), int64(n)); !errors.Is(err, io.EOF) {
			t.Errorf("%d bytes cut short: %v, want io.EOF", n, err)
		}
	}
}
