package pmcd

import (
	"context"
	"errors"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// serve runs a Server for src on a loopback port and returns a client.
func serve(t *testing.T, s *Server) *Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	c, err := New(ln.Addr().String(), Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The Server serves a snapshot as the snapshot itself answers: this
// package's Client through it equals the snapshot source, metric by
// metric.
func TestServerServesItsSource(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	conns := &ConnCounter{}
	c := serve(t, &Server{Source: src, Conns: conns})
	ctx := context.Background()
	if v, err := c.Version(ctx); err != nil || v != "6.0.3" {
		t.Fatalf("version %q %v", v, err)
	}
	names, err := c.AllNames(ctx)
	want, _ := src.AllNames(ctx)
	if err != nil || !reflect.DeepEqual(names, want) {
		t.Fatalf("names: %d %v, want %d", len(names), err, len(want))
	}
	ids, errs, err := c.LookupNames(ctx, append(names, "no.such"))
	wids, werrs, _ := src.LookupNames(ctx, append(names, "no.such"))
	if err != nil || !reflect.DeepEqual(ids, wids) || !errors.Is(errs[len(names)], pmclient.ErrUnknownName) || werrs[len(names)] == nil {
		t.Fatalf("lookup: %v", err)
	}
	descs, derrs, err := c.Descs(ctx, ids[:len(names)])
	wdescs, _, _ := src.Descs(ctx, wids[:len(names)])
	if err != nil || !reflect.DeepEqual(descs, wdescs) {
		t.Fatalf("descs differ: %v", err)
	}
	indoms := map[pmapi.InDom]bool{}
	for i, d := range descs {
		if derrs[i] != nil {
			t.Errorf("%s: %v", names[i], derrs[i])
		}
		if d.InDom != pmapi.InDomNull {
			indoms[d.InDom] = true
		}
		for _, long := range []bool{false, true} {
			h, _ := c.HelpText(ctx, pmclient.HelpTarget{PMID: d.PMID, InDom: pmapi.InDomNull}, long)
			wh, _ := src.HelpText(ctx, pmclient.HelpTarget{PMID: d.PMID, InDom: pmapi.InDomNull}, long)
			if h != wh {
				t.Errorf("%s help: %q, want %q", names[i], h, wh)
			}
		}
	}
	for id := range indoms {
		in, err := c.Instances(ctx, id)
		win, werr := src.Instances(ctx, id)
		if (err == nil) != (werr == nil) || len(in)+len(win) > 0 && !reflect.DeepEqual(in, win) {
			t.Errorf("indom %s: %v %v, want %v %v", id, in, err, win, werr)
		}
	}
	kids, err := c.Children(ctx, "kernel.all")
	wkids, _ := src.Children(ctx, "kernel.all")
	if err != nil || !reflect.DeepEqual(kids, wkids) {
		t.Errorf("children: %v %v, want %v", kids, err, wkids)
	}
	res, err := c.Fetch(ctx, ids[:2])
	if err != nil || res.Metrics[0].Err == nil {
		t.Errorf("fetch from a snapshot: %+v %v, want per-metric errors", res, err)
	}
	if conns.Total() != 1 || conns.Peak() != 1 {
		t.Errorf("connections: %d total, %d at once", conns.Total(), conns.Peak())
	}
}

// Delay holds every answer back: a slow host.
func TestServerDelay(t *testing.T) {
	src, _ := embedded.Source()
	c := serve(t, &Server{Source: src, Version: "7.2.2", Delay: 100 * time.Millisecond})
	start := time.Now()
	if v, err := c.Version(context.Background()); err != nil || v != "7.2.2" {
		t.Fatalf("version %q %v", v, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("a greeting, a lookup, a descriptor and a fetch took %v with a 100ms delay each", d)
	}
}
