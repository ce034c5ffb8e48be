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
	"time"

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
	ctx := context.Background()
	cfg := latestEmbedded(t)
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

// lineEditConfig is incrementalConfig with what an edit of lines meets
// besides: definitions continued over lines, metrics of a PMDA the
// metadata lacks (hints naming the warning's line), misspelt metrics
// with their "did you mean" fixes.
func lineEditConfig(rng *rand.Rand, g *exprgen.Generator, n int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(incrementalConfig(rng, g, n), "\n") {
		b.WriteString(line)
		name := fmt.Sprintf("c%d", rng.IntN(n))
		switch rng.IntN(8) {
		case 0:
			fmt.Fprintf(&b, "%s = kernel.all.load +\\\n  hinv.ncpu *\\\n  2\n", name)
		case 1:
			fmt.Fprintf(&b, "%s = rate(redis.commands_%d)\n", name, rng.IntN(3))
		case 2:
			fmt.Fprintf(&b, "%s = disk.dev.raed + 1\n", name)
		}
	}
	return b.String()
}

// lineEdit changes text as an editor's line edits do, and returns the
// change: a line inserted or deleted, two lines joined, a line (often a
// definition) split, an edit inside a line continued from the one before.
func lineEdit(rng *rand.Rand, text string) (string, grammar.TextChange) {
	lineStart := func(at int) int { return strings.LastIndexByte(text[:at], '\n') + 1 }
	at := rng.IntN(len(text) + 1)
	replace := func(from, to int, with string) (string, grammar.TextChange) {
		return text[:from] + with + text[to:], grammar.TextChange{Start: from, OldEnd: to, NewEnd: from + len(with)}
	}
	lines := []string{"x = kernel.all.load\n", "\n", "# note\n", "m1 = m2 + 1\n", "y = disk.dev.raed\n", "z = rate(redis.commands_1)\n", "w = hinv.ncpu +\\\n 1\n",
		"k = mkconst(1, type=double)\n", "s = hinv.ncpu > 0 ? novalue(type=u64) : hinv.ncpu\n"}
	switch rng.IntN(5) {
	case 0: // a line inserted (Enter, a paste)
		return replace(lineStart(at), lineStart(at), lines[rng.IntN(len(lines))])
	case 1: // a line deleted
		s := lineStart(at)
		e := strings.IndexByte(text[s:], '\n')
		if e < 0 {
			return replace(s, len(text), "")
		}
		return replace(s, s+e+1, "")
	case 2: // two lines joined
		if nl := strings.IndexByte(text[at:], '\n'); nl >= 0 {
			return replace(at+nl, at+nl+1, "")
		}
		return replace(at, at, "")
	case 3: // a line split
		return replace(at, at, "\n")
	default: // an edit inside a continued line, or any line
		if k := strings.Index(text[at:], "\\\n"); k >= 0 {
			at += k + 2
		}
		typed := []string{"x", " ", "+ 1", "", "\\\n"}
		return replace(at, min(len(text), at+rng.IntN(2)), typed[rng.IntN(len(typed))])
	}
}

// TestLineEditsEqualRun: after random edits that add, remove, join and
// split lines, each analysed by Reparse and Recheck from the last, the
// findings (ranges, related places and fixes included) and the metrics
// equal a fresh run's of the same text; and most are checked from the
// lines they touch, the other definitions keeping their verdicts.
func TestLineEditsEqualRun(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cache := pmclient.NewCache(src)
	steps, partial, counted, read := 0, 0, 0, 0
	// 7.0.2 parses a novalue(SPECS) before any mkconst( with its spec
	// descriptor zeroed (grammar.File.SpecZero): a line added above may
	// change the verdict of one below.
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.V7_0_2, pcpver.Latest} {
		cfg := Config{Version: VersionChoice{Version: v, Reason: "test"}, Source: cache, MaxPerCode: DefaultMaxPerCode}
		for seed := uint64(1); seed <= 8; seed++ {
			rng := rand.New(rand.NewPCG(seed, 39))
			g := exprgen.New(seed, []string{"kernel.all.load", "disk.dev.read", "mem.util.used", "hinv.ncpu", "no.such.metric"})
			text := lineEditConfig(rng, g, 60)
			opts := Options{Memo: grammar.NewMemo(), Incremental: true}
			parsed := Parse([]Input{Buffer("t.conf", []byte(text))}, cfg, opts)
			checked := Check(ctx, parsed)
			for step := range 40 {
				var ch grammar.TextChange
				text, ch = lineEdit(rng, text)
				opts.Change = &ch
				var incremental bool
				before := parsed.Files[0].File.Text.LineCount()
				parsed, incremental = Reparse(parsed, "t.conf", grammar.NewText([]byte(text)), cfg, opts)
				checked = Recheck(ctx, checked, parsed)
				steps++
				if f := parsed.Files[0].File; incremental && f.Text.LineCount() != before {
					// read from the lines it touched, those after moved
					if f.LinesRead() >= f.Text.LineCount()/2 {
						t.Fatalf("%s seed %d step %d: a line edit read %d of %d lines", v, seed, step, f.LinesRead(), f.Text.LineCount())
					}
					read++
				}
				if rep := checked.Report; rep != nil && rep.CheckedMetrics() < rep.Metrics.Len() {
					partial++
				}
				want := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{Incremental: true})
				if got, exp := view(checked), view(want); !reflect.DeepEqual(got, exp) {
					t.Fatalf("%s seed %d step %d: incremental findings differ from a fresh run\ntext:\n%s\n%s", v, seed, step, text, viewDiff(got, exp))
				}
				if got, exp := metricsInOrder(t, checked), metricsInOrder(t, want); !reflect.DeepEqual(got, exp) {
					t.Fatalf("%s seed %d step %d: the metrics differ from a fresh run\ngot  %v\nwant %v", v, seed, step, got, exp)
				}
				if overCapCounted(t, checked) {
					counted++
				}
			}
		}
	}
	t.Logf("%d line edits, %d read and %d checked in part, %d with counted findings", steps, read, partial, counted)
	if read < steps/4 || partial < steps/3 || counted < steps/3 {
		t.Errorf("only %d of %d line edits read in part, %d checked in part, %d with counted findings", read, steps, partial, counted)
	}
}

