package lsp

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// TestPublishEncodesTheEditsFindings: a keystroke's publication of
// 2,500 checked findings, as the analysis holds them after the edit (the
// checker's list spliced, the chunks the edit copied holding copies of
// findings it did not change), encodes the one finding the keystroke
// changed and takes every other from the last publication: its buffer of
// new JSON is a finding's (512 bytes), not the copied chunks' (16
// findings, 8 KB), and its JSON is protocol.Marshal's.
func TestPublishEncodesTheEditsFindings(t *testing.T) {
	const lines, typed = 5000, 2501 // a misspelt metric on every other line
	if testsize.Race {
		t.Skip("the race detector allocates beside the code measured; the plain pass runs this")
	}
	var b strings.Builder
	for i := range lines {
		if i%2 == 1 {
			fmt.Fprintf(&b, "m%d = disk.dev.read_%d\n", i, i)
		} else {
			fmt.Fprintf(&b, "m%d = disk.dev.read\n", i)
		}
	}
	u := uri.File("/tmp/typed.conf")
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config{pcp: analysis.VersionChoice{Version: pcpver.Latest, Reason: "test"}}
	acfg := analysis.Config{Version: cfg.pcp, Source: pmclient.NewCache(src), MaxPerCode: analysis.DefaultMaxPerCode * 10}
	opts := analysis.Options{Memo: grammar.NewMemo(), Incremental: true}
	text := grammar.NewText([]byte(b.String()))
	parsed := analysis.Parse([]analysis.Input{analysis.BufferText(u.FsPath(), text)}, acfg, opts)
	checked := analysis.Check(context.Background(), parsed)
	at := text.LineStart(typed) + len(fmt.Sprintf("m%d = disk.dev.read_", typed))
	var c diagnosticJSON
	params := make([]byte, 0, 4<<20) // the params' buffer, big enough
	publish := func(version int32) (allocated uint64) {
		snap := newSnapshot(cfg, u, version, uint64(version), text, checked)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := c.publishParams(params, u, snap.file, version, snap.findings, nil, docsURLForTest)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalParams(t, u, snap.file, version, snap.findings.Slice(), docsURLForTest); string(got) != want {
			t.Fatalf("version %d: the publication is not protocol.Marshal's", version)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	publish(1)
	if n := checked.Files[0].Findings.Len(); n < lines/2 {
		t.Fatalf("%d findings, want one every other line", n)
	}
	for v := int32(2); v < 8; v++ {
		// A digit typed into the misspelt name, and deleted again.
		ch := grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}
		next := text.Replace(at, at, []byte("9"))
		if v%2 == 1 {
			ch, next = grammar.TextChange{Start: at, OldEnd: at + 1, NewEnd: at}, text.Replace(at, at+1, nil)
		}
		opts.Change = &ch
		p, _ := analysis.Reparse(parsed, u.FsPath(), next, acfg, opts)
		text, parsed, checked = next, p, analysis.Recheck(context.Background(), checked, p)
		if allocated := publish(v); v > 3 && allocated > 4<<10 {
			t.Errorf("version %d: the publication allocated %d bytes beside its params, want at most 4 KB (a finding's JSON)", v, allocated)
		}
	}
}

const docsURLForTest = "https://example.org/docs"
