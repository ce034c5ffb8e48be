package pmproxy_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy/pmproxytest"
)

// ask makes the request of c that reads endpoint's answer.
func ask(ctx context.Context, c *pmproxy.Client, endpoint string) error {
	var err error
	switch endpoint {
	case "metric":
		_, _, err = c.LookupNames(ctx, []string{"a"})
	case "indom":
		_, err = c.Instances(ctx, pmapi.NewInDom(1, 2))
	case "children":
		_, err = c.Children(ctx, "")
	case "context":
		_, err = c.Labels(ctx, pmclient.LabelContext, 0)
	case "fetch":
		_, _, err = c.NamesOf(ctx, []pmapi.PMID{pmapi.NewPMID(1, 0, 1)})
	default:
		panic(endpoint)
	}
	return err
}

// TestHostileAnswers: each answer of issue #41 (about 60 MB of JSON
// that decodes to 20 or 30 times its bytes: 20M empty metric objects,
// 10M instances, 12.5M names, 4.8M labels, 10M fetched values) ends in
// an error naming the decoding budget, and what the client allocates
// for it (heap bytes, all of them, garbage included) stays under the
// 300 MB a network answer may cost. Before the budget the client read
// the body whole, copied it, and decoded it: 1.0-1.7 GB of RSS, two of
// them out of memory under a 4 GB limit.
func TestHostileAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 60 MB answers")
	}
	const bound = 300 << 20
	for name, h := range pmproxytest.Hostile() {
		t.Run(name, func(t *testing.T) {
			srv := pmproxytest.New(t, map[string]http.HandlerFunc{h.Endpoint: h.Handler()})
			c, err := pmproxy.New(srv.URL, pmproxy.Options{RequestTimeout: hostileTimeout})
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err = ask(context.Background(), c, h.Endpoint)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %v; %.1f MB allocated", name, err, float64(allocated)/(1<<20))
			if !errors.Is(err, pmproxy.ErrBudget) || !strings.Contains(err.Error(), "1000000 JSON values") {
				t.Errorf("error %v, want the decoding budget's", err)
			}
			if allocated > bound {
				t.Errorf("the client allocated %d MB for the answer, over %d MB", allocated>>20, bound>>20)
			}
		})
	}
}

// TestBudgetOverride: an answer within the budget is read whole and
// right; Options.MaxValues (and $PCP_DERIVE_LSP_PMPROXY_MAX_VALUES)
// lowers or raises it.
func TestBudgetOverride(t *testing.T) {
	srv := pmproxytest.New(t, map[string]http.HandlerFunc{
		"children": pmproxytest.Repeat(`{"name":"","leaf":[`, `"m%d"`, `],"nonleaf":[]}`, 50_000),
	})
	c, _ := pmproxy.New(srv.URL, pmproxy.Options{})
	kids, err := c.Children(context.Background(), "")
	if err != nil || len(kids) != 50_000 || kids[49_999].Name != "m49999" {
		t.Fatalf("%d children, %v", len(kids), err)
	}
	c, _ = pmproxy.New(srv.URL, pmproxy.Options{MaxValues: 10_000})
	if _, err := c.Children(context.Background(), ""); !errors.Is(err, pmproxy.ErrBudget) {
		t.Errorf("MaxValues 10000: %v", err)
	}
	env := func(k string) string {
		if k == "PCP_DERIVE_LSP_PMPROXY_MAX_VALUES" {
			return "20000"
		}
		return ""
	}
	c, _ = pmproxy.New(srv.URL, pmproxy.Options{Getenv: env})
	if _, err := c.Children(context.Background(), ""); !errors.Is(err, pmproxy.ErrBudget) || !strings.Contains(err.Error(), "20000") {
		t.Errorf("$PCP_DERIVE_LSP_PMPROXY_MAX_VALUES=20000: %v", err)
	}
}

// TestGateKey: one pmproxy however its URL is written.
func TestGateKey(t *testing.T) {
	same := []string{"proxy", "proxy:44322", "http://proxy", "http://PROXY:44322/", "http://proxy:44322/a/path?x=1", "http://proxy/b"}
	for _, u := range same {
		if got := pmproxy.GateKey(u); got != "http://proxy:44322" {
			t.Errorf("GateKey(%q) = %q", u, got)
		}
	}
	for _, u := range []string{"https://proxy", "http://proxy:8080", "http://other"} {
		if pmproxy.GateKey(u) == "http://proxy:44322" {
			t.Errorf("GateKey(%q) is proxy's", u)
		}
	}
	g := pmproxy.NewGates(1, 0)
	if g.For(same[0]) != g.For(same[len(same)-1]) || g.For("http://other") == g.For("proxy") {
		t.Error("Gates.For does not follow GateKey")
	}
}

