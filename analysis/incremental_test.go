package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

// incrementalConfig is a generated config with what ties definitions
// together: duplicates, derived metrics used by others, attributes (some
// before their metric), #control lines, suppression comments, broken
// expressions.
func incrementalConfig(rng *rand.Rand, g *exprgen.Generator, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("m%d", rng.IntN(n))
		switch k := rng.IntN(20); {
		case k < 9:
			fmt.Fprintf(&b, "%s = %s\n", name, g.Next())
		case k < 12:
			fmt.Fprintf(&b, "%s = kernel.all.load + m%d\n", name, rng.IntN(n))
		case k == 12:
			fmt.Fprintf(&b, "%s(oneline) = \"help for %s\"\n", name, name)
		case k == 13:
			fmt.Fprintf(&b, "#control option_novalue=%d\n", rng.IntN(2))
		case k == 14:
			b.WriteString("# pcp-derive-lsp: ignore[unknown-metric]\n")
		case k == 15:
			b.WriteString("# pcp-derive-lsp: ignore[unknwn-metric]\n")
		case k == 16:
			fmt.Fprintf(&b, "%s = disk.dev.read[sda] + mem.util.used\n", name)
		default:
			fmt.Fprintf(&b, "%s = rate(disk.dev.read) / hinv.ncpu\n", name)
		}
	}
	return b.String()
}

// keystroke types or deletes a little at a random place of text.
func keystroke(rng *rand.Rand, text string) string {
	at := rng.IntN(len(text) + 1)
	typed := []string{"x", "1", " ", "(", ")", "=", "+", ".", "m1", "m2", "\n", "#", "kernel.all.load", "\"", "novalue()"}
	if rng.IntN(3) == 0 && at < len(text) {
		return text[:at] + text[min(len(text), at+1+rng.IntN(3)):]
	}
	return text[:at] + typed[rng.IntN(len(typed))] + text[at:]
}

// view is what an analysis tells, for comparing two.
func view(r *Result) []any {
	f := r.Files[0]
	return []any{f.Findings.Slice(), f.Unfiltered(), r.PCPOrder(), r.Checked, r.CheckErr, r.SourceName}
}

