package lsp

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// fakeHost serves the embedded snapshot as a pmcd of a release.
func fakeHost(t *testing.T, version string) string {
	t.Helper()
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &pmcd.Server{Source: src, Version: version}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return ln.Addr().String()
}

func fleetMessages(ds []protocol.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if src, _ := d.Source.Get(); src == "pcp-derive-lsp fleet" {
			out = append(out, fmt.Sprintf("%d:%d %d %v: %v", d.Range.Start.Line, d.Range.Start.Character, d.Severity, d.Code, d.Message))
		}
	}
	return out
}

// With the fleet setting, a definition that does not work on every host
// gets a diagnostic saying where it fails, each host's release its own;
// an edit is checked across the fleet again.
func TestFleetDiagnostics(t *testing.T) {
	old, recent := fakeHost(t, "6.0.3"), fakeHost(t, "7.2.2")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	down := ln.Addr().String()
	ln.Close()
	settings := fmt.Sprintf(`{"source": {"metadata": "embedded"}, "fleet": {"hosts": ["old=%s", "new=%s", "down=%s"], "hostTimeout": 5}}`, old, recent, down)
	srv, rec, ctx := session(t, settings)
	u := uri.File("/tmp/fleet.conf")
	text := "fleet.load = kernel.all.load * 2\nfleet.bad = no.such.metric + 1\n"
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	rec.waitFor(t, u, "fleet diagnostics", func(d []protocol.Diagnostic) bool { return len(fleetMessages(d)) > 0 })
	got := fleetMessages(rec.latest(u))
	want := []string{
		"1:0 1 unknown-metric: fleet: valid on 0 of 3 hosts; fails on new: operand no.such.metric: Unknown operand metric; silently absent on old: unknown operand no.such.metric; not checked on down",
		"0:0 3 host-unreachable: fleet: 1 of 3 hosts not checked: down (unreachable: connecting to pmcd at " + down,
	}
	if len(got) != 2 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) {
		t.Fatalf("fleet diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Fixed: only the host that is down is left to say.
	srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "fleet.load = kernel.all.load * 2\nfleet.bad = kernel.all.load + 1\n"}},
	})
	rec.waitFor(t, u, "fleet diagnostics after the fix", func(d []protocol.Diagnostic) bool {
		m := fleetMessages(d)
		return len(m) == 1 && strings.Contains(m[0], "host-unreachable")
	})
}

// The source setting's pmproxy: metadata through pmproxy's REST API.
func TestPMProxySourceSetting(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	proxy := oracle.PMProxyFor(t)
	srv, rec, ctx := session(t, fmt.Sprintf(`{"source": {"pmproxy": %q, "hostspec": "127.0.0.1"}}`, proxy.URL))
	u := uri.File("/tmp/proxied.conf")
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1,
		Text: "ok.one = sample.long.one + 1\nbad.one = sample.no.such.metric + 1\n"}})
	rec.waitFor(t, u, "unknown-metric through pmproxy", func(d []protocol.Diagnostic) bool {
		return len(d) == 1 && fmt.Sprint(d[0].Code) == "unknown-metric" && d[0].Range.Start.Line == 1
	})
}
