package checker

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// TestManyUnknownNamesOneLine: the check of one definition naming
// thousands of unknown metrics allocates in proportion to its text under
// every release's rules. Each unknown name of a PCP 6.2.2+ config gets a
// "Guard it" fix that rewrites the whole expression: one for each of
// 10,000 names allocated 7 GB (the fixes are now bounded per definition).
func TestManyUnknownNamesOneLine(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprintf("no.such.m%d", i)
	}
	text := []byte("m = " + strings.Join(names, " + ") + "\n")
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		f := grammar.ParseConfig("hostile.conf", text, grammar.Options{Version: v})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: v, FindingsOnly: true})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rep.Diagnostics(f)); got < len(names) {
			t.Errorf("%s: %d findings, want one per unknown name (%d)", v, got, len(names))
		}
		// About 2 KB a name today (its finding, message, tree nodes,
		// suggestions); the bound leaves room and still fails the
		// quadratic (~300 KB a name at this size).
		allocated := after.TotalAlloc - before.TotalAlloc
		if bound := uint64(len(names)) * 16 << 10; allocated > bound {
			t.Errorf("%s: the check of %d unknown names in %d bytes allocated %d MB, over %d MB", v, len(names), len(text), allocated>>20, bound>>20)
		}
		t.Logf("%s: %d unknown names, %d bytes: %d findings, %.1f MB allocated", v, len(names), len(text), len(rep.Diagnostics(f)), float64(allocated)/(1<<20))
	}
}

// TestTooDeepCrashesLibpcp: a chain of operators past grammar.MaxTreeDepth
// crashes every release's pminfo (libpcp walks the tree recursively and
// overflows the default 8 MB stack), and the checker says so as an error
// without building the tree; a chain under the limit crashes none and
// gets no such finding. A metric using one crashes releases that bind
// derived operands (before 6.2.2) and is an error of its own there.
//
// The 1,100,000-term chain proves our cost stays bounded, which no
// release changes, and libpcp crashes on it as on the 45,000-term one: it
// runs on the four Debian releases only.
//
// Under -race it runs one case in eight (internal/testsize): the
// 45,000-term chain on every release; make test runs every case again
// without it.
func TestTooDeepCrashesLibpcp(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	chain := func(terms int) string {
		return strings.Repeat("sample.long.one + ", terms-1) + "sample.long.one"
	}
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		// The crash first: it is the case the -race pass runs.
		for _, tc := range testsize.Sample(t, []struct {
			terms int
			crash bool
		}{{45000, true}, {20000, false}, {1100000, true}}) {
			if tc.terms > 1000000 && r.Suite == "upstream" {
				continue
			}
			config := "deep = " + chain(tc.terms) + "\nb = deep + 1\n"
			crashed, err := r.Crashes(context.Background(), config, "deep")
			if err != nil {
				t.Fatal(err)
			}
			if crashed != tc.crash {
				t.Errorf("%s: pminfo -f of a chain of %d operators crashed = %v, want %v", r, tc.terms-1, crashed, tc.crash)
			}
			f := grammar.ParseConfig("deep.conf", []byte(config), grammar.Options{Version: r.Version})
			rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: r.Version, FindingsOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			said := false
			for _, d := range rep.Diagnostics(f) {
				if d.Code == "libpcp-crash" && d.Severity == grammar.SeverityError {
					said = true
				}
			}
			if said != tc.crash {
				t.Errorf("%s: a chain of %d operators: libpcp-crash error = %v, want %v (findings %v)", r, tc.terms-1, said, tc.crash, rep.Diagnostics(f))
			}
			if m, _ := rep.ByName.Lookup("deep"); tc.crash && (m == nil || m.Status != Crashes || !strings.Contains(m.Message(), "operators deep")) {
				t.Errorf("%s: a chain of %d operators: metric %+v, want status %s with the reason", r, tc.terms-1, m, Crashes)
			}
			if !tc.crash {
				continue
			}
			bCrashed, err := r.Crashes(context.Background(), config, "b")
			if err != nil {
				t.Fatal(err)
			}
			if want := !r.Version.Has(pcpver.NestedDerivedError); bCrashed != want {
				t.Errorf("%s: pminfo -f of a metric using the deep one crashed = %v, want %v", r, bCrashed, want)
			}
			if m, _ := rep.ByName.Lookup("b"); m == nil || (m.Status == Crashes) != bCrashed {
				t.Errorf("%s: the metric using the deep one: %+v, libpcp crashed = %v", r, m, bCrashed)
			}
		}
	})
}

