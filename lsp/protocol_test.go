package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawClient speaks JSON-RPC with Content-Length framing, byte for byte,
// to send what real editors send (and what broken ones do).
type rawClient struct {
	t    *testing.T
	conn net.Conn     // nil when w is a process's stdin
	w    io.Writer    // where messages go: conn, or a process's stdin
	in   chan message // read by a goroutine: the pipe blocks both ways
	errs chan error
}

func rawSession(t *testing.T) *rawClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	done := make(chan struct{})
	go func() {
		Serve(ctx, serverEnd, Options{Getenv: func(string) string { return "" }, Version: "test"})
		close(done)
	}()
	t.Cleanup(func() { clientEnd.Close(); cancel(); <-done })
	c := &rawClient{t: t, conn: clientEnd, w: clientEnd, in: make(chan message, 1000), errs: make(chan error, 1)}
	go c.readLoop(bufio.NewReader(clientEnd))
	return c
}

func (c *rawClient) readLoop(r *bufio.Reader) {
	for {
		n, err := readContentLength(r)
		if err != nil {
			c.errs <- fmt.Errorf("read header: %w", err)
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			c.errs <- fmt.Errorf("read body: %w", err)
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			c.errs <- fmt.Errorf("bad message %s: %w", body, err)
			return
		}
		m.raw = body
		c.in <- m
	}
}

func (c *rawClient) sendRaw(body string) {
	c.t.Helper()
	if c.conn != nil {
		c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	}
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *rawClient) send(id any, method string, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		msg["id"] = id
	}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	c.sendRaw(string(b))
}

// message is any JSON-RPC message from the server.
type message struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte // the message as sent
}

func (c *rawClient) read() message {
	c.t.Helper()
	select {
	case m := <-c.in:
		return m
	case err := <-c.errs:
		c.t.Fatal(err)
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message from the server")
	}
	return message{}
}

// reply reads until the response with the given id, skipping
// notifications (answering the server's own requests with null).
func (c *rawClient) reply(id float64) message {
	c.t.Helper()
	for {
		m := c.read()
		if m.Method != "" {
			if m.ID != nil {
				c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, mustJSON(m.ID)))
			}
			continue
		}
		if f, ok := m.ID.(float64); ok && f == id {
			return m
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// notification reads until a notification of the given method.
func (c *rawClient) notification(method string) message {
	c.t.Helper()
	for {
		if m := c.read(); m.Method == method {
			return m
		}
	}
}

// TestRealInitializePayloads: the initialize parameters real editors send
// decode, and a session goes on to diagnostics and hover.
func TestRealInitializePayloads(t *testing.T) {
	files, _ := filepath.Glob("testdata/initialize/*.json")
	if len(files) < 2 {
		t.Fatalf("only %d initialize payloads", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			payload, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var params map[string]any
			if err := json.Unmarshal(payload, &params); err != nil {
				t.Fatal(err)
			}
			// Our settings, in the place each client puts them.
			params["initializationOptions"] = map[string]any{"source": map[string]any{"metadata": "embedded"}}
			c := rawSession(t)
			c.send(1, "initialize", params)
			m := c.reply(1)
			if m.Error != nil || !strings.Contains(string(m.Result), `"hoverProvider":true`) {
				t.Fatalf("initialize: error %+v, result %s", m.Error, m.Result)
			}
			c.send(nil, "initialized", map[string]any{})
			c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": "file:///tmp/x.conf", "languageId": "pcp-derived", "version": 1, "text": "m.a = kernel.all.load + no.such\n"}})
			var diags []byte
			if declaresPull(params) { // pulled, and none pushed (pulldiag.go)
				c.send(10, "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/x.conf"}})
				diags = c.reply(10).Result
			} else {
				diags = c.notification("textDocument/publishDiagnostics").Params
			}
			if !strings.Contains(string(diags), "unknown-metric") {
				t.Errorf("diagnostics: %s", diags)
			}
			c.send(2, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/x.conf"},
				"position": map[string]any{"line": 0, "character": 8}})
			if h := c.reply(2); h.Error != nil || !strings.Contains(string(h.Result), "kernel.all.load") {
				t.Errorf("hover: %+v %s", h.Error, h.Result)
			}
			c.send(3, "shutdown", nil)
			if r := c.reply(3); r.Error != nil {
				t.Errorf("shutdown: %+v", r.Error)
			}
			c.send(nil, "exit", nil)
		})
	}
}

// declaresPull says whether initialize parameters declare pull
// diagnostics (capabilities.textDocument.diagnostic).
func declaresPull(params map[string]any) bool {
	caps, _ := params["capabilities"].(map[string]any)
	td, _ := caps["textDocument"].(map[string]any)
	return td["diagnostic"] != nil
}

