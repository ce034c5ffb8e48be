package lsp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	metasnap "github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

// writeMetadata writes a metadata snapshot of the given metrics.
func writeMetadata(t *testing.T, metrics []metasnap.Metric) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "metadata.json")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := metasnap.Write(w, &metasnap.File{Source: "test host B", PCPVersion: "7.2.2", Metrics: metrics}); err != nil {
		t.Fatal(err)
	}
	return path
}

func codesOf(snap *snapshot) map[string]int {
	out := map[string]int{}
	for d := range snap.findings.All() {
		out[d.Code]++
	}
	return out
}

// TestRequestsReadOneConfiguration: a snapshot keeps the configuration
// its analysis followed, so a request holding it answers from that
// source even after the settings name another (completion once read the
// analysis of one and the source of the other); and a request after the
// change gets a snapshot analysed under the new configuration, never the
// old analysis with the new source.
func TestRequestsReadOneConfiguration(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newVersionRecorder(100)
	srv := newServer(ctx, rec, Options{Logger: zap.NewNop(), Getenv: func(string) string { return "" }})
	defer srv.close()
	var a Settings
	a.Source.Metadata = "embedded"
	srv.applySettings(ctx, a)
	u := uri.File("/tmp/one-configuration.conf")
	text := "x = only.in.b + 1\ny = kernel.all.l\n"
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	snapA := srv.current(ctx, u)
	if snapA == nil || snapA.report == nil || codesOf(snapA)["unknown-metric"] != 2 {
		t.Fatalf("under the embedded metadata: %+v", snapA)
	}

	pathB := writeMetadata(t, []metasnap.Metric{{Name: "only.in.b", PMID: "200.0.1", Type: "U32", Sem: "instant"}})
	var b Settings
	b.Source.Metadata = pathB
	srv.applySettings(ctx, b) // a new configuration; nothing re-analysed yet
	cfgB := srv.session.config()
	if snapA.cfg == cfgB || snapA.source() == cfgB.source {
		t.Fatal("the old snapshot follows the new configuration")
	}
	// The old snapshot completes from its own source: kernel.all.load is
	// in the embedded metadata, not in B.
	res, err := completion(ctx, snapA, nil, protocol.Position{Line: 1, Character: 16})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := res.(*protocol.CompletionList)
	found := false
	for _, it := range list.Items {
		found = found || it.Label == "load"
	}
	if !found {
		t.Errorf("completion on the old snapshot did not answer from its source: %+v", list.Items)
	}

	snapB := srv.current(ctx, u)
	if snapB == nil || snapB.cfg != cfgB || snapB.res.Config.Source != cfgB.source {
		t.Fatalf("a request after the change got a snapshot of another configuration: %+v", snapB)
	}
	// only.in.b is B's; B has no kernel.* at all.
	if got := codesOf(snapB); got["unknown-metric"] != 0 || got["pmda-missing"] != 1 {
		t.Errorf("under B: %v, want one pmda-missing (kernel.*) and no unknown metric: %v", got, snapB.findings.Slice())
	}
}