// TestIncrementalEqualsRun: after random keystrokes, each analysed with
// Reparse and Recheck from the previous version's analysis, the findings
// equal those of a from-scratch Run of the same text, on each grammar.
// Also with a cap of 3 findings a code (Config.MaxPerCode), which the
// generated configs pass: capped as the read and check go, Recheck leaves
// those to a full check; capped as shown (Options.Incremental, the
// editor's way), the analysis stays incremental, and shows what the
// capped fresh run shows.
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestIncrementalEqualsRun(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	cache := pmclient.NewCache(src)
	ctx := context.Background()
	type mode struct {
		limit       int
		incremental bool
	}
	type run struct {
		v    pcpver.Version
		seed uint64
	}
	var runs []run
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		for seed := uint64(1); seed <= 8; seed++ {
			runs = append(runs, run{v, seed})
		}
	}
	sampled := testsize.Sample(t, runs)
	for _, m := range []mode{{0, false}, {3, false}, {3, true}} {
		reparsed, rechecked, steps, capped := 0, 0, 0, 0
		for _, r := range sampled {
			v, seed := r.v, r.seed
			cfg := Config{Version: VersionChoice{Version: v, Reason: "test"}, Source: cache, MaxPerCode: m.limit}
			uncapped := cfg
			uncapped.MaxPerCode = 0
			rng := rand.New(rand.NewPCG(seed, 3))
			g := exprgen.New(seed, []string{"kernel.all.load", "disk.dev.read", "mem.util.used", "hinv.ncpu", "no.such.metric"})
			text := incrementalConfig(rng, g, 40)
			memo := grammar.NewMemo()
			opts := Options{Memo: memo, Incremental: m.incremental}
			checked := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, opts)
			parsed := Parse([]Input{Buffer("t.conf", []byte(text))}, cfg, opts)
			for step := 0; step < 60; step++ {
				text = keystroke(rng, text)
				var ok bool
				parsed, ok = Reparse(parsed, "t.conf", grammar.NewText([]byte(text)), cfg, opts)
				next := Recheck(ctx, checked, parsed)
				steps++
				if ok {
					reparsed++
				}
				if next.refs.load() != nil && next.Report != nil && ok {
					rechecked++
				}
				if slices.ContainsFunc(next.Files[0].Findings.Slice(), func(d grammar.Diagnostic) bool { return d.More > 0 }) {
					capped++
				}
				checked = next
				want := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{})
				got, exp := view(checked), view(want)
				if m.incremental {
					// Shown capped; libpcp's lists (Unfiltered,
					// PCPOrder) kept whole, as a run without a cap
					// has them.
					whole := view(Run(ctx, []Input{Buffer("t.conf", []byte(text))}, uncapped, Options{}))
					if g, w := got[1:3], whole[1:3]; !reflect.DeepEqual(g, w) {
						t.Fatalf("%+v %s seed %d step %d: the incremental analysis's libpcp lists differ from an uncapped run\ntext:\n%s\ngot  %+v\nwant %+v", m, v, seed, step, text, g, w)
					}
					got[1], got[2] = exp[1], exp[2] // compared above
				}
				if !reflect.DeepEqual(got, exp) {
					t.Fatalf("%+v %s seed %d step %d: incremental findings differ from a fresh run\ntext:\n%s\n%s", m, v, seed, step, text, viewDiff(got, exp))
				}
				if got, exp := registeredNames(checked), registeredNames(want); !reflect.DeepEqual(got, exp) {
					t.Fatalf("%+v %s seed %d step %d: the report's metrics by name differ from a fresh run\ngot  %v\nwant %v", m, v, seed, step, got, exp)
				}
				if got, exp := metricsInOrder(t, checked), metricsInOrder(t, want); !reflect.DeepEqual(got, exp) {
					t.Fatalf("%+v %s seed %d step %d: the report's list of metrics differs from a fresh run\ngot  %v\nwant %v", m, v, seed, step, got, exp)
				}
			}
		}
		t.Logf("%+v: %d keystrokes: %d parsed again incrementally, %d checked incrementally; %d capped analyses", m, steps, reparsed, rechecked, capped)
		// 100 over all the runs; under -race, the sampled runs' share of it.
		if want := 100 * len(sampled) / len(runs); m.limit > 0 && capped < want {
			t.Errorf("%+v: only %d analyses with a stand-in for capped findings, want %d", m, capped, want)
		}
		// Capped as it goes, an analysis with a stand-in is never
		// incremental; capped as shown, it is as often as uncapped.
		if (m.limit == 0 || m.incremental) && (reparsed < steps/6 || rechecked < steps/6) {
			t.Errorf("%+v: too few incremental analyses: %d reparsed, %d rechecked of %d", m, reparsed, rechecked, steps)
		}
	}
}

// viewDiff says where two views differ: the first finding that does, in
// the first list that does, or both views whole.
func viewDiff(got, want []any) string {
	for i := range got {
		if reflect.DeepEqual(got[i], want[i]) {
			continue
		}
		g, gok := got[i].([]grammar.Diagnostic)
		w, wok := want[i].([]grammar.Diagnostic)
		if !gok || !wok {
			break
		}
		for k := range max(len(g), len(w)) {
			switch {
			case k >= len(g):
				return fmt.Sprintf("view %d: missing finding %d: %+v", i, k, w[k])
			case k >= len(w):
				return fmt.Sprintf("view %d: extra finding %d: %+v", i, k, g[k])
			case !reflect.DeepEqual(g[k], w[k]):
				return fmt.Sprintf("view %d finding %d:\ngot  %+v\nwant %+v", i, k, g[k], w[k])
			}
		}
	}
	return fmt.Sprintf("got  %+v\nwant %+v", got, want)
}

