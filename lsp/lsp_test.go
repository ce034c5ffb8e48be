package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ownedstream"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/txtar"
)

// recorder is the editor side: it keeps published diagnostics.
type recorder struct {
	protocol.UnimplementedClient
	mu       sync.Mutex
	diags    map[uri.URI][]protocol.Diagnostic
	ch       chan uri.URI
	messages []string
	progress []string
}

func (r *recorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	r.mu.Lock()
	r.diags[p.URI] = p.Diagnostics
	r.mu.Unlock()
	offerDroppingOldest(r.ch, p.URI) // never blocks: see versionRecorder
	return nil
}

func (r *recorder) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }

func (r *recorder) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	r.mu.Lock()
	r.messages = append(r.messages, p.Message)
	r.mu.Unlock()
	return nil
}

func (r *recorder) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}

func (r *recorder) Progress(_ context.Context, p *protocol.ProgressParams) error {
	var v struct{ Kind, Title, Message string }
	json.Unmarshal(p.Value, &v)
	r.mu.Lock()
	r.progress = append(r.progress, v.Kind+": "+v.Title+v.Message)
	r.mu.Unlock()
	return nil
}

// latest returns the diagnostics last published for a document.
func (r *recorder) latest(u uri.URI) []protocol.Diagnostic {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.diags[u]
}

// session starts a server and a client over an in-memory pipe.
func session(t *testing.T, initOptions string) (protocol.Server, *recorder, context.Context) {
	t.Helper()
	return sessionIn(t, initOptions, "")
}

// sessionIn is session with a workspace folder.
func sessionIn(t *testing.T, initOptions, root string) (protocol.Server, *recorder, context.Context) {
	t.Helper()
	return sessionWith(t, Options{}, initOptions, root)
}

// sessionWith is sessionIn with server options.
func sessionWith(t *testing.T, opts Options, initOptions, root string) (protocol.Server, *recorder, context.Context) {
	t.Helper()
	rec := newRecorder()
	yes := true
	params := &protocol.InitializeParams{Capabilities: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{WorkDoneProgress: &yes},
		TextDocument: richTextCaps()}}
	if root != "" {
		params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(root), Name: "test"}})
	}
	if initOptions != "" {
		params.InitializationOptions = []byte(initOptions)
	}
	srv, cctx := sessionAs(t, opts, rec, params)
	return srv, rec, cctx
}

// richTextCaps are the text document capabilities of an editor that
// reads everything the server can send (markdown, snippets, code action
// literals, symbol trees, prepareRename), as VS Code declares them.
func richTextCaps() *protocol.TextDocumentClientCapabilities {
	var caps protocol.TextDocumentClientCapabilities
	err := protocol.Unmarshal([]byte(`{
		"completion": {"completionItem": {"snippetSupport": true, "documentationFormat": ["markdown", "plaintext"]},
			"completionItemKind": {"valueSet": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]}},
		"hover": {"contentFormat": ["markdown", "plaintext"]},
		"signatureHelp": {"signatureInformation": {"documentationFormat": ["markdown", "plaintext"]}},
		"codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "source"]}}},
		"documentSymbol": {"hierarchicalDocumentSymbolSupport": true,
			"symbolKind": {"valueSet": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26]}},
		"rename": {"prepareSupport": true},
		"publishDiagnostics": {"relatedInformation": true, "tagSupport": {"valueSet": [1, 2]}, "codeDescriptionSupport": true}}`), &caps)
	if err != nil {
		panic(err)
	}
	return &caps
}

func newRecorder() *recorder {
	return &recorder{diags: map[uri.URI][]protocol.Diagnostic{}, ch: make(chan uri.URI, 100)}
}

