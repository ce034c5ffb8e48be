package evaluator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/recordtest"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive/interp"
)

// TestInterpolationAcrossReleases: derived metrics evaluated over an
// archive read in interpolation mode (as pmval -a and pmrep -a read it)
// give each release's values, fetch for fetch: its python3-pcp pmFetch
// after pmSetMode(PM_MODE_INTERP), over a version 2 archive every
// release reads and, from 6.0, an archive with a <mark> (delta() and
// rate() across the gap), at two intervals each.
func TestInterpolationAcrossReleases(t *testing.T) {
	requirePCP(t)
	recs := recordtest.Archives(t)
	// The sample PMDA's metrics: proc's hundred instances would drown the
	// rest, and sample.dynamic has no instances here (min() and max() of
	// it would be libpcp's unwritten buffer at every fetch: see
	// minMaxUnwritten).
	var metrics []string
	for _, m := range recordtest.Logged {
		if !strings.HasPrefix(m, "proc.") && !strings.HasPrefix(m, "sample.dynamic.") {
			metrics = append(metrics, m)
		}
	}
	ctx := context.Background()
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		config, _ := releaseConfig(t, r.Version, 11, metrics, 300)
		paths := []string{recs.V2}
		if !r.Version.Less(pcpver.V6_0_3) {
			paths = append(paths, recs.Merged)
		}
		for _, path := range paths {
			a, err := archive.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			end, err := a.End(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct{ offset, interval time.Duration }{{0, 250 * time.Millisecond}, {370 * time.Millisecond, 330 * time.Millisecond}} {
				origin := a.Start().Add(w.offset)
				samples := int(end.Sub(origin)/w.interval) + 1
				f := grammar.ParseConfig("interp.conf", []byte(config), grammar.Options{Version: r.Version})
				rep, err := checker.Check(ctx, []*grammar.File{f}, a, checker.Options{Version: r.Version})
				if err != nil {
					t.Fatal(err)
				}
				valid, skip := comparable(rep)
				// In chunks with a deadline each: a few expressions hang
				// or crash some releases' libpcp at fetch (those are left
				// out and counted).
				var out strings.Builder
				kept := map[string]bool{}
				lost := 0
				var ask func(chunk []string)
				ask = func(chunk []string) {
					cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					o, err := r.Interpolate(cctx, path, config, chunk, origin, w.interval, samples)
					cancel()
					switch {
					case err == nil:
						out.WriteString(o)
						for _, n := range chunk {
							kept[n] = true
						}
					case len(chunk) == 1:
						lost++
						t.Logf("%s: left out %s = %s: %v", r, chunk[0], exprOf(rep, chunk[0]), err)
					default: // halve the chunk to find the definitions to blame
						ask(chunk[:len(chunk)/2])
						ask(chunk[len(chunk)/2:])
					}
				}
				for start := 0; start < len(valid); start += 50 {
					ask(valid[start:min(start+50, len(valid))])
				}
				for m := range rep.Metrics.Values() {
					if m.Status == checker.Valid && !kept[m.Def.Name] {
						m.Status = checker.NotRegistered // left out of our side too
					}
				}
				src, err := interp.New(ctx, a, interp.Options{Origin: origin, Interval: w.interval, Nearest: r.Version.Has(pcpver.InterpNearest)})
				if err != nil {
					t.Fatal(err)
				}
				ev, err := New(ctx, src, rep)
				if err != nil {
					t.Fatal(err)
				}
				ours, _, undefined := sampleAll(ctx, t, ev, samples)
				src.Close()
				wantLines, gotLines := byChunks(out.String()), byChunks(ours)
				if len(wantLines) != len(gotLines) {
					t.Errorf("%s %s: libpcp printed %d lines, we %d", r, path, len(wantLines), len(gotLines))
				}
				compared, differ, unset := 0, 0, 0
				var at string // the sample's T line
				for i := range min(len(wantLines), len(gotLines)) {
					name := strings.SplitN(wantLines[i], " ", 2)[0]
					if name == "T" {
						at = wantLines[i]
					}
					if skip[name] {
						continue
					}
					if undefined.skip(at, wantLines[i]) {
						// libpcp's min() or max() of no values, from a
						// buffer it never wrote (minMaxUnwritten).
						unset++
						continue
					}
					compared++
					if !oracle.SameValues(wantLines[i], gotLines[i]) {
						differ++
						if differ <= 10 {
							t.Errorf("%s %s every %v: %s = %s\n  line %d: libpcp %q, ours %q", r, path, w.interval, name, exprOf(rep, name), i+1, wantLines[i], gotLines[i])
						}
					}
				}
				t.Logf("%s, %s from +%v every %v: %d definitions, %d fetches: %d value lines compared, %d differ (%d definitions left out: libpcp hung or crashed; %d lines of min() or max() of no values, never written)", r, path[strings.LastIndexByte(path, '/')+1:], w.offset, w.interval, len(kept), samples, compared, differ, lost, unset)
				if compared < 1000 {
					t.Errorf("%s: only %d lines compared", r, compared)
				}
			}
		}
	})
}