// registeredNames lists a report's metrics by name, with each metric's
// definition line, as the evaluator and the editor look them up.
func registeredNames(r *Result) []string {
	if r.Report == nil {
		return nil
	}
	var out []string
	for name, m := range r.Report.ByName.All() {
		out = append(out, fmt.Sprintf("%s@%d:%s", name, m.Def.Range.Start.Line, m.Def.Expr))
	}
	sort.Strings(out)
	return out
}

// metricsInOrder lists a report's metrics in their order (Recheck
// splices them into the earlier list), failing when one is not the one
// its name looks up.
func metricsInOrder(t *testing.T, r *Result) []string {
	t.Helper()
	if r.Report == nil {
		return nil
	}
	var out []string
	for m := range r.Report.Metrics.Values() {
		if got, ok := r.Report.ByName.Lookup(m.Def.Name); !ok || got != m {
			t.Fatalf("metric %s at %d is not the one its name looks up", m.Def.Name, m.Def.Range.Start.Line)
		}
		out = append(out, fmt.Sprintf("%s@%d:%s:%s", m.Def.Name, m.Def.Range.Start.Line, m.Def.Expr, m.Status))
	}
	return out
}

// swapSource answers as whichever source it holds now.
type swapSource struct{ pmclient.Source }

// A PMDA installed while the file is open (pmcd reports a change, the
// cache is dropped): the next keystroke checks every definition again, so
// an operand that was unknown is known now, even on a line not edited.
func TestRecheckAfterMetadataChange(t *testing.T) {
	snap := func(metrics string) pmclient.Source {
		t.Helper()
		src, err := snapshot.Read(strings.NewReader(`{"format": "pcp-derive-lsp-snapshot", "version": 1, "source": "test", "pcpVersion": "6.0.3", "metrics": [`+metrics+`]}`), "test")
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	one := `{"name": "a.one", "pmid": "1.0.1", "type": "U32", "indom": "", "sem": "instant", "units": ""}`
	two := `{"name": "b.two", "pmid": "2.0.1", "type": "U32", "indom": "", "sem": "instant", "units": ""}`
	swap := &swapSource{snap(one)}
	cache := pmclient.NewCache(swap)
	ctx := context.Background()
	cfg := Config{Version: VersionChoice{Version: pcpver.V6_0_3, Reason: "test"}, Source: cache}
	text := "x = a.one + 1\ny = b.two * 2\n"
	checked := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{})
	if n := len(checked.Files[0].Findings.Slice()); n != 1 {
		t.Fatalf("before the change: %d findings, want b.two unknown: %v", n, checked.Files[0].Findings.Slice())
	}

	swap.Source = snap(one + "," + two) // the PMDA of b.two installed
	cache.Flush()                       // as after pmcd's change notice
	text = "x = a.one + 12\ny = b.two * 2\n"
	parsed, ok := Reparse(checked, "t.conf", grammar.NewText([]byte(text)), cfg, Options{})
	if !ok {
		t.Fatal("a keystroke inside one line was not parsed incrementally")
	}
	next := Recheck(ctx, checked, parsed)
	if n := len(next.Files[0].Findings.Slice()); n != 0 {
		t.Errorf("after the change: %v, want no findings (b.two exists now)", next.Files[0].Findings.Slice())
	}
}