// overCapCounted checks that the counts of findings a report keeps per
// edit say what counting them says (Report.OverCap): over a limit one
// less than the most findings of a kind, not over that many; false when
// it keeps none (a finding that points at another place).
func overCapCounted(t *testing.T, r *Result) bool {
	t.Helper()
	rep := r.Report
	if rep == nil {
		return false
	}
	most, kinds := 0, map[[2]string]int{}
	for _, d := range rep.Diagnostics(r.Files[0].File) {
		k := [2]string{d.Code, d.Severity.String()}
		kinds[k]++
		most = max(most, kinds[k])
	}
	for limit, want := range map[int]bool{most - 1: most > 0, most: false} {
		over, known := rep.OverCap(limit)
		if !known {
			return false
		}
		if over != want {
			t.Fatalf("OverCap(%d) = %v, want %v: the most findings of a kind are %d", limit, over, want, most)
		}
	}
	return true
}

// erroneousConfig is n lines of definitions with a finding on 2% of
// them, as the keystroke benchmarks' (lsp shapeErrors): a misspelt
// metric with its own "did you mean", a metric of a PMDA the metadata
// lacks (a warning on its first use, hints naming that line on the
// others), a semantic error; and a help text set before its metric.
func erroneousConfig(n int) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i%50 == 0:
			fmt.Fprintf(&b, "# section %d\n", i)
		case i%200 == 25:
			fmt.Fprintf(&b, "m%d = disk.dev.read_%d + 1\n", i, i)
		case i%200 == 125:
			fmt.Fprintf(&b, "m%d = rate(redis.commands_%d)\n", i, i)
		case i%100 == 75:
			fmt.Fprintf(&b, "m%d = network.interface.in.bytes * network.interface.out.bytes\n", i)
		case i%8 == 3:
			fmt.Fprintf(&b, "m%d(oneline) = \"help of m%[1]d\"\n", i+1)
		default:
			fmt.Fprintf(&b, "m%d = kernel.all.load[1] * hinv.ncpu + m%d\n", i, i/2)
		}
	}
	return b.String()
}

// enterFixture is the analysis of erroneousConfig(lines) as the server
// makes it: checked whole, its indexes for the next edit built.
func enterFixture(tb testing.TB, lines int) (Config, Options, *grammar.Text, *Result, *Result) {
	src, err := embedded.Source()
	if err != nil {
		tb.Fatal(err)
	}
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode}
	opts := Options{Memo: grammar.NewMemo(), Incremental: true}
	text := grammar.NewText([]byte(erroneousConfig(lines)))
	parsed := Parse([]Input{BufferText("t.conf", text)}, cfg, opts)
	checked := Check(context.Background(), parsed)
	checked.Prepare()
	return cfg, opts, text, parsed, checked
}

