package fleet_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// withoutPMDAs hides the metrics under some roots: a host where those
// PMDAs are not installed.
type withoutPMDAs struct {
	pmclient.Source
	roots []string
}

func (w withoutPMDAs) hidden(name string) bool {
	for _, r := range w.roots {
		if name == r || strings.HasPrefix(name, r+".") {
			return true
		}
	}
	return false
}

func (w withoutPMDAs) LookupNames(ctx context.Context, names []string) ([]pmapi.PMID, []error, error) {
	ids, errs, err := w.Source.LookupNames(ctx, names)
	for i, n := range names {
		if err == nil && w.hidden(n) {
			ids[i], errs[i] = pmapi.PMIDNull, pmclient.ErrUnknownName
		}
	}
	return ids, errs, err
}

func (w withoutPMDAs) Children(ctx context.Context, name string) ([]pmclient.Child, error) {
	if w.hidden(name) {
		return nil, pmclient.ErrUnknownName
	}
	kids, err := w.Source.Children(ctx, name)
	var out []pmclient.Child
	for _, k := range kids {
		full := k.Name
		if name != "" {
			full = name + "." + k.Name
		}
		if !w.hidden(full) {
			out = append(out, k)
		}
	}
	return out, err
}

// simFleet is n simulated hosts: Go pmcds on loopback ports serving
// the embedded snapshot as four kinds of host (releases 5.2.6 without
// the disk and network PMDAs' metrics, 6.0.3, 6.3.8, 7.2.2), every
// 50th host down (a closed port). Hosts of a kind share one source.
type simFleet struct {
	targets []fleet.Target
	servers []*pmcd.Server
	conns   *pmcd.ConnCounter
}

func startFleet(tb testing.TB, n int) *simFleet {
	tb.Helper()
	src, err := embedded.Source()
	if err != nil {
		tb.Fatal(err)
	}
	kinds := []struct {
		version string
		src     pmclient.Source
	}{
		{"5.2.6", withoutPMDAs{src, []string{"disk.dm", "network.tcp"}}},
		{"6.0.3", src},
		{"6.3.8", src},
		{"7.2.2", src},
	}
	f := &simFleet{conns: &pmcd.ConnCounter{}}
	var down []net.Listener // closed once every port is taken, so none is reused
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		addr := ln.Addr().String()
		if i%50 == 49 {
			down = append(down, ln)
		} else {
			k := kinds[i%len(kinds)]
			s := &pmcd.Server{Source: k.src, Version: k.version, Conns: f.conns}
			go s.Serve(ln)
			f.servers = append(f.servers, s)
		}
		f.targets = append(f.targets, fleet.Target{Name: fmt.Sprintf("host%04d", i), Source: choose.Spec{Host: addr}})
	}
	for _, ln := range down {
		ln.Close()
	}
	tb.Cleanup(func() {
		for _, s := range f.servers {
			s.Close()
		}
	})
	return f
}

// scaleConfig is the config the simulated fleet checks: the examples,
// which use disk, network and kernel metrics.
func scaleConfig(tb testing.TB) []analysis.Input {
	tb.Helper()
	paths, _ := filepath.Glob("../testdata/examples/*.conf")
	var out []analysis.Input
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, analysis.Buffer(p, b))
	}
	if len(out) == 0 {
		tb.Fatal("no testdata/examples/*.conf")
	}
	return out
}

// scaleRun is one fleet check of the simulated fleet, measured.
type scaleRun struct {
	wall              time.Duration
	peakOpen          int32  // most sources (connections) the fleet check held open at once
	peakConns, conns  int64  // connections at the servers: most at once (they see a close late), in all
	peakHeap          uint64 // most heap in use while checking (servers included)
	retained          uint64 // heap the result holds after a GC
	allocated         uint64 // bytes allocated during the check
	outcomes, checked int
}

