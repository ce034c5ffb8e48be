package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ownedstream"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pipesize"
)

// The keystroke benchmarks' stand-in: a server that does no work at all.
// It answers initialize, and each didChange with a publishDiagnostics
// recorded from the real server for a version of the same parity (the
// text typed, or taken back), its version set to the didChange's: the
// same bytes, through the same kind of pipe (grown to the real server's
// size), to the same client. What a keystroke costs it is the floor under
// the real server's figure that no server work can lower: reading the
// didChange, writing the publication and the client reading it, at the
// publication's size, which the protocol sets (every finding of the
// document, with every change).

// standInEnv names the file of recorded publications that turns the test
// binary into the stand-in (TestMain).
const standInEnv = "LSP_BENCH_STANDIN"

// standInFrames is what the stand-in sends: a publication's body before
// its version's digits and after them, for even and for odd versions.
type standInFrames [2]struct{ before, after []byte }

// splitAtVersion cuts a publishDiagnostics body around its version number.
func splitAtVersion(body []byte) (before, after []byte, err error) {
	const key = `"version":`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return nil, nil, fmt.Errorf("no version in the publication %.80s", body)
	}
	i += len(key)
	j := i
	for j < len(body) && body[j] >= '0' && body[j] <= '9' {
		j++
	}
	if j == i {
		return nil, nil, fmt.Errorf("no version number in the publication %.80s", body)
	}
	return body[:i], body[j:], nil
}

// startStandIn writes the two publications (even and odd versions) where
// the stand-in reads them and starts it, speaking JSON-RPC over its stdin
// and stdout as benchServer's server does; it is stopped when b ends.
func startStandIn(b testing.TB, even, odd []byte) *stdioClient {
	for _, body := range [][]byte{even, odd} {
		if _, _, err := splitAtVersion(body); err != nil {
			b.Fatal(err)
		}
	}
	recorded, err := json.Marshal([]json.RawMessage{even, odd})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "publications.json")
	if err := os.WriteFile(path, recorded, 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), standInEnv+"="+path)
	c, _ := startChild(b, cmd)
	if err := c.request("initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}); err != nil {
		b.Fatal(err)
	}
	return c
}

// runStandIn is the stand-in's main: it serves stdin and stdout with the
// publications recorded in the file at path until its input ends.
func runStandIn(path string) error {
	var recorded []json.RawMessage
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &recorded); err != nil || len(recorded) != 2 {
		return fmt.Errorf("%s: want two recorded publications: %v", path, err)
	}
	var frames standInFrames
	for i, body := range recorded {
		if frames[i].before, frames[i].after, err = splitAtVersion(body); err != nil {
			return err
		}
	}
	// As the server grows its own: a pipe that stays at 64 KB blocks
	// each write of a large publication, and would make the floor the
	// pipe's and not the protocol's.
	if err := pipesize.Grow(os.Stdout, pipesize.Stdout); err != nil {
		return err
	}
	return serveStandIn(os.Stdin, os.Stdout, frames)
}

// serveStandIn answers the messages read from r on w: initialize with no
// capabilities, each didChange with its parity's publication.
func serveStandIn(r io.Reader, w io.Writer, frames standInFrames) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head := make([]byte, 0, 256)
	for {
		body, err := readFrame(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TextDocument struct {
					Version int `json:"version"`
				} `json:"textDocument"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			return fmt.Errorf("reading a message: %w", err)
		}
		switch msg.Method {
		case "initialize":
			reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"capabilities":{}}}`, msg.ID)
			if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(reply), reply); err != nil {
				return err
			}
		case "textDocument/didChange":
			v := msg.Params.TextDocument.Version
			f := frames[v%2]
			digits := strconv.AppendInt(nil, int64(v), 10)
			head = fmt.Appendf(head[:0], "Content-Length: %d\r\n\r\n", len(f.before)+len(digits)+len(f.after))
			head = append(append(head, f.before...), digits...)
			if _, err := w.Write(head); err != nil {
				return err
			}
			if _, err := w.Write(f.after); err != nil {
				return err
			}
		}
	}
}

// readFrame reads one base-protocol message's body.
func readFrame(br *bufio.Reader) ([]byte, error) {
	length, err := readContentLength(br)
	if err != nil {
		return nil, err
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, err
	}
	return body, nil
}

// readContentLength reads a base-protocol message's header, the test
// clients' and the stand-in's one reading of it, up to the blank line,
// and returns its Content-Length.
func readContentLength(br *bufio.Reader) (int, error) {
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return 0, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return 0, fmt.Errorf("Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("a message without Content-Length")
	}
	return length, nil
}