// TestEnterChecksOnlyItsLine: an Enter, or the deletion of a line break,
// at line 50,000 of a 100,000-line document with findings on 2% of its
// lines checks no definition but the edited ones (the others keep their
// verdicts and findings, moved by a line), and the result is a fresh
// run's.
func TestEnterChecksOnlyItsLine(t *testing.T) {
	ctx := context.Background()
	cfg, opts, text, parsed, checked := enterFixture(t, 100_000)
	mid := text.LineStart(50_000) + 5 // inside "mNNNNN = ..."
	for _, step := range []struct {
		name      string
		at, end   int
		ins       string
		maxChecks int
		maxRead   int // lines Reparse reads again
	}{
		{"enter at a line's start", text.LineStart(50_000), text.LineStart(50_000), "\n", 0, 2},
		{"enter inside a definition", mid, mid, "\n", 2, 2},
		{"join it again", mid, mid + 1, "", 2, 1},
		{"delete a line", text.LineStart(60_000), text.LineStart(60_001), "", 1, 1},
		{"paste three lines", text.LineStart(40_000), text.LineStart(40_000), "a1 = 1\na2 = a1 + 1\n# c\n", 2, 4},
	} {
		next := text.Replace(step.at, step.end, []byte(step.ins))
		opts.Change = &grammar.TextChange{Start: step.at, OldEnd: step.end, NewEnd: step.at + len(step.ins)}
		t0 := time.Now()
		p, _ := Reparse(parsed, "t.conf", next, cfg, opts)
		t1 := time.Now()
		got := Recheck(ctx, checked, p)
		t.Logf("%s: parse %v check %v", step.name, t1.Sub(t0), time.Since(t1))
		if got.Report == nil || got.refs.load() == nil {
			t.Fatalf("%s: checked whole", step.name)
		}
		if n := p.Files[0].File.LinesRead(); n > step.maxRead {
			t.Errorf("%s: %d lines read, want at most %d", step.name, n, step.maxRead)
		}
		if n := got.Report.CheckedMetrics(); n > step.maxChecks {
			t.Errorf("%s: %d metrics checked, want at most %d", step.name, n, step.maxChecks)
		}
		want := Run(ctx, []Input{BufferText("t.conf", next)}, cfg, Options{Incremental: true})
		if g, w := view(got), view(want); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s:\n%s", step.name, viewDiff(g, w))
		}
		text, parsed, checked = next, p, got
	}
}

// BenchmarkEnter100000Lines: Enter at line 50,000 of 100,000 lines with
// findings on 2% of them, then the line break deleted again; each op is
// one edit's Reparse and Recheck, in process.
func BenchmarkEnter100000Lines(b *testing.B) {
	ctx := context.Background()
	cfg, opts, text, parsed, checked := enterFixture(b, 100_000)
	at := text.LineStart(50_000) + 5
	var parse, check time.Duration
	b.ResetTimer()
	for i := range b.N {
		var next *grammar.Text
		if i%2 == 0 {
			next = text.Replace(at, at, []byte("\n"))
			opts.Change = &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}
		} else {
			next = text.Replace(at, at+1, nil)
			opts.Change = &grammar.TextChange{Start: at, OldEnd: at + 1, NewEnd: at}
		}
		t0 := time.Now()
		p, _ := Reparse(parsed, "t.conf", next, cfg, opts)
		t1 := time.Now()
		c := Recheck(ctx, checked, p)
		parse, check = parse+t1.Sub(t0), check+time.Since(t1)
		if c.Report.CheckedMetrics() > 2 {
			b.Fatalf("%d metrics checked", c.Report.CheckedMetrics())
		}
		text, parsed, checked = next, p, c
	}
	b.ReportMetric(float64(parse.Nanoseconds())/float64(b.N), "ns-parse")
	b.ReportMetric(float64(check.Nanoseconds())/float64(b.N), "ns-check")
}

// TestEditsParsedBeforeOneCheckEqualRun: edits that come faster than
// their analysis are each read (Reparse) and checked together, from the
// last version checked (Recheck of the last parse against the version
// before the first), which finds what changed from the definitions' lists
// and not from what one Reparse replaced. Configs of several hundred
// definitions put the lists in several chunks, some shared with the
// version checked and some not; a character typed and deleted again
// leaves every definition as it was, in chunks of its own.
func TestEditsParsedBeforeOneCheckEqualRun(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3939))
		g := exprgen.New(seed, []string{"kernel.all.load", "disk.dev.read", "mem.util.used", "hinv.ncpu", "no.such.metric"})
		text := lineEditConfig(rng, g, 400)
		for step := range 12 {
			var edits []versionEdit
			next := text
			for range 1 + rng.IntN(3) {
				if rng.IntN(3) == 0 {
					// typed and taken back: two versions, the same text
					at := strings.LastIndexByte(next[:rng.IntN(len(next))], '\n') + 1
					edits = append(edits, versionEdit{next[:at] + "x" + next[at:], grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}},
						versionEdit{next, grammar.TextChange{Start: at, OldEnd: at + 1, NewEnd: at}})
					continue
				}
				var ch grammar.TextChange
				next, ch = lineEdit(rng, next)
				edits = append(edits, versionEdit{next, ch})
			}
			t.Run(fmt.Sprintf("seed %d step %d", seed, step), func(t *testing.T) { checkedTogether(t, text, edits) })
			text = next
		}
	}
}

