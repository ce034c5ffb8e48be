package lsp

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// recorder is the editor side: it keeps published diagnostics.
type recorder struct {
	protocol.UnimplementedClient
	mu    sync.Mutex
	diags map[uri.URI][]protocol.Diagnostic
	ch    chan uri.URI
}

func (r *recorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	r.mu.Lock()
	r.diags[p.URI] = p.Diagnostics
	r.mu.Unlock()
	r.ch <- p.URI
	return nil
}

func (r *recorder) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }

// session starts a server and a client over an in-memory pipe.
func session(t *testing.T, initOptions string) (protocol.Server, *recorder, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	go Serve(ctx, serverEnd, Options{Getenv: func(string) string { return "" }, Version: "test"})
	rec := &recorder{diags: map[uri.URI][]protocol.Diagnostic{}, ch: make(chan uri.URI, 100)}
	cctx, conn, srv := protocol.NewClient(ctx, rec, jsonrpc2.NewHeaderStream(clientEnd))
	t.Cleanup(func() { conn.Close(); cancel() })
	params := &protocol.InitializeParams{}
	if initOptions != "" {
		params.InitializationOptions = []byte(initOptions)
	}
	if _, err := srv.Initialize(cctx, params); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	srv.Initialized(cctx, &protocol.InitializedParams{})
	return srv, rec, cctx
}

func (r *recorder) wait(t *testing.T, u uri.URI) []protocol.Diagnostic {
	t.Helper()
	for {
		select {
		case got := <-r.ch:
			if got == u {
				r.mu.Lock()
				defer r.mu.Unlock()
				return r.diags[u]
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no diagnostics published")
		}
	}
}

// readArchive reads a txtar file: "-- name --" lines start sections.
func readArchive(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	name := ""
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(strings.TrimSpace(l), " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(l), "-- "), " --")
			continue
		}
		if name != "" {
			out[name] += l
		}
	}
	return out
}

// markerPos finds "^name" markers: a comment line "# ^h1" puts marker h1
// at the column of "^" on the line above.
func markerPos(text string) map[string]protocol.Position {
	pos := map[string]protocol.Position{}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") || i == 0 {
			continue
		}
		for j := 0; j < len(l); j++ {
			if l[j] != '^' {
				continue
			}
			k := j + 1
			for k < len(l) && l[k] != ' ' {
				k++
			}
			pos[l[j+1:k]] = protocol.Position{Line: uint32(i - 1), Character: uint32(j)}
		}
	}
	return pos
}

// TestMarkers runs every testdata/*.txtar: a config (config.conf), its
// settings (settings.json, optional) and expectations (want), one per
// line: "diag CODE", "nodiag CODE", "hover MARKER TEXT",
// "complete MARKER LABEL", "symbols N", "format TEXT", "action MARKER TITLE".
func TestMarkers(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no marker tests")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ar := readArchive(t, path)
			if strings.Contains(ar["settings.json"], "127.0.0.1") && os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
				t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
			}
			srv, rec, ctx := session(t, strings.TrimSpace(ar["settings.json"]))
			u := uri.File("/tmp/marker.conf")
			text := ar["config.conf"]
			srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "pcp-derived", Version: 1, Text: text}})
			diags := rec.wait(t, u)
			marks := markerPos(text)
			tdp := func(m string) protocol.TextDocumentPositionParams {
				p, ok := marks[m]
				if !ok {
					t.Fatalf("no marker %q", m)
				}
				return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: p}
			}
			for _, line := range strings.Split(strings.TrimSpace(ar["want"]), "\n") {
				if line == "" {
					continue
				}
				f := strings.SplitN(line, " ", 3)
				switch f[0] {
				case "diag", "nodiag":
					found := false
					for _, d := range diags {
						if fmt.Sprint(d.Code) == f[1] {
							found = true
						}
					}
					if found != (f[0] == "diag") {
						t.Errorf("%s: diagnostics %+v", line, diags)
					}
				case "hover":
					h, err := srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: tdp(f[1])})
					if err != nil || h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, f[2]) {
						got := ""
						if h != nil {
							got = h.Contents.(*protocol.MarkupContent).Value
						}
						t.Errorf("%s: got %q (%v)", line, got, err)
					}
				case "complete":
					res, err := srv.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: tdp(f[1])})
					found := false
					if l, ok := res.(*protocol.CompletionList); ok && err == nil {
						for _, it := range l.Items {
							found = found || it.Label == f[2]
						}
					}
					if !found {
						t.Errorf("%s: not offered (%v)", line, err)
					}
				case "symbols":
					n, _ := strconv.Atoi(f[1])
					res, err := srv.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
					if syms, ok := res.(protocol.DocumentSymbolSlice); !ok || len(syms) != n || err != nil {
						t.Errorf("%s: got %v %v", line, res, err)
					}
				case "format":
					edits, err := srv.Formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
					found := false
					for _, e := range edits {
						found = found || e.NewText == strings.Join(f[1:], " ")
					}
					if !found || err != nil {
						t.Errorf("%s: edits %+v", line, edits)
					}
				case "action":
					p := tdp(f[1]).Position
					acts, err := srv.CodeAction(ctx, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{Start: p, End: p}})
					found := false
					for _, a := range acts {
						if ca, ok := a.(*protocol.CodeAction); ok && strings.Contains(ca.Title, f[2]) {
							found = true
						}
					}
					if !found || err != nil {
						t.Errorf("%s: actions %v %v", line, acts, err)
					}
				default:
					t.Fatalf("unknown expectation %q", line)
				}
			}
		})
	}
}

// TestIncrementalChangeAndClose: edits re-publish with the new version;
// closing clears the diagnostics.
func TestIncrementalChangeAndClose(t *testing.T) {
	srv, rec, ctx := session(t, `{"source": {"metadata": "embedded"}}`)
	u := uri.File("/tmp/x.conf")
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: "m.a = 1 +\n"}})
	if d := rec.wait(t, u); len(d) != 1 {
		t.Fatalf("open: %+v", d)
	}
	srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 9}, End: protocol.Position{Line: 0, Character: 9}}, Text: " 2"}},
	})
	if d := rec.wait(t, u); len(d) != 0 {
		t.Fatalf("after the fix: %+v", d)
	}
	srv.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if d := rec.wait(t, u); len(d) != 0 {
		t.Fatalf("after close: %+v", d)
	}
}