func measure(tb testing.TB, f *simFleet, srcs []analysis.Input, opts fleet.Options) (*fleet.Result, scaleRun) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var open, peakOpen atomic.Int32
	opts.Open = func(ctx context.Context, t fleet.Target) (pmclient.Source, error) {
		src, err := choose.Open(ctx, t.Source, choose.Options{Getenv: func(string) string { return "" }, Lazy: true})
		if err != nil {
			return nil, err
		}
		n := open.Add(1)
		for p := peakOpen.Load(); n > p && !peakOpen.CompareAndSwap(p, n); p = peakOpen.Load() {
		}
		return countingSource{src.(*pmcd.Client), &open, nil}, nil
	}
	start := time.Now()
	total0 := f.conns.Total()
	res := fleet.Check(context.Background(), srcs, f.targets, opts)
	wall := time.Since(start)
	close(stop)
	<-sampled
	runtime.GC()
	runtime.ReadMemStats(&after)
	run := scaleRun{wall: wall, peakOpen: peakOpen.Load(), peakConns: f.conns.Peak(), conns: f.conns.Total() - total0,
		peakHeap: peak.Load(), allocated: after.TotalAlloc - before.TotalAlloc, outcomes: res.DistinctOutcomes()}
	if after.HeapAlloc > before.HeapAlloc {
		run.retained = after.HeapAlloc - before.HeapAlloc
	}
	for _, h := range res.Hosts {
		if h.State == fleet.Checked {
			run.checked++
		}
	}
	runtime.KeepAlive(res)
	return res, run
}

// BenchmarkFleetScale checks the simulated fleet as it grows, Concurrency
// 16: wall time (and per host), connections (at once and in all), the
// heap in use at its peak, the heap the result keeps, and the bytes
// allocated per host. bench/fleet.sh prints the curve.
func BenchmarkFleetScale(b *testing.B) {
	srcs := scaleConfig(b)
	for _, n := range []int{50, 100, 200, 500, 1000} {
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			f := startFleet(b, n)
			var run scaleRun
			for i := 0; i < b.N; i++ {
				_, run = measure(b, f, srcs, fleet.Options{Concurrency: 16, HostTimeout: time.Minute})
			}
			if run.checked != n-n/50 {
				b.Fatalf("%d of %d hosts checked", run.checked, n)
			}
			b.ReportMetric(float64(run.wall.Microseconds())/1000/float64(n), "ms/host")
			b.ReportMetric(float64(run.peakOpen), "peak-open")
			b.ReportMetric(float64(run.peakConns), "server-peak-conns")
			b.ReportMetric(float64(run.conns), "conns")
			b.ReportMetric(float64(run.peakHeap)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(run.retained)/float64(n), "retained-B/host")
			b.ReportMetric(float64(run.allocated)/float64(n)/1024, "alloc-KiB/host")
			b.ReportMetric(float64(run.outcomes), "outcomes")
		})
	}
}

// The result of a fleet check keeps little per host: hosts that answer
// alike share their verdicts, so 400 hosts of four kinds retain a few
// hundred bytes each, and at most Concurrency connections are open.
func TestScaleMemoryBounded(t *testing.T) {
	f := startFleet(t, 400)
	_, run := measure(t, f, scaleConfig(t), fleet.Options{Concurrency: 8})
	if run.checked != 392 {
		t.Fatalf("%d of 400 hosts checked", run.checked)
	}
	if run.outcomes > 4 {
		t.Errorf("%d distinct outcomes for four kinds of host", run.outcomes)
	}
	if per := run.retained / 400; per > 1024 {
		t.Errorf("the result retains %d bytes per host", per)
	}
	if run.peakOpen > 8 {
		t.Errorf("%d connections open at once with Concurrency 8", run.peakOpen)
	}
	t.Logf("400 hosts in %v: %d B retained per host, %d connections (%d open at once; the servers saw %d, closes reach them late), %.1f KiB allocated per host",
		run.wall.Round(time.Millisecond), run.retained/400, run.conns, run.peakOpen, run.peakConns, float64(run.allocated)/400/1024)
}

// TestServeSimFleet serves a simulated fleet of $PCP_DERIVE_LSP_SIM_FLEET
// hosts until killed, writing "NAME ADDR" per host to stdout, for
// bench/fleet.sh to check with libpcp's pminfo; skipped without it. Run
// with -timeout 0.
func TestServeSimFleet(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PCP_DERIVE_LSP_SIM_FLEET"))
	if n <= 0 {
		t.Skip("set PCP_DERIVE_LSP_SIM_FLEET to a number of hosts to serve")
	}
	f := startFleet(t, n)
	for _, tg := range f.targets {
		fmt.Printf("%s %s\n", tg.Name, tg.Source.Host)
	}
	fmt.Println("ready")
	select {}
}