// TestFleetBehindOnePMProxy: 16 hosts behind one pmproxy, each reached
// under a URL path of its own, share one gate (never two requests in
// flight at once) and one decoding budget; each host's hostile answer is
// an error of the budget, and the fleet allocates what one answer costs,
// 16 times at most (TotalAlloc counts every answer's garbage; the peak is
// one answer's). Before, a gate per URL text let the 16 answers decode at
// once: 2.5 GB, out of memory. (fleet keys its gates with Gates.)
func TestFleetBehindOnePMProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 16 answers of 60 MB")
	}
	gates := pmproxy.NewGates(1, 0)
	// Answers that end: the requests in flight at the server are the
	// client's (a hostile answer cut short may still be written after the
	// client has gone on).
	polite := pmproxytest.New(t, map[string]http.HandlerFunc{"children": pmproxytest.Repeat(`{"name":"","leaf":[`, `"m%d"`, `],"nonleaf":[]}`, 20_000)})
	for i, err := range askFleet(t, polite.URL, gates, 16, func(c *pmproxy.Client) error {
		_, err := c.Children(context.Background(), "")
		return err
	}) {
		if err != nil {
			t.Errorf("host %d: %v", i, err)
		}
	}
	if n := polite.MaxInFlight(); n != 1 {
		t.Errorf("%d requests in flight at once to one pmproxy, want 1", n)
	}
	h := pmproxytest.Hostile()["20M empty metrics"]
	srv := pmproxytest.New(t, map[string]http.HandlerFunc{h.Endpoint: h.Handler()})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	errs := askFleet(t, srv.URL, gates, 16, func(c *pmproxy.Client) error {
		return ask(context.Background(), c, h.Endpoint)
	})
	runtime.ReadMemStats(&after)
	for i, err := range errs {
		if !errors.Is(err, pmproxy.ErrBudget) {
			t.Errorf("host %d: %v, want the decoding budget's error", i, err)
		}
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("16 hosts: %.1f MB allocated", float64(allocated)/(1<<20))
	if allocated > 300<<20 {
		t.Errorf("the fleet allocated %d MB, over 300 MB", allocated>>20)
	}
}

// askFleet asks n hosts behind one pmproxy at base (base/host0, ...,
// each through gates) at once, each with a client of its own, and
// returns their errors.
func askFleet(t *testing.T, base string, gates *pmproxy.Gates, n int, ask func(*pmproxy.Client) error) []error {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range errs {
		url := fmt.Sprintf("%s/host%d", base, i)
		c, err := pmproxy.New(url, pmproxy.Options{Hostspec: fmt.Sprintf("h%d", i), Gate: gates.For(url)})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ask(c)
		}()
	}
	wg.Wait()
	return errs
}

// TestSharedBudget: clients of different pmproxies share their Gates'
// budget: answers that fit it together are read at once, and one larger
// than the whole shared budget is refused.
func TestSharedBudget(t *testing.T) {
	small := pmproxytest.Repeat(`{"name":"","leaf":[`, `"m%d"`, `],"nonleaf":[]}`, 20_000)
	gates := pmproxy.NewGates(1, 100_000)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		srv := pmproxytest.New(t, map[string]http.HandlerFunc{"children": small})
		c, _ := pmproxy.New(srv.URL, pmproxy.Options{Gate: gates.For(srv.URL)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Children(context.Background(), "")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("pmproxy %d: %v", i, err)
		}
	}
	big := pmproxytest.New(t, map[string]http.HandlerFunc{"children": pmproxytest.Repeat(`{"name":"","leaf":[`, `"m%d"`, `],"nonleaf":[]}`, 150_000)})
	c, _ := pmproxy.New(big.URL, pmproxy.Options{Gate: gates.For(big.URL)})
	if _, err := c.Children(context.Background(), ""); !errors.Is(err, pmproxy.ErrBudget) || !strings.Contains(err.Error(), "shared") {
		t.Errorf("an answer over the shared budget: %v", err)
	}
}