// TestMaxPerCode: past Options.MaxPerCode findings of one code and
// severity in a file, the rest are counted in one stand-in where the first
// of them is; other codes are listed as before, the counts by code and
// severity add up to the uncapped check's, and the fixes of a listed
// finding are its own (the "Guard it" fix of an omitted one once landed
// on the last listed finding).
func TestMaxPerCode(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	var config strings.Builder
	// The first metric names one defined last, which is checked first,
	// and its finding made first: the first findings by position are
	// still the ones listed.
	config.WriteString("u0 = last + no.such.metric0\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&config, "u%d = no.such.metric%d\n", i, i)
	}
	config.WriteString("r0 = rate(hinv.ncpu)\nr1 = rate(hinv.ncpu)\n")
	for i := range 5 { // a PMDA not installed: a warning, then hints
		fmt.Fprintf(&config, "p%d = denki.rapl.x%d\n", i, i)
	}
	config.WriteString("last = no.such.last\n")
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		count := func(limit int) (map[string]int, []grammar.Diagnostic) {
			f := grammar.ParseConfig("cap.conf", []byte(config.String()), grammar.Options{Version: v})
			rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: v, FindingsOnly: true, MaxPerCode: limit})
			if err != nil {
				t.Fatal(err)
			}
			n := map[string]int{}
			for _, d := range rep.Diagnostics(f) {
				n[fmt.Sprint(d.Code, " ", d.Severity)] += d.Count()
				for _, fix := range d.Fixes {
					for _, e := range fix.Edits {
						if e.Range.Start.Line != d.Range.Start.Line {
							t.Errorf("%s: the finding on line %d has a fix for line %d", v, d.Range.Start.Line, e.Range.Start.Line)
						}
					}
				}
			}
			return n, rep.Diagnostics(f)
		}
		all, uncapped := count(0)
		if all["unknown-metric error"]+all["unknown-metric warning"] < 30 || all["rate-of-instant warning"] != 2 || len(all) < 4 {
			t.Fatalf("%s: uncapped counts %v", v, all)
		}
		capped, diags := count(10)
		if !maps.Equal(capped, all) {
			t.Errorf("%s: capped counts %v, want %v", v, capped, all)
		}
		var listed, standIns []grammar.Diagnostic
		for _, d := range diags {
			if d.Code != "unknown-metric" {
				continue
			}
			if d.More > 0 {
				standIns = append(standIns, d)
			} else {
				listed = append(listed, d)
			}
		}
		if len(listed) != 10 || len(standIns) != 1 {
			t.Fatalf("%s: %d listed and %d stand-ins, want 10 and 1", v, len(listed), len(standIns))
		}
		var unknown []grammar.Diagnostic
		for _, d := range uncapped {
			if d.Code == "unknown-metric" {
				unknown = append(unknown, d)
			}
		}
		if !reflect.DeepEqual(listed, unknown[:10]) {
			t.Errorf("%s: listed unknown-metric findings are not the first 10 by position:\n%v\nwant\n%v", v, listed, unknown[:10])
		}
		s := standIns[0]
		first := unknown[10] // the first finding not listed
		if s.More != len(unknown)-10 || s.Range != first.Range || s.Severity != first.Severity || !strings.Contains(s.Message, fmt.Sprintf("%d more unknown-metric findings", len(unknown)-10)) {
			t.Errorf("%s: stand-in %+v, want %d more at %v (%v)", v, s, len(unknown)-10, first.Range, first.Severity)
		}
		if byOne, _ := count(1); !maps.Equal(byOne, all) {
			t.Errorf("%s: counts with one listed a kind %v, want %v", v, byOne, all)
		}
	}
}