// TestCappedFindings: with Config.MaxPerCode, a finding a suppression
// comment turns off is not counted against the cap (the stand-in once sat
// on a suppressed definition and vanished with it), and an edit that
// pushes a code past the cap gets Check's stand-in from Recheck too (it
// once returned the listed findings without one).
func TestCappedFindings(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: 2}
	count := func(r *Result) (n int) {
		for _, d := range r.Files[0].Findings.Slice() {
			if d.Code == "unknown-metric" {
				n += d.Count()
			}
		}
		return n
	}
	text := "a = no.such.a\nb = no.such.b\n# pcp-derive-lsp: ignore[unknown-metric]\nc = no.such.c\nd = no.such.d\ne = no.such.e\n"
	got := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{})
	if n := count(got); n != 4 {
		t.Errorf("suppressed one of five unknown names under a cap of 2: %d counted, want 4\n%+v", n, got.Files[0].Findings.Slice())
	}

	text = "a = no.such.a\n"
	memo := grammar.NewMemo()
	opts := Options{Memo: memo}
	checked := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, opts)
	parsed := Parse([]Input{Buffer("t.conf", []byte(text))}, cfg, opts)
	text += "b = x.a + x.b + x.c + x.d + x.e\n"
	parsed, _ = Reparse(parsed, "t.conf", grammar.NewText([]byte(text)), cfg, opts)
	next := Recheck(ctx, checked, parsed)
	want := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{})
	if g, w := view(next), view(want); !reflect.DeepEqual(g, w) {
		t.Errorf("Recheck past the cap differs from a fresh run\ngot  %+v\nwant %+v", g, w)
	}
	if n := count(next); n != 6 {
		t.Errorf("Recheck past the cap counts %d unknown names, want 6", n)
	}
}

// TestReparseBinaryBuffer: an edit that puts a NUL byte in a buffer's
// first 8 KB (here in its second Text piece) makes the buffer binary, as
// Parse of the same text says, and one that takes it out again makes it
// a config.
func TestReparseBinaryBuffer(t *testing.T) {
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}}
	var b strings.Builder
	for i := range 700 {
		fmt.Fprintf(&b, "m.a%d = 1 + 2\n", i) // 10 KB
	}
	text := grammar.NewText([]byte(b.String()))
	prev := Parse([]Input{BufferText("t.conf", text)}, cfg, Options{})
	codes := func(r *Result) (out []string) {
		for _, d := range r.Files[0].Findings.Slice() {
			out = append(out, d.Code)
		}
		return out
	}
	nul := text.Replace(6000, 6001, []byte{0})
	got, _ := Reparse(prev, "t.conf", nul, cfg, Options{})
	want := Parse([]Input{Buffer("t.conf", nul.Bytes())}, cfg, Options{})
	if !slices.Equal(codes(got), codes(want)) || !slices.Contains(codes(got), "binary-file") {
		t.Fatalf("with a NUL: %v, want %v (binary-file)", codes(got), codes(want))
	}
	again, _ := Reparse(got, "t.conf", text, cfg, Options{})
	if len(codes(again)) != 0 {
		t.Fatalf("without it: %v, want none", codes(again))
	}
}

// TestPrepare: Prepare builds the indexes the first keystroke after a full
// check would build, and the keystroke's analysis after it equals a
// fresh run.
func TestPrepare(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode}
	opts := Options{Memo: grammar.NewMemo(), Incremental: true}
	text := "a = kernel.all.load\nb = a + hinv.ncpu\nc = b * 2\n"
	parsed := Parse([]Input{Buffer("t.conf", []byte(text))}, cfg, opts)
	checked := Check(ctx, parsed)
	if checked.refs.load() != nil {
		t.Fatal("a full check built the index of uses already")
	}
	checked.Prepare()
	if checked.refs.load() == nil {
		t.Fatal("Prepare built no index of uses")
	}
	text = "a = kernel.all.loadx\nb = a + hinv.ncpu\nc = b * 2\n"
	next, ok := Reparse(parsed, "t.conf", grammar.NewText([]byte(text)), cfg, opts)
	got := Recheck(ctx, checked, next)
	if !ok || got.refs.load() == nil {
		t.Fatalf("the keystroke after Prepare was not analysed incrementally (reparsed %v)", ok)
	}
	want := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{})
	if g, w := view(got), view(want); !reflect.DeepEqual(g[0], w[0]) {
		t.Errorf("after Prepare:\n%s", viewDiff(g, w))
	}
}
