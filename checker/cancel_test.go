package checker

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// TestCheckCancelled: a check whose context is cancelled (the editor's
// next edit) returns the context's error instead of a report, whether
// it builds every tree first (the editor's way) or a window at a time
// (FindingsOnly, check in CI), and leaves no goroutine behind (the
// window builder once could wait forever to hand over its next window).
func TestCheckCancelled(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	var b strings.Builder
	for i := range 3 * treeWindow {
		fmt.Fprintf(&b, "m%d = kernel.all.load + %d * hinv.ncpu\n", i, i)
	}
	before := runtime.NumGoroutine()
	for _, findingsOnly := range []bool{false, true} {
		f := grammar.ParseConfig("c.conf", []byte(b.String()), grammar.Options{Version: pcpver.Latest})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rep, err := Check(ctx, []*grammar.File{f}, src, Options{Version: pcpver.Latest, FindingsOnly: findingsOnly})
		if !errors.Is(err, context.Canceled) || rep != nil {
			t.Errorf("FindingsOnly %v: a cancelled check returned %v, %v; want no report and context.Canceled", findingsOnly, rep != nil, err)
		}
	}
	// The lookup answers from the cache; the check itself must see the
	// cancel: a context cancelled as the check runs.
	f := grammar.ParseConfig("c.conf", []byte(b.String()), grammar.Options{Version: pcpver.Latest})
	if _, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.Latest, FindingsOnly: true}); err != nil {
		t.Fatal(err) // (fills the cache)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, cancel)
	f = grammar.ParseConfig("c.conf", []byte(b.String()), grammar.Options{Version: pcpver.Latest})
	if _, err := Check(ctx, []*grammar.File{f}, src, Options{Version: pcpver.Latest, FindingsOnly: true}); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled as it ran: %v", err)
	}
	// A lookup that fails while the first trees are built (they start
	// before it): the builder stops with the check.
	f = grammar.ParseConfig("c.conf", []byte(b.String()), grammar.Options{Version: pcpver.Latest})
	if _, err := Check(context.Background(), []*grammar.File{f}, failingLookup{src}, Options{Version: pcpver.Latest, FindingsOnly: true}); err == nil {
		t.Errorf("a check whose lookup failed returned no error")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the cancelled checks, %d before", n, before)
	}
}

// failingLookup is a source whose name lookup fails.
type failingLookup struct{ pmclient.Source }

func (failingLookup) LookupNames(context.Context, []string) ([]pmapi.PMID, []error, error) {
	return nil, nil, errors.New("pmcd went away")
}
