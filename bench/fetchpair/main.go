// Command fetchpair times one pmcd fetch round trip of ours against
// libpcp's pmFetch, in bursts that take turns (bench/pmcd.sh).
//
//	fetchpair -host 127.0.0.1 -names bench/testdata/fetch50.names \
//		-- /usr/bin/python3 bench/lib/pmfetch.py 127.0.0.1 bench/testdata/fetch50.names
//
// Ours runs in this process; libpcp's in the command after "--", which
// speaks bench/lib/pmfetch.py's protocol: "ready VALUES LOOP_NS" once warm, then
// for each line N on its stdin a burst of N fetches, answered with the
// wall-clock and CPU nanoseconds per fetch.
//
// Why bursts, taking turns, in two long-lived processes: both clients
// spend over 90% of a fetch waiting for pmcd and its agents, whose speed
// on a shared 2-core machine drifts by more than the clients differ from
// one second to the next. Runs of a few hundred fetches in a fresh
// process each (what bench/pmcd.sh did before) gave paired ratios from
// 0.97 to 1.03 on the same code; bursts of 50 (about 17 ms) alternating
// for 400 rounds see the same pmcd on both sides of each pair, and the
// median of 400 paired ratios has a 95% interval of about ±1%, which this
// command prints.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

func main() {
	host := flag.String("host", "127.0.0.1", "pmcd host specification")
	namesFile := flag.String("names", "bench/testdata/fetch50.names", "metric names to fetch, white-space separated")
	rounds := flag.Int("rounds", 400, "rounds: one burst a side each, the first side alternating")
	burst := flag.Int("burst", 50, "fetches in a burst")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: fetchpair [flags] -- LIBPCP-COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 1 || *burst < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *host, *namesFile, *rounds, *burst, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "fetchpair:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, host, namesFile string, rounds, burst int, libpcpCmd []string) error {
	src, err := os.ReadFile(namesFile)
	if err != nil {
		return err
	}
	names := strings.Fields(string(src))
	o, err := newOurs(ctx, host, names)
	if err != nil {
		return err
	}
	defer o.close()
	l, err := startChild(ctx, libpcpCmd)
	if err != nil {
		return err
	}
	defer l.close()
	ourRuns, libRuns, err := alternate(o, l, rounds, burst)
	if err != nil {
		return err
	}
	allocs, bytes, err := o.allocsPerFetch(200)
	if err != nil {
		return err
	}
	s := summarize(ourRuns, libRuns)
	fmt.Fprintf(w, "pmcd fetch of %d metrics (%d values; libpcp got %d): %d rounds of %d fetches a side, taking turns\n",
		len(names), o.values, l.values, rounds, burst)
	fmt.Fprintf(w, "  medians of the bursts: ours %.1f µs, libpcp pmFetch %.1f µs; CPU a fetch: ours %.1f µs, libpcp %.1f µs (with its Python loop); ours %.0f allocs, %.0f B a fetch\n",
		s.ours.Seconds()*1e6, s.libpcp.Seconds()*1e6, s.oursCPU.Seconds()*1e6, s.libpcpCPU.Seconds()*1e6, allocs, bytes)
	fmt.Fprintf(w, "  paired: the median of the rounds' libpcp/ours is %.3f× (95%% interval %.3f–%.3f, quartiles %.2f–%.2f); goal ≥ 1\n",
		s.ratio, s.ratioLo, s.ratioHi, s.ratioQ1, s.ratioQ3)
	fmt.Fprintf(w, "RESULT fetch50_paired_ratio %.4f x\nRESULT fetch50_paired_lo %.4f x\nRESULT fetch50_paired_hi %.4f x\n", s.ratio, s.ratioLo, s.ratioHi)
	fmt.Fprintf(w, "RESULT fetch50_us %.1f us\nRESULT libpcp_fetch50_us %.1f us\nRESULT fetch50_allocs %.0f allocs\n", s.ours.Seconds()*1e6, s.libpcp.Seconds()*1e6, allocs)
	fmt.Fprintf(w, "RESULT fetch50_cpu_us %.1f us\nRESULT libpcp_fetch50_cpu_us %.1f us\n", s.oursCPU.Seconds()*1e6, s.libpcpCPU.Seconds()*1e6)
	fmt.Fprintf(w, "NOTE libpcp's fetch is timed in a Python loop through ctypes, which adds about %.1f µs a fetch to it\n", l.loop.Seconds()*1e6)
	return nil
}

// alternate runs rounds of one burst a side, the side going first
// alternating, so that neither side always follows the other.
func alternate(a, b side, rounds, burst int) (as, bs []timing, err error) {
	for i := range rounds {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		r1, err := first.burst(burst)
		if err != nil {
			return nil, nil, err
		}
		r2, err := second.burst(burst)
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			r1, r2 = r2, r1
		}
		as, bs = append(as, r1), append(bs, r2)
	}
	return as, bs, nil
}