// TestTypedAndTakenBackBeforeOneCheck: a character typed in a definition
// of 2,000 and deleted again, both read before one check: the definitions
// are those of the version checked, the edited one read again in a chunk
// of its own, so that the definitions found the same from the start run
// into those the lists share at their end.
func TestTypedAndTakenBackBeforeOneCheck(t *testing.T) {
	text := definitions(2000, "m%d = disk.dev.read + %d\n")
	at := strings.Index(text, "m1001 = disk.dev.read") + len("m1001 = disk.dev.read")
	if at < len("m1001 = disk.dev.read") {
		t.Fatal("no m1001 to type in")
	}
	typed := text[:at] + "x" + text[at:]
	checkedTogether(t, text, []versionEdit{
		{typed, grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}},
		{text, grammar.TextChange{Start: at, OldEnd: at + 1, NewEnd: at}},
	})
}

// TestEditThenLinesAtTheEndBeforeOneCheck: a character typed in a
// definition, then lines added after the last one (or one removed), both
// read before one check: the definitions after the edit did not move,
// though the text has more lines.
func TestEditThenLinesAtTheEndBeforeOneCheck(t *testing.T) {
	text := definitions(2000, "m%d = disk.dev.read + %d\n") + "# end\n"
	at := strings.Index(text, "m1001 = disk.dev.read") + len("m1001 = disk.dev.read")
	typed := text[:at] + "x" + text[at:]
	first := versionEdit{typed, grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}}
	added, removed := typed+"\n# one\n# two\n", strings.TrimSuffix(typed, "# end\n")
	for name, then := range map[string]versionEdit{
		"lines added":    {added, grammar.TextChange{Start: len(typed), OldEnd: len(typed), NewEnd: len(added)}},
		"a line removed": {removed, grammar.TextChange{Start: len(removed), OldEnd: len(typed), NewEnd: len(removed)}},
	} {
		t.Run(name, func(t *testing.T) { checkedTogether(t, text, []versionEdit{first, then}) })
	}
	// And an Enter further down: the definitions between the two edits
	// stay on their lines, those after the Enter move by one.
	enter := strings.Index(typed, "m1701 = disk.dev.read")
	split := typed[:enter] + "\n" + typed[enter:]
	for name, then := range map[string]versionEdit{
		"an Enter below": {split, grammar.TextChange{Start: enter, OldEnd: enter, NewEnd: enter + 1}},
	} {
		t.Run(name, func(t *testing.T) { checkedTogether(t, text, []versionEdit{first, then}) })
	}
}

// definitions is n lines of format, each with its index twice; every
// 50th uses a metric the metadata lacks, for findings all along.
func definitions(n int, format string) string {
	var b strings.Builder
	for i := range n {
		line := fmt.Sprintf(format, i, i)
		if i%50 == 0 {
			line = strings.Replace(line, "disk.dev.read", "no.such.metric", 1)
		}
		b.WriteString(line)
	}
	return b.String()
}

// versionEdit is a version of a text and the change that made it.
type versionEdit struct {
	text   string
	change grammar.TextChange
}

// checkedTogether checks text, reads each of edits after the other
// (Reparse), checks the last once (Recheck from text's check) and
// compares its findings and metrics with a fresh run's.
func checkedTogether(t *testing.T, text string, edits []versionEdit) {
	t.Helper()
	ctx := context.Background()
	cfg := latestEmbedded(t)
	opts := Options{Memo: grammar.NewMemo(), Incremental: true}
	parsed := Parse([]Input{Buffer("t.conf", []byte(text))}, cfg, opts)
	checked := Check(ctx, parsed)
	for _, e := range edits {
		opts.Change = &e.change
		parsed, _ = Reparse(parsed, "t.conf", grammar.NewText([]byte(e.text)), cfg, opts)
	}
	checked = Recheck(ctx, checked, parsed)
	last := edits[len(edits)-1].text
	want := Run(ctx, []Input{Buffer("t.conf", []byte(last))}, cfg, Options{Incremental: true})
	if got, exp := view(checked), view(want); !reflect.DeepEqual(got, exp) {
		t.Fatalf("findings differ from a fresh run\n%s", viewDiff(got, exp))
	}
	if got, exp := metricsInOrder(t, checked), metricsInOrder(t, want); !reflect.DeepEqual(got, exp) {
		t.Fatalf("the metrics differ from a fresh run\ngot  %v\nwant %v", got, exp)
	}
}

// latestEmbedded is embeddedConfig through a metadata cache, as the
// server and the CLI read it, with the default cap.
func latestEmbedded(t *testing.T) Config {
	t.Helper()
	cfg := embeddedConfig(t)
	cfg.Source, cfg.MaxPerCode = pmclient.NewCache(cfg.Source), DefaultMaxPerCode
	return cfg
}
