package fleet_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy/pmproxytest"
)

// TestOnePMProxyUnderManyPaths: 16 hosts behind one pmproxy, each
// reached under a URL path of its own, have one gate: never two requests
// in flight at once to that pmproxy (issue #41: a gate per URL text let
// 16 hostile answers decode at once, 2.5 GB and out of memory; with one
// gate and the shared decoding budget, pmproxy's TestFleetBehindOnePMProxy
// holds the memory).
func TestOnePMProxyUnderManyPaths(t *testing.T) {
	srv := pmproxytest.New(t, map[string]http.HandlerFunc{
		"context": func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(20 * time.Millisecond) // long enough for overlaps to show
			io.WriteString(w, `{"context":7,"labels":{"hostname":"h"}}`)
		},
	})
	var targets []fleet.Target
	for i := 0; i < 16; i++ {
		tg, err := fleet.ParseTarget(fmt.Sprintf("%s/path%d?hostspec=h%d", srv.URL, i, i), "")
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	fleet.Check(context.Background(), []analysis.Input{analysis.Buffer("app.conf", []byte("m.a = sample.long.one\n"))}, targets,
		fleet.Options{Concurrency: 16, PMProxyParallel: 1, HostTimeout: time.Minute})
	if n := srv.MaxInFlight(); n != 1 {
		t.Errorf("%d requests in flight at once to one pmproxy, want 1", n)
	}
}
