package checker

import (
	"context"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// cancelOnNames is a source whose namespace listing (read only for "did
// you mean") is where the editor's next edit cancels the check: it
// cancels and answers as a source does to a cancelled context.
type cancelOnNames struct {
	pmclient.Source
	cancel context.CancelFunc
}

func (s cancelOnNames) AllNames(ctx context.Context) ([]string, error) {
	s.cancel()
	return nil, ctx.Err()
}

// TestCheckCancelledDuringAdvice: a check whose context is cancelled
// while it advises (after its last look at the context) must not return
// a report as if complete: its findings lack what the cancelled look-ups
// would have added ("did you mean"), and the server keeps such a report
// as the base of the next Recheck (documents.storeChecked's checkBase),
// so the degraded finding outlives the edit.
func TestCheckCancelledDuringAdvice(t *testing.T) {
	emb, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	// Not cancelled, the finding says what was meant.
	full, err := Check(context.Background(), []*grammar.File{grammar.ParseConfig("c.conf", []byte("a = kernel.all.lod\n"), grammar.Options{Version: pcpver.Latest})}, emb, Options{Version: pcpver.Latest})
	if err != nil {
		t.Fatal(err)
	}
	if ds := full.Diagnostics(full.Files[0]); len(ds) != 1 || !strings.Contains(ds[0].Message, "did you mean") {
		t.Fatalf("uncancelled check: %v", ds)
	}
	for _, recheck := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		src := cancelOnNames{Source: emb, cancel: cancel}
		text := "a = kernel.all.lod\n"
		f := grammar.ParseConfig("c.conf", []byte(text), grammar.Options{Version: pcpver.Latest})
		var rep *Report
		if recheck {
			// A recheck of a keystroke: prev checked in full (not cancelled).
			prevF := grammar.ParseConfig("c.conf", []byte("a = kernel.all.load\n"), grammar.Options{Version: pcpver.Latest})
			prev, err := Check(context.Background(), []*grammar.File{prevF}, emb, Options{Version: pcpver.Latest})
			if err != nil {
				t.Fatal(err)
			}
			var ok bool
			rep, _, ok, err = Recheck(ctx, prev, nil, f, src, Options{Version: pcpver.Latest})
			if !ok && err == nil {
				t.Fatal("Recheck declined")
			}
		} else {
			rep, err = Check(ctx, []*grammar.File{f}, src, Options{Version: pcpver.Latest})
		}
		if ctx.Err() == nil {
			t.Fatal("the source was not asked for its names")
		}
		if err == nil {
			var msgs []string
			for _, d := range rep.Diagnostics(f) {
				msgs = append(msgs, d.Code+": "+d.Message)
			}
			t.Errorf("recheck %v: a check cancelled while advising returned a report and no error: %s", recheck, strings.Join(msgs, "; "))
		}
	}
}