// TestMalformedMessages: broken JSON, unknown methods and bad parameters
// get JSON-RPC errors; the server keeps serving.
func TestMalformedMessages(t *testing.T) {
	c := rawSession(t)
	c.send(1, "initialize", map[string]any{"initializationOptions": map[string]any{"source": map[string]any{"metadata": "embedded"}}})
	if m := c.reply(1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	c.send(2, "no/such/method", map[string]any{})
	if m := c.reply(2); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("unknown method: %+v", m)
	}
	c.send(3, "textDocument/hover", map[string]any{"textDocument": 42, "position": "here"})
	if m := c.reply(3); m.Error == nil {
		t.Errorf("bad params accepted: %s", m.Result)
	}
	c.send(4, "pcp/preview", map[string]any{"textDocument": map[string]any{"uri": "file:///not/open.conf"}})
	if m := c.reply(4); m.Error == nil {
		t.Errorf("preview of a closed document: %s", m.Result)
	}
	c.sendRaw(`{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{`) // truncated JSON
	c.sendRaw(`{"jsonrpc":"2.0","id":6,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///nothing.conf"}}}`)
	parseError := false
	for {
		m := c.read()
		parseError = parseError || m.Error != nil && m.Error.Code == -32700 && m.ID == nil
		if f, ok := m.ID.(float64); ok && f == 6 {
			if !parseError {
				t.Error("no parse error (-32700, id null) for the truncated message")
			}
			if m.Error != nil {
				t.Errorf("a valid request after garbage failed: %+v", m.Error)
			}
			break
		}
	}
	c.send(7, "shutdown", nil)
	if m := c.reply(7); m.Error != nil {
		t.Errorf("shutdown: %+v", m.Error)
	}
}

// TestCancelRequest: a hover waiting on a pmcd that never answers ends
// with RequestCancelled as soon as the client cancels it.
func TestCancelRequest(t *testing.T) {
	addr, _ := stallingPmcd(t)
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	env := map[string]string{"PMCD_REQUEST_TIMEOUT": "30", "PMCD_CONNECT_TIMEOUT": "30"}
	done := make(chan struct{})
	go func() {
		Serve(ctx, serverEnd, Options{Getenv: func(k string) string { return env[k] }, Version: "test", RetryInterval: time.Hour})
		close(done)
	}()
	t.Cleanup(func() { clientEnd.Close(); cancel(); <-done })
	c := &rawClient{t: t, conn: clientEnd, w: clientEnd, in: make(chan message, 1000), errs: make(chan error, 1)}
	go c.readLoop(bufio.NewReader(clientEnd))
	c.send(1, "initialize", map[string]any{"initializationOptions": map[string]any{"source": map[string]any{"host": addr}, "preview": map[string]any{"enabled": false}}})
	if m := c.reply(1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///tmp/c.conf", "languageId": "pcp-derived", "version": 1, "text": "m.a = sample.long.one\n"}})
	c.send(2, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/c.conf"},
		"position": map[string]any{"line": 0, "character": 8}})
	time.Sleep(300 * time.Millisecond) // the hover is now waiting on pmcd
	start := time.Now()
	c.send(nil, "$/cancelRequest", map[string]any{"id": 2})
	m := c.reply(2)
	if m.Error == nil || m.Error.Code != -32800 {
		t.Fatalf("cancelled hover: %+v %s", m.Error, m.Result)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("the cancelled hover took %v to end", waited)
	}
}

// TestStatusNotification: pcp/status says which source is used and when it
// stops answering, for an editor's status bar.
func TestStatusNotification(t *testing.T) {
	c := rawSession(t)
	c.send(1, "initialize", map[string]any{"initializationOptions": map[string]any{"source": map[string]any{"metadata": "embedded"}}})
	c.reply(1)
	c.send(nil, "initialized", map[string]any{})
	m := c.notification("pcp/status")
	if !strings.Contains(string(m.Params), `"state":"ok"`) || !strings.Contains(string(m.Params), "embedded") {
		t.Errorf("status with the embedded metadata: %s", m.Params)
	}
	// auto follows the version the snapshot recorded, and says so.
	if !strings.Contains(string(m.Params), `"pcpVersion":"6.0.3"`) || !strings.Contains(string(m.Params), `reports PCP 6.0.3`) ||
		!strings.Contains(string(m.Params), `"dialect":"pcp6"`) {
		t.Errorf("status names no PCP version or reason: %s", m.Params)
	}
	c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"pcpVersion": "6.3", "source": map[string]any{"metadata": "embedded"}}})
	for {
		m := c.notification("pcp/status")
		if strings.Contains(string(m.Params), `"pcpVersion":"6.3.0"`) && strings.Contains(string(m.Params), `"pcpVersionReason":"pcpVersion 6.3"`) {
			break
		}
	}
	// A pmcd that is not there.
	c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"source": map[string]any{"host": "127.0.0.1:1"}}})
	c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///tmp/s.conf", "languageId": "pcp-derived", "version": 1, "text": "m.a = sample.long.one\n"}})
	for {
		m := c.notification("pcp/status")
		if strings.Contains(string(m.Params), `"state":"unreachable"`) {
			break
		}
	}
}
