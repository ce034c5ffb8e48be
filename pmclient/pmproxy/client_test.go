package pmproxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy/pmproxytest"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"proxy", "http://proxy:44322", ""},
		{"proxy:8080", "http://proxy:8080", ""},
		{"http://10.0.0.1", "http://10.0.0.1:44322", ""},
		{"https://gw.example.com:443/pcp/", "https://gw.example.com:443/pcp", ""},
		{"http://[::1]:44322?x=1#f", "http://[::1]:44322", ""},
		{"", "", "empty"},
		{"ftp://proxy", "", "scheme"},
		{"http://", "", "no host"},
	} {
		u, err := pmproxy.ParseURL(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one about %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case u.String() != tc.want:
			t.Errorf("%q: %s, want %s", tc.in, u, tc.want)
		}
	}
}

// TestHostDown: pmproxy that cannot reach the pmcd answers with its
// message, which the error carries with pmproxy's and the host's names.
func TestHostDown(t *testing.T) {
	proxy := oracle.PMProxyFor(t)
	port, err := oracle.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf("127.0.0.1:%d", port)
	c, err := pmproxy.New(proxy.URL, pmproxy.Options{Hostspec: spec})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = c.LookupNames(context.Background(), []string{"sample.long.one"})
	if err == nil {
		t.Fatal("no error for a pmcd that is down")
	}
	for _, want := range []string{spec, "through pmproxy", "cannot connect to PMCD", "Connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var pe *pmproxy.Error
	if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest {
		t.Errorf("error %v is not pmproxy's 400 answer", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestPMProxyDown: nothing listens at the URL.
func TestPMProxyDown(t *testing.T) {
	port, err := oracle.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	c, err := pmproxy.New(fmt.Sprintf("127.0.0.1:%d", port), pmproxy.Options{Hostspec: "db1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Version(context.Background())
	if err == nil || !strings.Contains(err.Error(), "connecting to pmproxy") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("error %v, want a refused connection to pmproxy", err)
	}
	if !strings.Contains(err.Error(), "pmcd at db1 through pmproxy 127.0.0.1:") {
		t.Errorf("error %q does not name the host and pmproxy", err)
	}
}

// TestSlowPMProxy: a request that gets no answer ends at the request
// timeout with ErrTimeout, and the caller's deadline is kept too.
func TestSlowPMProxy(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := pmproxytest.New(t, map[string]http.HandlerFunc{
		"metric": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})
	c, err := pmproxy.New(srv.URL, pmproxy.Options{RequestTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = c.LookupNames(context.Background(), []string{"a.b"})
	if !errors.Is(err, pmclient.ErrTimeout) {
		t.Fatalf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("timed out after %v, want about 200ms", d)
	}
	c2, _ := pmproxy.New(srv.URL, pmproxy.Options{RequestTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, _, err := c2.LookupNames(ctx, []string{"a.b"}); err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("caller's deadline: error %v after %v", err, time.Since(start))
	}
}

// TestContextExpired: a web context pmproxy has dropped is made again.
func TestContextExpired(t *testing.T) {
	var contexts, metrics atomic.Int32
	srv := pmproxytest.New(t, map[string]http.HandlerFunc{
		"context": func(w http.ResponseWriter, r *http.Request) {
			n := contexts.Add(1)
			fmt.Fprintf(w, `{"context":%d,"labels":{}}`, n)
		},
		"metric": func(w http.ResponseWriter, r *http.Request) {
			metrics.Add(1)
			if r.URL.Query().Get("context") == "1" {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"context":1,"message":"unknown context identifier: 1","success":false}`)
				return
			}
			io.WriteString(w, `{"context":2,"metrics":[{"name":"a.b","series":"s","pmid":"1.2.3","type":"u32","sem":"counter","units":"Kbyte / sec","labels":{},"text-oneline":"x"}]}`)
		},
	})
	c, _ := pmproxy.New(srv.URL, pmproxy.Options{})
	ids, errs, err := c.LookupNames(context.Background(), []string{"a.b"})
	if err != nil || errs[0] != nil || ids[0] != pmapi.NewPMID(1, 2, 3) {
		t.Fatalf("got %v %v %v", ids, errs, err)
	}
	if contexts.Load() != 2 || metrics.Load() != 2 {
		t.Errorf("%d contexts, %d metric requests; want 2 and 2", contexts.Load(), metrics.Load())
	}
	d, _, _ := c.Descs(context.Background(), ids)
	want := pmapi.Desc{PMID: ids[0], Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter,
		Units: pmapi.Units{DimSpace: 1, DimTime: -1, ScaleSpace: pmapi.SpaceKByte, ScaleTime: pmapi.TimeSec}}
	if d[0] != want {
		t.Errorf("desc %+v, want %+v", d[0], want)
	}
}

// TestBadAnswers: answers that are not what pmproxy sends are errors
// with context, never panics or unbounded reads.
func TestBadAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		body string
		want string
	}{
		"not json":      {`<html>`, "not the JSON expected"},
		"bad pmid":      {`{"metrics":[{"name":"a.b","pmid":"x","type":"u32","sem":"counter","units":"none"}]}`, "PMID"},
		"bad type":      {`{"metrics":[{"name":"a.b","pmid":"1.2.3","type":"u128","sem":"counter","units":"none"}]}`, "type"},
		"bad units":     {`{"metrics":[{"name":"a.b","pmid":"1.2.3","type":"u32","sem":"counter","units":"furlong"}]}`, "units"},
		"bad sem":       {`{"metrics":[{"name":"a.b","pmid":"1.2.3","type":"u32","sem":"sometimes","units":"none"}]}`, "semantics"},
		"too large":     {`{"metrics":[` + strings.Repeat(" ", 2000) + `]}`, "limit"},
		"labels no obj": {`{"metrics":[{"name":"a.b","pmid":"1.2.3","type":"u32","sem":"counter","units":"none","labels":[1]}]}`, "labels"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := pmproxytest.New(t, map[string]http.HandlerFunc{
				"metric": func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tc.body) },
			})
			c, _ := pmproxy.New(srv.URL, pmproxy.Options{MaxResponse: 1000})
			_, _, err := c.LookupNames(context.Background(), []string{"a.b"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one about %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "/pmapi/metric?names=a.b") {
				t.Errorf("error %q does not name the request", err)
			}
		})
	}
}

// TestFetchForms: pmproxy's timestamp (nanoseconds unpadded), names
// repeated per PMID, null instances and values.
func TestFetchForms(t *testing.T) {
	srv := pmproxytest.New(t, map[string]http.HandlerFunc{
		"metric": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"metrics":[
				{"name":"a.one","pmid":"1.0.1","type":"64","sem":"instant","units":"none"},
				{"name":"a.s","pmid":"1.0.2","indom":"1.5","type":"string","sem":"discrete","units":"none"},
				{"name":"a.f","pmid":"1.0.3","type":"float","sem":"instant","units":"x 10^3"}]}`)
		},
		"fetch": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"context":7,"timestamp":1700000000.5000,"values":[
				{"pmid":"1.0.1","name":"a.one","instances":[{"instance":null,"value":-5}]},
				{"pmid":"1.0.1","name":"a.alias","instances":[{"instance":null,"value":-5}]},
				{"pmid":"1.0.2","name":"a.s","instances":[{"instance":3,"value":"x\u00e9"},{"instance":4,"value":null}]},
				{"pmid":"1.0.3","name":"a.f","instances":[{"instance":null,"value":1.1}]}]}`)
		},
	})
	c, _ := pmproxy.New(srv.URL, pmproxy.Options{})
	ctx := context.Background()
	ids, errs, err := c.LookupNames(ctx, []string{"a.one", "a.s", "a.f", "a.none"})
	if err != nil || errs[0] != nil || errs[1] != nil || errs[2] != nil || !errors.Is(errs[3], pmclient.ErrUnknownName) {
		t.Fatalf("lookup: %v %v %v", ids, errs, err)
	}
	res, err := c.Fetch(ctx, append(ids[:3:3], pmapi.NewPMID(1, 0, 9)))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(1700000000, 5000); !res.Timestamp.Equal(want) {
		t.Errorf("timestamp %v, want %v", res.Timestamp, want)
	}
	if v := res.Metrics[0].Values; len(v) != 1 || v[0].Int != -5 || v[0].Inst != pmclient.InNull {
		t.Errorf("a.one: %+v", res.Metrics[0])
	}
	if v := res.Metrics[1].Values; len(v) != 1 || v[0].String != "xé" || v[0].Inst != 3 {
		t.Errorf("a.s: %+v", res.Metrics[1])
	}
	if v := res.Metrics[2].Values; len(v) != 1 || v[0].Float != float64(float32(1.1)) {
		t.Errorf("a.f: %+v", res.Metrics[2])
	}
	if !errors.Is(res.Metrics[3].Err, pmclient.ErrUnknownPMID) {
		t.Errorf("unknown PMID: %+v", res.Metrics[3])
	}
	d, _, _ := c.Descs(ctx, ids[2:3])
	if d[0].Units != (pmapi.Units{ScaleCount: 3}) {
		t.Errorf("units of x 10^3: %+v", d[0].Units)
	}
}

// TestSharedGateKeepsPMProxyUp: clients sharing a gate never overlap
// their requests, so a pmproxy that crashes on overlapping requests
// (6.0.3 does, see Gate) stays up under concurrent use.
func TestSharedGateKeepsPMProxyUp(t *testing.T) {
	proxy := oracle.PMProxyFor(t)
	gate := pmproxy.NewGate(1)
	ctx := context.Background()
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			c, err := pmproxy.New(proxy.URL, pmproxy.Options{Hostspec: "127.0.0.1", Gate: gate})
			if err != nil {
				errs <- err
				return
			}
			names, err := c.AllNames(ctx)
			if err == nil {
				_, _, err = c.LookupNames(ctx, names[:min(len(names), 100)])
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	c, _ := pmproxy.New(proxy.URL, pmproxy.Options{Hostspec: "127.0.0.1"})
	if _, err := c.Version(ctx); err != nil {
		t.Fatalf("pmproxy no longer answers: %v", err)
	}
}

// A pmproxy whose libpcp loads its host's derived-metric configs (as
// one started by its service does) serves their metrics too: they are
// not the pmcd's, and lookups answer them as unknown, like pmcd.
func TestPMProxyOwnDerivedMetricsHidden(t *testing.T) {
	shipped := "/var/lib/pcp/config/derived/proc.conf"
	proxy, err := oracle.StartPMProxy(context.Background(), t.TempDir(), "PCP_DERIVED_CONFIG="+shipped)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Stop()
	c, _ := pmproxy.New(proxy.URL, pmproxy.Options{Hostspec: "127.0.0.1"})
	names, err := c.AllNames(context.Background())
	if err != nil || !slices.Contains(names, "proc.hog.cpu") {
		t.Fatalf("pmproxy does not serve %s's proc.hog.cpu (%v): the test proves nothing", shipped, err)
	}
	_, errs, err := c.LookupNames(context.Background(), []string{"proc.hog.cpu", "sample.long.one"})
	if err != nil || !errors.Is(errs[0], pmclient.ErrUnknownName) || errs[1] != nil {
		t.Errorf("lookup: %v %v", errs, err)
	}
}