// TestStandInAnswersAsRecorded: the stand-in sends each didChange the
// recorded publication of its parity with the didChange's version, and
// the initialize reply, framed as the protocol frames them.
func TestStandInAnswersAsRecorded(t *testing.T) {
	even := []byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///x","version":2,"diagnostics":[]}}`)
	odd := []byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///x","version":7,"diagnostics":[{"message":"m"}]}}`)
	var frames standInFrames
	for i, body := range [][]byte{even, odd} {
		var err error
		if frames[i].before, frames[i].after, err = splitAtVersion(body); err != nil {
			t.Fatal(err)
		}
	}
	var in bytes.Buffer
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///x","version":13}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///x","version":14}}}`,
	} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	var out bytes.Buffer
	if err := serveStandIn(&in, &out, frames); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(&out)
	var got []string
	for {
		body, err := readFrame(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(body))
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}`,
		strings.Replace(string(odd), `"version":7`, `"version":13`, 1),
		strings.Replace(string(even), `"version":2`, `"version":14`, 1),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the stand-in sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, _, err := splitAtVersion([]byte(`{"params":{"uri":"file:///x"}}`)); err == nil {
		t.Error("a publication without a version was split")
	}
}

// TestStandInProcess: the test binary, started with standInEnv, is the
// stand-in the keystroke benchmarks measure their floor with, and the
// benchmarks' client receives from it each keystroke's publication.
func TestStandInProcess(t *testing.T) {
	even := []byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///x","version":2,"diagnostics":[]}}`)
	odd := []byte(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///x","version":3,"diagnostics":[{"message":"a"},{"message":"b"}]}}`)
	c := startStandIn(t, even, odd)
	keystroke := func(v int, c *stdioClient) {
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file:///x", "version": v}})
	}
	typed := typeEach(t, c, 4, 10, 0, keystroke, [2]int{0, 2})
	if typed.published != 2*len(even)+2*len(odd)+4 { // versions 10 to 13: a digit more than 2 and 3
		t.Errorf("received %d bytes in all", typed.published)
	}
	if !bytes.Contains(typed.last[1], []byte(`"version":13,`)) || !bytes.Contains(typed.last[0], []byte(`"version":12,`)) {
		t.Errorf("the last publications were %s and %s", typed.last[0], typed.last[1])
	}
}

// startReplyStandIn is the request benchmarks' stand-in: a connection
// served as Serve serves one (the same stream, framing and codec), whose
// only handler answers a request of method with reply and anything else
// with null; and a client's connection to it. Its time for a request is
// the floor under the server's for a reply of that size.
func startReplyStandIn(tb testing.TB, method string, reply json.RawMessage) (context.Context, jsonrpc2.Conn) {
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	sconn := jsonrpc2.NewConn(newBoundedStream(&lockedConn{ReadWriteCloser: serverEnd}, zap.NewNop(), serverLimits(0)), jsonrpc2.WithCodec(codec{}))
	sconn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == method {
			return jsonrpc2.RawMessage(reply), nil // as the server's replies, sent as they are (codec)
		}
		return jsonrpc2.RawMessage("null"), nil
	})
	cctx, conn, _ := protocol.NewClient(ctx, newVersionRecorder(1), ownedstream.New(clientEnd))
	tb.Cleanup(func() { conn.Close(); sconn.Close(); cancel() })
	return cctx, conn
}

// standInFloor is the mean time of n requests of method with params to
// a stand-in that answers each with reply (startReplyStandIn).
func standInFloor(b *testing.B, n int, method string, params any, reply json.RawMessage) time.Duration {
	ctx, conn := startReplyStandIn(b, method, reply)
	var got json.RawMessage
	call := func() {
		if _, err := conn.Call(ctx, method, params, &got); err != nil || len(got) != len(reply) {
			b.Fatalf("the stand-in answered %s with %d bytes (%v), not %d", method, len(got), err, len(reply))
		}
	}
	call() // warm
	start := time.Now()
	for range n {
		call()
	}
	return time.Since(start) / time.Duration(n)
}

// TestReplyStandIn: the request stand-in answers its method with the
// reply it was given, byte for byte, and any other request with null.
func TestReplyStandIn(t *testing.T) {
	reply := json.RawMessage(`[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":4}},"target":"https://example.org/x"}]`)
	ctx, conn := startReplyStandIn(t, protocol.MethodTextDocumentDocumentLink, reply)
	var got json.RawMessage
	if _, err := conn.Call(ctx, protocol.MethodTextDocumentDocumentLink, map[string]any{"textDocument": map[string]any{"uri": "file:///x"}}, &got); err != nil || string(got) != string(reply) {
		t.Errorf("documentLink: %s, %v", got, err)
	}
	if _, err := conn.Call(ctx, protocol.MethodTextDocumentHover, map[string]any{}, &got); err != nil || string(got) != "null" {
		t.Errorf("hover: %s, %v", got, err)
	}
}
