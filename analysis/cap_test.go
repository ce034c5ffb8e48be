package analysis

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// TestCapSuppressedContinuation: the editor's analysis (capped as shown,
// Options.Incremental) and check's (capped as the read goes) show the
// same findings for a syntax finding on a continuation line of a
// definition a suppression comment turns off. The reader once judged it
// by its own line, before the file's definitions were known, and check
// showed a stand-in for a finding the editor listed.
func TestCapSuppressedContinuation(t *testing.T) {
	text := []byte("# pcp-derive-lsp: ignore\na = 1 + \\\n )\nb = 1 + )\n")
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, MaxPerCode: 1}
	shown := func(incremental bool) []grammar.Diagnostic {
		return Run(context.Background(), []Input{Buffer("t.conf", text)}, cfg, Options{Incremental: incremental}).Files[0].Findings.Slice()
	}
	check, editor := shown(false), shown(true)
	if !reflect.DeepEqual(check, editor) {
		t.Errorf("capped as read (check):\n%+v\ncapped as shown (editor):\n%+v", check, editor)
	}
	if len(editor) != 1 || editor[0].More != 0 || editor[0].Range.Start.Line != 4 {
		t.Errorf("shown %+v, want line 4's syntax error alone", editor)
	}
}

// TestShownFindingsRightSized: the findings shown of a buffer over the
// cap are the capped list (grammar's TestCapFindingsSeq bounds its
// size), not a window on one the size of every finding, which each
// version's snapshot would keep.
func TestShownFindingsRightSized(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "u%d = no.such.metric%d\n", i, i)
	}
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode}
	f := Run(context.Background(), []Input{Buffer("t.conf", []byte(b.String()))}, cfg, Options{Incremental: true}).Files[0].Findings
	if f.Len() != DefaultMaxPerCode+1 || f.b.Len() != DefaultMaxPerCode+1 || cap(f.a) != 0 {
		t.Fatalf("%d findings shown (%d of the checker's, a list of %d besides), want the %d of the capped list alone", f.Len(), f.b.Len(), cap(f.a), DefaultMaxPerCode+1)
	}
}