// sessionAs starts a server with options and a client over an in-memory
// pipe, the client answering the server as client does and initializing
// with params.
func sessionAs(t *testing.T, opts Options, client protocol.Client, params *protocol.InitializeParams) (protocol.Server, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := net.Pipe()
	opts.Getenv, opts.Version = func(string) string { return "" }, "test"
	go Serve(ctx, serverEnd, opts)
	cctx, conn, srv := protocol.NewClient(ctx, client, ownedstream.New(clientEnd))
	t.Cleanup(func() { conn.Close(); cancel() })
	if _, err := srv.Initialize(cctx, params); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	srv.Initialized(cctx, &protocol.InitializedParams{})
	return srv, cctx
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

// readArchive reads a txtar file's sections by name.
func readArchive(t *testing.T, path string) map[string]string {
	a, err := txtar.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a.Map()
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

// TestNamespaceProgress: the namespace is indexed after initialize with
// $/progress begin and end, and completion answers from the index.
func TestNamespaceProgress(t *testing.T) {
	_, rec, _ := session(t, `{"source": {"metadata": "embedded"}}`)
	deadline := time.Now().Add(60 * time.Second) // a liveness bound: -race on a loaded machine is slow
	var p []string
	for time.Now().Before(deadline) {
		rec.mu.Lock()
		p = append(p[:0], rec.progress...)
		rec.mu.Unlock()
		// The test client may take the notifications in any order (its
		// connection handles each in a goroutine of its own): the begin
		// and the end, wherever they are.
		began := slices.ContainsFunc(p, func(m string) bool { return strings.HasPrefix(m, "begin: Loading metric names") })
		ended := slices.ContainsFunc(p, func(m string) bool { return strings.HasPrefix(m, "end: ") })
		if began && ended {
			if !slices.ContainsFunc(p, func(m string) bool { return strings.HasPrefix(m, "end: ") && strings.Contains(m, "metric names") }) {
				t.Errorf("progress %q", p)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no $/progress begin and end for loading the namespace: %q", p)
}

// refreshRecorder counts workspace/inlayHint/refresh requests.
type refreshRecorder struct {
	*recorder
	refreshes chan struct{}
}

func (r *refreshRecorder) InlayHintRefresh(context.Context) error {
	select {
	case r.refreshes <- struct{}{}:
	default:
	}
	return nil
}

// TestLiveInlayValues: with preview on and a live pmcd, values appear in
// inlay hints and the client is asked to refresh them.
func TestLiveInlayValues(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	rec := &refreshRecorder{recorder: newRecorder(), refreshes: make(chan struct{}, 1)}
	yes := true
	srv, cctx := sessionAs(t, Options{}, rec, &protocol.InitializeParams{
		InitializationOptions: []byte(`{"source": {"host": "127.0.0.1"}, "preview": {"interval": 1}}`),
		Capabilities:          protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{InlayHint: &protocol.InlayHintWorkspaceClientCapabilities{RefreshSupport: &yes}}},
	})
	u := uri.File("/tmp/live.conf")
	srv.DidOpen(cctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1,
		Text: "m.h = sample.long.hundred * 2\nm.b = sample.bin[bin-200]\n"}})
	rec.wait(t, u)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-rec.refreshes:
		case <-deadline:
			t.Fatal("no inlay hint refresh with live values")
		}
		hints, err := srv.InlayHint(cctx, &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range: protocol.Range{End: protocol.Position{Line: 10}}})
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, h := range hints {
			labels = append(labels, fmt.Sprint(h.Label))
		}
		all := strings.Join(labels, " | ")
		if strings.Contains(all, "= 200") && strings.Contains(all, "bin-200: 200") {
			return
		}
	}
}

// applyEdits applies non-overlapping LSP edits to a text.
func applyEdits(text string, edits []protocol.TextEdit) string {
	sort.Slice(edits, func(i, j int) bool {
		a, b := edits[i].Range.Start, edits[j].Range.Start
		return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
	})
	for _, e := range edits {
		start, end := offsetIn(text, e.Range.Start), offsetIn(text, e.Range.End)
		text = text[:start] + e.NewText + text[end:]
	}
	return text
}

// TestFormattingIdempotent: formatting keeps comments and attributes,
// joins a continued definition that fits on a line, lays a long one out
// over continuation lines (pcp7), and formatting the result changes
// nothing.
func TestFormattingIdempotent(t *testing.T) {
	srv, rec, ctx := session(t, `{"source": {"metadata": "embedded"}, "dialect": "pcp7"}`)
	u := uri.File("/tmp/fmt.conf")
	long := "e = kernel.all.cpu.user+kernel.all.cpu.sys+kernel.all.cpu.nice+kernel.all.cpu.intr+kernel.all.cpu.wait.total-kernel.all.cpu.idle\n"
	text := "# keep me\na   =1+2*  3\nb(oneline) = keep  this   text\nc = (a.b)   ?x.y:  -z\nd = kernel.all.load[1 minute]+\\\n    1\n" + long
	format := func(version int32, text string) []protocol.TextEdit {
		if version == 1 {
			srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
		} else {
			srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
				ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
			})
		}
		rec.wait(t, u)
		edits, err := srv.Formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		if err != nil {
			t.Fatal(err)
		}
		return edits
	}
	once := applyEdits(text, format(1, text))
	want := "# keep me\na = 1 + 2 * 3\nb(oneline) = keep  this   text\nc = (a.b) ? x.y : -z\nd = kernel.all.load[1 minute] + 1\n" +
		"e = kernel.all.cpu.user \\\n    + kernel.all.cpu.sys \\\n    + kernel.all.cpu.nice \\\n    + kernel.all.cpu.intr \\\n" +
		"    + kernel.all.cpu.wait.total \\\n    - kernel.all.cpu.idle\n"
	if once != want {
		t.Errorf("formatted:\n%s\nwant:\n%s", once, want)
	}
	if again := format(2, once); len(again) != 0 {
		t.Errorf("formatting is not idempotent: %+v", again)
	}
}

// TestSurvive: a panic in background work is logged, not fatal.
func TestSurvive(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	s := newServer(context.Background(), nil, Options{Logger: zap.New(core)})
	func() {
		defer s.survive("test work")
		panic("boom")
	}()
	if logs.Len() != 1 || !strings.Contains(fmt.Sprint(logs.All()[0].ContextMap()["panic"]), "boom") {
		t.Errorf("logged %+v", logs.All())
	}
}
