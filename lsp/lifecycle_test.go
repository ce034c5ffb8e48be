package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// serverProcess is the built server binary running "serve", with stdin
// held open by the test (an editor that hangs on to the pipe).
type serverProcess struct {
	*rawClient
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	waited chan struct{}
	err    error // from Wait, once waited is closed
}

// syncBuffer is a bytes.Buffer written by exec's copying goroutine and read
// by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// buildServer builds cmd/pcp-derive-lsp into a test directory (removed
// when the test or benchmark ends), with the go command of the running
// toolchain.
func buildServer(tb testing.TB) string {
	tb.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	bin := filepath.Join(tb.TempDir(), "pcp-derive-lsp")
	// Static, as released (CGO_ENABLED=0): a cgo build links glibc, whose
	// malloc reserves 64 MB of address space per thread, and under the
	// address-space limit of TestOversizedBodyUnderMemoryLimit a busy
	// machine's extra threads made the server die at initialize.
	build := exec.Command(goTool, "build", "-o", bin, "../cmd/pcp-derive-lsp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("building the server: %v\n%s", err, out)
	}
	return bin
}

// startServer runs the binary, under prefix (e.g. prlimit) when given.
func startServer(t *testing.T, bin string, prefix ...string) *serverProcess {
	t.Helper()
	args := append(append([]string(nil), prefix...), bin, "serve", "--log-level", "debug")
	cmd := exec.Command(args[0], args[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serverProcess{cmd: cmd, stdin: stdin, stderr: &syncBuffer{}, waited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.rawClient = &rawClient{t: t, w: stdin, in: make(chan message, 1000), errs: make(chan error, 1)}
	go p.readLoop(bufio.NewReader(stdout))
	go func() { p.err = cmd.Wait(); close(p.waited) }()
	t.Cleanup(func() {
		select {
		case <-p.waited:
		default:
			cmd.Process.Kill()
			<-p.waited
		}
		stdin.Close()
	})
	return p
}

// status waits for the process to end by itself (stdin stays open) and
// returns its exit status. The bound only keeps a hung server from
// hanging the test run; a server that outlives it failed.
func (p *serverProcess) status() int {
	p.t.Helper()
	select {
	case <-p.waited:
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-p.waited
		p.t.Fatalf("the server is still running (stdin open); stderr:\n%s", p.stderr)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("wait: %v", p.err)
	}
	return 0
}

// TestExitEndsTheProcess: exit ends the server while its stdin stays open,
// with status 0 after shutdown and 1 without (LSP "exit"); requests before
// initialize get ServerNotInitialized, requests after shutdown
// InvalidRequest.
func TestExitEndsTheProcess(t *testing.T) {
	bin := buildServer(t)
	t.Run("after shutdown", func(t *testing.T) {
		p := startServer(t, bin)
		p.send(1, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///x.conf"}})
		if m := p.reply(1); m.Error == nil || m.Error.Code != -32002 {
			t.Errorf("request before initialize: want error -32002, got %+v %s", m.Error, m.Result)
		}
		p.send(2, "initialize", map[string]any{"capabilities": map[string]any{}})
		if m := p.reply(2); m.Error != nil {
			t.Fatalf("initialize: %+v", m.Error)
		}
		p.send(3, "initialize", map[string]any{"capabilities": map[string]any{}})
		if m := p.reply(3); m.Error == nil || m.Error.Code != -32600 {
			t.Errorf("second initialize: want error -32600, got %+v", m.Error)
		}
		p.send(nil, "initialized", map[string]any{})
		p.send(4, "shutdown", nil)
		if m := p.reply(4); m.Error != nil {
			t.Fatalf("shutdown: %+v", m.Error)
		}
		p.send(5, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///x.conf"}})
		if m := p.reply(5); m.Error == nil || m.Error.Code != -32600 {
			t.Errorf("request after shutdown: want error -32600, got %+v %s", m.Error, m.Result)
		}
		p.send(nil, "exit", nil)
		if st := p.status(); st != 0 {
			t.Errorf("exit after shutdown: status %d, want 0; stderr:\n%s", st, p.stderr)
		}
	})
	t.Run("without shutdown", func(t *testing.T) {
		p := startServer(t, bin)
		p.send(1, "initialize", map[string]any{"capabilities": map[string]any{}})
		if m := p.reply(1); m.Error != nil {
			t.Fatalf("initialize: %+v", m.Error)
		}
		p.send(nil, "exit", nil)
		if st := p.status(); st != 1 {
			t.Errorf("exit without shutdown: status %d, want 1; stderr:\n%s", st, p.stderr)
		}
	})
	t.Run("before initialize", func(t *testing.T) {
		p := startServer(t, bin)
		p.send(nil, "exit", nil)
		if st := p.status(); st != 1 {
			t.Errorf("exit before initialize: status %d, want 1; stderr:\n%s", st, p.stderr)
		}
	})
}

// TestFramingErrorsEndTheServer: a header the server cannot read past
// ends the session with a non-zero status and a log line naming the
// problem, even while stdin stays open; nothing is written to stdout.
func TestFramingErrorsEndTheServer(t *testing.T) {
	bin := buildServer(t)
	for _, tc := range []struct{ name, input, log string }{
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}", "without a Content-Length"},
		{"negative Content-Length", "Content-Length: -5\r\n\r\n{}", `invalid Content-Length \"-5\"`},
		{"non-numeric Content-Length", "Content-Length: 12abc\r\n\r\n{}", `invalid Content-Length \"12abc\"`},
		{"zero Content-Length", "Content-Length: 0\r\n\r\n", `invalid Content-Length \"0\"`},
		{"overflowing Content-Length", "Content-Length: 99999999999999999999999\r\n\r\n", "invalid Content-Length"},
		{"field without a colon", "Content-Length 12\r\n\r\n", "header line without a colon"},
		{"header line without a newline", strings.Repeat("X", 64<<10), "header line longer than 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startServer(t, bin)
			io.WriteString(p.stdin, tc.input)
			st := p.status()
			if st == 0 {
				t.Errorf("status 0 after a framing error")
			}
			if !strings.Contains(p.stderr.String(), tc.log) {
				t.Errorf("stderr lacks %q:\n%s", tc.log, p.stderr)
			}
			select {
			case m := <-p.in:
				t.Errorf("the server answered a broken frame: %+v", m)
			default:
			}
		})
	}
}

// TestOversizedBodyUnderMemoryLimit: a 1 GiB body (the most jsonrpc2
// v1.0.1 accepts, and allocates at once) is skipped with an error reply
// while the server runs under a 1000 MiB address-space limit, and the
// session goes on.
func TestOversizedBodyUnderMemoryLimit(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatalf("prlimit (util-linux) is needed to bound the server's memory: %v", err)
	}
	bin := buildServer(t)
	p := startServer(t, bin, prlimit, fmt.Sprintf("--as=%d", 1000<<20))
	p.send(1, "initialize", map[string]any{"capabilities": map[string]any{}})
	if m := p.reply(1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	const size = 1 << 30
	fmt.Fprintf(p.stdin, "Content-Length: %d\r\n\r\n", size)
	chunk := make([]byte, 1<<20)
	for i := 0; i < size/len(chunk); i++ {
		if _, err := p.stdin.Write(chunk); err != nil {
			t.Fatalf("writing the body: %v; status %d; stderr:\n%s", err, p.status(), p.stderr)
		}
	}
	m := p.read()
	if m.Error == nil || m.Error.Code != -32600 || m.ID != nil || !strings.Contains(m.Error.Message, "limit") {
		t.Errorf("oversized body: want error -32600 with id null, got %+v", m)
	}
	p.send(2, "shutdown", nil)
	if m := p.reply(2); m.Error != nil {
		t.Errorf("shutdown after the oversized body: %+v", m.Error)
	}
	p.send(nil, "exit", nil)
	if st := p.status(); st != 0 {
		t.Errorf("status %d, stderr:\n%s", st, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "message too large") {
		t.Errorf("no log of the skipped message:\n%s", p.stderr)
	}
}

// TestMessageSizeOption: Options.MaxMessageSize is honoured in process and
// the session goes on after the skipped message; notifications before
// initialize are dropped.
func TestMessageSizeOption(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	core, logs := observer.New(zap.DebugLevel)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, serverEnd, Options{Getenv: func(string) string { return "" }, Version: "test", MaxMessageSize: 1024, Logger: zap.New(core)})
	}()
	t.Cleanup(func() { clientEnd.Close(); cancel() })
	c := &rawClient{t: t, conn: clientEnd, w: clientEnd, in: make(chan message, 1000), errs: make(chan error, 1)}
	go c.readLoop(bufio.NewReader(clientEnd))

	c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///early.conf", "languageId": "pcp-derived", "version": 1, "text": "m.early = 1\n"}})
	c.send(1, "initialize", map[string]any{"initializationOptions": map[string]any{"source": map[string]any{"metadata": "embedded"}}})
	if m := c.reply(1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	c.send(2, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///early.conf"}})
	if m := c.reply(2); m.Error != nil || strings.Contains(string(m.Result), "m.early") {
		t.Errorf("a didOpen before initialize was kept: %+v %s", m.Error, m.Result)
	}
	c.send(3, "textDocument/hover", map[string]any{"padding": strings.Repeat("x", 2048)})
	var skipped message
	for skipped = c.read(); skipped.Method != ""; skipped = c.read() {
	}
	if skipped.Error == nil || skipped.Error.Code != -32600 || skipped.ID != nil {
		t.Errorf("message over the limit: want error -32600 with id null, got %+v", skipped)
	}
	if logs.FilterMessage("message too large: skipped").Len() != 1 {
		t.Errorf("no log of the skipped message: %v", logs.All())
	}
	c.send(4, "shutdown", nil)
	if m := c.reply(4); m.Error != nil {
		t.Errorf("shutdown: %+v", m.Error)
	}
	c.send(nil, "exit", nil)
	if err := <-done; err != nil {
		t.Errorf("Serve after shutdown and exit: %v", err)
	}
}

// TestHeaderLineBound: a header line without a newline ends Serve with a
// FramingError after at most MaxHeaderLine bytes, not an ever-growing
// buffer.
func TestHeaderLineBound(t *testing.T) {
	serverEnd, clientEnd := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), serverEnd, Options{Getenv: func(string) string { return "" }})
	}()
	go func() {
		// Written until the server stops reading; the pipe then fails.
		buf := bytes.Repeat([]byte("A"), 1<<20)
		for i := 0; i < 64; i++ {
			if _, err := clientEnd.Write(buf); err != nil {
				return
			}
		}
		clientEnd.Close()
	}()
	err := <-done
	clientEnd.Close()
	var fe *FramingError
	if !errors.As(err, &fe) || !strings.Contains(fe.Problem, "header line longer than") {
		t.Fatalf("Serve: %v, want a FramingError for the long header line", err)
	}
}
