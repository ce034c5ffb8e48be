package lsp

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ownedstream"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// sessionOpts is session with server options and an environment.
func sessionOpts(t *testing.T, initOptions string, opts Options) (protocol.Server, *recorder, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	go Serve(ctx, serverEnd, opts)
	rec := &recorder{diags: map[uri.URI][]protocol.Diagnostic{}, ch: make(chan uri.URI, 100)}
	cctx, conn, srv := protocol.NewClient(ctx, rec, ownedstream.New(clientEnd))
	t.Cleanup(func() { conn.Close(); cancel() })
	if _, err := srv.Initialize(cctx, &protocol.InitializeParams{InitializationOptions: []byte(initOptions), Capabilities: protocol.ClientCapabilities{TextDocument: richTextCaps()}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	srv.Initialized(cctx, &protocol.InitializedParams{})
	return srv, rec, cctx
}

// proxy forwards a local port to pmcd; stop and start simulate pmcd being
// killed and restarted on the same address.
type proxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.start()
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) start() {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatalf("proxy: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
}

func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func hasCode(diags []protocol.Diagnostic, code string) bool {
	for _, d := range diags {
		if fmt.Sprint(d.Code) == code {
			return true
		}
	}
	return false
}

// waitFor reads published diagnostics until cond holds.
func (r *recorder) waitFor(t *testing.T, u uri.URI, what string, cond func([]protocol.Diagnostic) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if cond(r.latest(u)) {
			return
		}
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatalf("%s: last diagnostics %+v", what, r.latest(u))
		}
	}
}

// messageContaining reports whether a message containing s arrives
// within a few seconds. The server sends it before the diagnostics it
// explains, but the client's connection may hand the two to the
// recorder in either order.
func (r *recorder) messageContaining(s string) bool {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r.mu.Lock()
		for _, m := range r.messages {
			if strings.Contains(m, s) {
				r.mu.Unlock()
				return true
			}
		}
		r.mu.Unlock()
		if time.Now().After(deadline) {
			return false
		}
	}
}

// TestPmcdKilledAndRestarted: with pmcd gone the server keeps giving
// syntax diagnostics and says so once; when pmcd is back, full checks
// resume by themselves.
func TestPmcdKilledAndRestarted(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	p := newProxy(t, "127.0.0.1:44321")
	env := map[string]string{"PMCD_RECONNECT_TIMEOUT": "0.1", "PMCD_CONNECT_TIMEOUT": "1", "PMCD_REQUEST_TIMEOUT": "2"}
	srv, rec, ctx := sessionOpts(t, fmt.Sprintf(`{"source": {"host": %q}, "preview": {"enabled": false}}`, p.addr),
		Options{Getenv: func(k string) string { return env[k] }, Version: "test", RetryInterval: 200 * time.Millisecond})
	u := uri.File("/tmp/fault.conf")
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1,
		Text: "m.a = sample.long.one + 1\nm.b = no.such.metric\n"}})
	rec.waitFor(t, u, "semantic checks with pmcd up", func(d []protocol.Diagnostic) bool { return hasCode(d, "unknown-metric") })

	p.stop() // pmcd "killed"
	change := func(version int32, text string) {
		srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
		})
	}
	// New names: the cache cannot answer, pmcd must.
	change(2, "m.a = sample.long.ten +\nm.b = no.such.other\n")
	rec.waitFor(t, u, "syntax-only diagnostics while pmcd is down", func(d []protocol.Diagnostic) bool {
		return hasCode(d, "missing-expr") || hasCode(d, "syntax")
	})
	if d := rec.latest(u); hasCode(d, "unknown-metric") {
		t.Errorf("semantic diagnostics while pmcd is down: %+v", d)
	}
	if !rec.messageContaining("is not answering") {
		t.Error("no notice that pmcd is unreachable")
	}

	p.start() // pmcd "restarted" on the same address
	rec.waitFor(t, u, "full checks after pmcd is back", func(d []protocol.Diagnostic) bool { return hasCode(d, "unknown-metric") })
	if !rec.messageContaining("answers again") {
		t.Error("no notice that pmcd is back")
	}
	change(3, "m.a = sample.long.ten + 1\nm.b = sample.lng.ten\n")
	rec.waitFor(t, u, "checks go on after recovery", func(d []protocol.Diagnostic) bool {
		return hasCode(d, "unknown-metric") && !hasCode(d, "syntax") && !hasCode(d, "missing-expr")
	})
}

// stallingPmcd greets like pmcd and then never answers a request.
func stallingPmcd(t *testing.T) (addr string, release func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(stop); ln.Close() }) }
	t.Cleanup(release)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				greeting := make([]byte, 20)
				binary.BigEndian.PutUint32(greeting[0:], 20)
				binary.BigEndian.PutUint32(greeting[4:], 0x7000)
				binary.BigEndian.PutUint32(greeting[16:], 0x82000000) // protocol 2, no features
				c.Write(greeting)
				go io.Copy(io.Discard, c)
				<-stop
			}()
		}
	}()
	return ln.Addr().String(), release
}

// TestStallingPmcd: a pmcd that never answers does not hold up requests
// that need no metadata, nor later edits; the timeout ends the wait.
func TestStallingPmcd(t *testing.T) {
	addr, release := stallingPmcd(t)
	env := map[string]string{"PMCD_REQUEST_TIMEOUT": "3", "PMCD_CONNECT_TIMEOUT": "3"}
	srv, rec, ctx := sessionOpts(t, fmt.Sprintf(`{"source": {"host": %q}, "preview": {"enabled": false}}`, addr),
		Options{Getenv: func(k string) string { return env[k] }, Version: "test", RetryInterval: time.Hour})
	u := uri.File("/tmp/stall.conf")
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1,
		Text: "m.a = sample.long.one +\nm.b = 2\n"}})

	// While the check waits on pmcd: syntax diagnostics are published
	// and syntax features answer.
	rec.waitFor(t, u, "syntax diagnostics despite the stall", func(d []protocol.Diagnostic) bool { return len(d) > 0 })
	done := make(chan error, 1)
	go func() {
		res, err := srv.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		if syms, ok := res.(protocol.DocumentSymbolSlice); err == nil && (!ok || len(syms) != 2) {
			err = fmt.Errorf("symbols %v", res)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second): // well before the 3 s pmcd timeout
		t.Fatal("documentSymbol waited for the stalled pmcd")
	}
	// A hover that needs pmcd is released: a later request still answers.
	hoverDone := make(chan struct{})
	go func() {
		srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 0, Character: 8}}})
		close(hoverDone)
	}()
	time.Sleep(100 * time.Millisecond)
	folding := make(chan error, 1)
	go func() {
		_, err := srv.FoldingRanges(ctx, &protocol.FoldingRangeParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		folding <- err
	}()
	select {
	case err := <-folding:
		if err != nil {
			t.Fatal(err)
		}
	case <-hoverDone:
		// the hover finished first: also fine (no pmcd call needed)
	case <-time.After(2 * time.Second):
		t.Fatal("a request behind a hover waiting on pmcd was held up")
	}
	release()
	select {
	case <-hoverDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the hover never ended after pmcd went away")
	}
}
