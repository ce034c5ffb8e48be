package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ownedstream"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/lsp"
)

// finding is one finding as both front ends can show it: check's JSON
// and the server's published diagnostics.
type finding struct {
	line, col            int // 1-based line, 0-based UTF-16 column
	endLine, endCol      int
	severity, code, text string
}

func (f finding) String() string {
	return fmt.Sprintf("%d:%d-%d:%d %s %s: %s", f.line, f.col, f.endLine, f.endCol, f.severity, f.code, f.text)
}

// TestEditorAndCheckAgree runs every check case through the command line
// and through the language server, and wants the same findings from both
// (codes, ranges, severities, messages), suppression comments and project
// rules included: the examples as their golden files check them
// (testdata/check/examples.*), and each config file of every
// testdata/check/*.txtar by itself, as an editor opens it. Hints are the
// one difference by design: they mark repeats for an editor's faded text,
// and check's reports leave them out.
func TestEditorAndCheckAgree(t *testing.T) {
	t.Run("examples", func(t *testing.T) {
		dir, err := filepath.Abs(examples)
		if err != nil {
			t.Fatal(err)
		}
		for _, dialect := range []string{"pcp6", "pcp7"} {
			args := []string{"--metadata", "embedded", "--dialect", dialect}
			cli := checkFindings(t, append(args, dir))
			confs, _ := filepath.Glob(filepath.Join(dir, "*.conf"))
			if len(confs) == 0 {
				t.Fatal("no examples")
			}
			for _, conf := range confs {
				compareFindings(t, dialect+"/"+filepath.Base(conf), cli[conf], editorFindings(t, args, conf))
			}
		}
	})
	for _, c := range checkCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.writeTo(t, dir)
			for _, conf := range c.configs {
				path := filepath.Join(dir, filepath.FromSlash(conf))
				cli := checkFindings(t, append(append([]string(nil), c.args...), path))
				compareFindings(t, conf, cli[path], editorFindings(t, c.args, path))
			}
		})
	}
}

func compareFindings(t *testing.T, what string, cli, editor []finding) {
	t.Helper()
	var shown []finding
	for _, f := range editor {
		if f.severity != "hint" {
			shown = append(shown, f)
		}
	}
	sortFindings(cli)
	sortFindings(shown)
	if fmt.Sprint(cli) != fmt.Sprint(shown) {
		t.Errorf("%s: check and the editor disagree\ncheck:\n  %s\neditor:\n  %s", what, joinFindings(cli), joinFindings(shown))
	}
	if len(cli) == 0 && len(shown) == 0 {
		t.Logf("%s: no findings", what)
	}
}

func sortFindings(fs []finding) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].String() < fs[j].String() })
}

func joinFindings(fs []finding) string {
	var lines []string
	for _, f := range fs {
		lines = append(lines, f.String())
	}
	return strings.Join(lines, "\n  ")
}

// checkFindings runs check --format json and returns the findings by
// file path.
func checkFindings(t *testing.T, args []string) map[string][]finding {
	t.Helper()
	out, stderr, status := run(t, "", append([]string{"check", "--format", "json"}, args...)...)
	if status == ExitUsage {
		t.Fatalf("check %v: exit %d: %s", args, status, stderr)
	}
	var doc struct {
		Files []struct {
			Path        string
			Diagnostics []struct {
				Range struct {
					Start, End struct{ Line, UTF16Column int }
				}
				Severity, Code, Message string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("check %v: %v\n%s", args, err, out)
	}
	byPath := map[string][]finding{}
	for _, f := range doc.Files {
		list := []finding{}
		for _, d := range f.Diagnostics {
			list = append(list, finding{d.Range.Start.Line, d.Range.Start.UTF16Column, d.Range.End.Line, d.Range.End.UTF16Column, d.Severity, d.Code, d.Message})
		}
		byPath[f.Path] = list
	}
	return byPath
}

// settingsFor turns check's flags into the editor's settings; a case
// may use only flags an editor setting mirrors.
func settingsFor(t *testing.T, args []string) string {
	t.Helper()
	st := map[string]any{}
	for i := 0; i < len(args); i++ {
		value := func() string {
			if i+1 >= len(args) {
				t.Fatalf("flag %s without a value", args[i])
			}
			i++
			return args[i]
		}
		switch args[i] {
		case "--metadata":
			st["source"] = map[string]string{"metadata": value()}
		case "--archive":
			st["source"] = map[string]string{"archive": value()}
		case "--pcp-version":
			st["pcpVersion"] = value()
		case "--dialect":
			st["dialect"] = value()
		default:
			t.Fatalf("check flag %s has no editor setting: a case compared with the editor cannot use it", args[i])
		}
	}
	b, _ := json.Marshal(st)
	return string(b)
}

// publishRecorder is the editor's side of a session: it keeps the
// diagnostics published.
type publishRecorder struct {
	protocol.UnimplementedClient
	mu    sync.Mutex
	diags map[uri.URI][]protocol.Diagnostic
	seen  chan struct{}
}

func (r *publishRecorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	r.mu.Lock()
	r.diags[p.URI] = p.Diagnostics
	r.mu.Unlock()
	select {
	case r.seen <- struct{}{}:
	default:
	}
	return nil
}

func (r *publishRecorder) LogMessage(context.Context, *protocol.LogMessageParams) error   { return nil }
func (r *publishRecorder) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }

// editorFindings opens path in a language server started with the
// settings check's flags stand for, and returns the diagnostics it
// publishes once the document is analysed.
func editorFindings(t *testing.T, args []string, path string) []finding {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverEnd, clientEnd := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- lsp.Serve(ctx, serverEnd, lsp.Options{Getenv: func(string) string { return "" }, Version: "test"})
	}()
	rec := &publishRecorder{diags: map[uri.URI][]protocol.Diagnostic{}, seen: make(chan struct{}, 1)}
	cctx, conn, srv := protocol.NewClient(ctx, rec, ownedstream.New(clientEnd))
	defer func() {
		conn.Close()
		cancel()
		<-done
	}()
	if _, err := srv.Initialize(cctx, &protocol.InitializeParams{InitializationOptions: []byte(settingsFor(t, args))}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	srv.Initialized(cctx, &protocol.InitializedParams{})
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := uri.File(path)
	srv.DidOpen(cctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "pcp-derived", Version: 1, Text: string(text)}})
	// An inlay hint request waits for the document's analysis; its
	// diagnostics are published right after it is stored: wait until no
	// more come.
	if _, err := srv.InlayHint(cctx, &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: protocol.Position{Line: 1 << 20}}}); err != nil {
		t.Fatalf("inlayHint: %v", err)
	}
	deadline := time.After(10 * time.Second)
	published := false
	for quiet := false; !quiet; {
		select {
		case <-rec.seen:
			published = true
		case <-time.After(300 * time.Millisecond):
			quiet = published
		case <-deadline:
			t.Fatalf("%s: no diagnostics published", path)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := []finding{}
	sev := map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"}
	for _, d := range rec.diags[u] {
		code, _ := d.Code.(protocol.String)
		msg, _ := d.Message.(protocol.String)
		out = append(out, finding{int(d.Range.Start.Line) + 1, int(d.Range.Start.Character), int(d.Range.End.Line) + 1, int(d.Range.End.Character), sev[d.Severity], string(code), string(msg)})
	}
	return out
}
