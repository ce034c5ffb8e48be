package lsp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// TestRecordedDefinitions: the preview records the nodes of the
// definitions on screen (the latest inlay hint range), of every
// definition of a small document when the client never said, and of none
// of a large one then.
func TestRecordedDefinitions(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	analysed := func(n int) *snapshot {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "r.m%d = hinv.ncpu + %d\n", i, i)
		}
		f := grammar.ParseConfig("r.conf", []byte(b.String()), grammar.Options{Version: pcpver.Latest})
		rep, err := checker.Check(context.Background(), []*grammar.File{f}, src, checker.Options{Version: pcpver.Latest})
		if err != nil {
			t.Fatal(err)
		}
		return &snapshot{uri: uri.File("/tmp/r.conf"), file: f, report: rep}
	}
	e := newExplainStore()
	small := analysed(10)
	if got := len(e.recorded(small)); got != 10 {
		t.Errorf("small document, nothing on screen known: %d recorded, want 10", got)
	}
	big := analysed(maxRecordedDefinitions + 1)
	if got := len(e.recorded(big)); got != 0 {
		t.Errorf("large document, nothing on screen known: %d recorded, want 0", got)
	}
	e.setVisible(big.uri, protocol.Range{Start: protocol.Position{Line: 100}, End: protocol.Position{Line: 149}})
	rec := e.recorded(big)
	if len(rec) != 50 || !rec[big.report.ByName.Metric("r.m100")] || !rec[big.report.ByName.Metric("r.m149")] || rec[big.report.ByName.Metric("r.m150")] {
		t.Errorf("lines 101 to 150 on screen: %d recorded", len(rec))
	}
}
