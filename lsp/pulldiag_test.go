package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// pullClient is an editor that pulls diagnostics and can be asked to
// pull again.
type pullClient struct {
	*recorder
	refreshes atomic.Int32
}

func (c *pullClient) DiagnosticRefresh(context.Context) error {
	c.refreshes.Add(1)
	return nil
}

// pullSession starts a server for a client that declares pull
// diagnostics with refresh support, over folder root.
func pullSession(t *testing.T, root string) (protocol.Server, *pullClient, context.Context) {
	yes := true
	c := &pullClient{recorder: newRecorder()}
	params := &protocol.InitializeParams{
		Capabilities: protocol.ClientCapabilities{
			TextDocument: &protocol.TextDocumentClientCapabilities{Diagnostic: &protocol.DiagnosticClientCapabilities{RelatedDocumentSupport: &yes}},
			Workspace:    &protocol.WorkspaceClientCapabilities{Diagnostics: &protocol.DiagnosticWorkspaceClientCapabilities{RefreshSupport: &yes}},
		},
		InitializationOptions: []byte(`{"source": {"metadata": "embedded"}, "pcpVersion": "6.0.3", "debounce": 0}`),
	}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: uri.File(root), Name: "test"}})
	srv, ctx := sessionAs(t, Options{}, c, params)
	return srv, c, ctx
}

// workspaceFindings pulls the workspace's diagnostics: each closed
// config's codes, "unchanged" for a report the client has.
func workspaceFindings(t *testing.T, ctx context.Context, srv protocol.Server, previous []protocol.PreviousResultId) (map[uri.URI]string, []protocol.PreviousResultId) {
	t.Helper()
	rep, err := srv.DiagnosticWorkspace(ctx, &protocol.WorkspaceDiagnosticParams{PreviousResultIds: previous})
	if err != nil {
		t.Fatal(err)
	}
	got := map[uri.URI]string{}
	var ids []protocol.PreviousResultId
	for _, it := range rep.Items {
		switch it := it.(type) {
		case *protocol.WorkspaceFullDocumentDiagnosticReport:
			var codes []string
			for _, d := range it.Items {
				codes = append(codes, string(d.Code.(protocol.String)))
			}
			got[it.URI] = "full: " + strings.Join(codes, ",")
			ids = append(ids, protocol.PreviousResultId{URI: it.URI, Value: *it.ResultID})
		case *protocol.WorkspaceUnchangedDocumentDiagnosticReport:
			got[it.URI] = "unchanged"
			ids = append(ids, protocol.PreviousResultId{URI: it.URI, Value: it.ResultID})
		}
	}
	return got, ids
}

// TestPullDiagnostics: a client that pulls gets each document's findings
// on request and none pushed; the workspace's closed configs are analysed
// with the open ones, so renaming a metric in an open document shows at
// once, in that document's pull (related documents), and at the next
// workspace pull, in the closed config that used it (and an edit the closed
// config cannot see costs no new analysis of it); findings that change
// without the client's pull bring a refresh request.
func TestPullDiagnostics(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "derived")
	os.MkdirAll(root, 0o755)
	closed := uri.File(filepath.Join(root, "users.conf"))
	if err := os.WriteFile(closed.FsPath(), []byte("disk.io.twice = disk.io.base * 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, c, ctx := pullSession(t, dir)
	open := uri.File(filepath.Join(root, "base.conf"))
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: open, Version: 1,
		Text: "disk.io.base = disk.dev.read\ndisk.io.bad = disk.dev.nothing\n"}})
	// replaceOpen sends the open document's whole new text.
	replaceOpen := func(version int32, text string) {
		srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: open}, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
		})
	}

	rep, err := srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: open}})
	if err != nil {
		t.Fatal(err)
	}
	full, ok := rep.(*protocol.RelatedFullDocumentDiagnosticReport)
	if !ok || len(full.Items) != 1 || full.Items[0].Code != protocol.String("unknown-metric") || full.ResultID == nil {
		t.Fatalf("document pull: %#v, want a full report of one unknown-metric finding", rep)
	}
	rep, err = srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: open}, PreviousResultID: full.ResultID})
	if _, ok := rep.(*protocol.RelatedUnchangedDocumentDiagnosticReport); err != nil || !ok {
		t.Fatalf("second pull with the first's result id: %#v, %v; want unchanged", rep, err)
	}

	got, ids := workspaceFindings(t, ctx, srv, nil)
	if got[closed] != "full: nested-derived" || len(got) != 1 {
		t.Fatalf("workspace pull: %v, want only %s with its nested-derived finding (the open document is left out)", got, closed)
	}
	got, _ = workspaceFindings(t, ctx, srv, ids)
	if got[closed] != "unchanged" {
		t.Fatalf("workspace pull again: %v, want unchanged", got)
	}

	// An edit of the open document that the closed one cannot see: its
	// analysis is kept.
	replaceOpen(2, "disk.io.base = disk.dev.read\ndisk.io.bad = disk.dev.nothing2\n")
	if _, err := srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: open}}); err != nil {
		t.Fatal(err)
	}
	got, _ = workspaceFindings(t, ctx, srv, ids)
	if got[closed] != "unchanged" {
		t.Fatalf("workspace pull after an edit of another line: %v, want unchanged", got)
	}

	// Rename the metric in the open document: the closed one breaks.
	replaceOpen(3, "disk.io.renamed = disk.dev.read\ndisk.io.bad = disk.dev.nothing\n")
	// The open document's own pull carries the closed one's findings
	// (the client declared relatedDocumentSupport).
	rep, err = srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: open}})
	if err != nil {
		t.Fatal(err)
	}
	full, _ = rep.(*protocol.RelatedFullDocumentDiagnosticReport)
	if related, _ := full.RelatedDocuments[closed].(*protocol.FullDocumentDiagnosticReport); related == nil ||
		len(related.Items) != 1 || related.Items[0].Code != protocol.String("unknown-metric") {
		t.Fatalf("the open document's pull after the rename: related documents %#v, want %s's unknown-metric", full.RelatedDocuments, closed)
	}
	got, _ = workspaceFindings(t, ctx, srv, ids)
	if got[closed] != "full: unknown-metric" {
		t.Fatalf("workspace pull after the rename: %v, want %s's unknown-metric", got, closed)
	}

	// Pulled after each analysis: no refresh was needed, and nothing
	// was pushed.
	time.Sleep(2 * refreshDelay)
	if n := c.refreshes.Load(); n != 0 {
		t.Errorf("%d refresh requests, though the client pulled every analysis", n)
	}
	if d := c.latest(open); d != nil {
		t.Errorf("diagnostics pushed to a client that pulls them: %v", d)
	}

	// An edit the client does not pull after: it is asked to.
	replaceOpen(4, "disk.io.renamed = disk.dev.read\n")
	deadline := time.Now().Add(10 * time.Second)
	for c.refreshes.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no workspace/diagnostic/refresh after findings the client did not pull")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
