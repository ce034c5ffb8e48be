package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

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
	lines := []string{"x = kernel.all.load\n", "\n", "# note\n", "m1 = m2 + 1\n", "y = disk.dev.raed\n", "z = rate(redis.commands_1)\n", "w = hinv.ncpu +\\\n 1\n"}
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
	steps, partial, counted := 0, 0, 0
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
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
				parsed, _ = Reparse(parsed, "t.conf", grammar.NewText([]byte(text)), cfg, opts)
				checked = Recheck(ctx, checked, parsed)
				steps++
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
	t.Logf("%d line edits, %d checked in part, %d with counted findings", steps, partial, counted)
	if partial < steps/3 || counted < steps/3 {
		t.Errorf("only %d of %d line edits checked in part, %d with counted findings", partial, steps, counted)
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
