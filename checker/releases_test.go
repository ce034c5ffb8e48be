package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// livePmcd is the test pmcd itself (not a snapshot of it): names without
// descriptors, such as sample.bad.unknown, are only seen this way.
func livePmcd(t *testing.T) pmclient.Source {
	t.Helper()
	requirePCP(t)
	c, err := pmcd.New("127.0.0.1", pmcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return pmclient.NewCache(c)
}

// compareWithRelease checks a config as release r and compares every
// definition with r's libpcp; it returns the counts by libpcp's verdict
// and how many differ.
func compareWithRelease(t *testing.T, r oracle.Release, src pmclient.Source, config string, names []string, what string) (map[string]int, int) {
	t.Helper()
	return compareParsed(t, r, src, config, names, what, grammar.Options{Version: r.Version})
}

// compareParsed is compareWithRelease of the config read with opts.
func compareParsed(t *testing.T, r oracle.Release, src pmclient.Source, config string, names []string, what string, opts grammar.Options) (map[string]int, int) {
	t.Helper()
	want, _, err := r.Describe(context.Background(), config, names)
	if err != nil {
		t.Fatal(err)
	}
	f := grammar.ParseConfig(what, []byte(config), opts)
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: r.Version})
	if err != nil {
		t.Fatal(err)
	}
	kinds, differ := map[string]int{}, 0
	for _, name := range names {
		m := rep.ByName.Metric(name)
		got := "absent"
		if m != nil {
			got = ourDescribe(m, r.Version)
		}
		kinds[strings.SplitN(want[name], ":", 2)[0]]++
		if got != want[name] {
			differ++
			if differ <= 15 {
				expr := ""
				if m != nil {
					expr = m.Def.Expr
				}
				t.Errorf("%s, %s: %s = %s\n  libpcp: %q\n  ours:   %q", r, what, name, expr, want[name], got)
			}
		}
	}
	return kinds, differ
}

func summary(kinds map[string]int) string {
	var parts []string
	for k, n := range kinds {
		if strings.HasPrefix(k, " ") {
			k = "valid"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// TestSemanticsAcrossReleases: for every proved release, the hand-written
// tables (the 6.0.3 semantic table and the cases that changed between
// releases) and 5,000 generated definitions get that release's verdict,
// message and pminfo -d metadata.
func TestSemanticsAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	_, table := readTable(t)
	changed, err := os.ReadFile("testdata/releases.table")
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, c := range table {
		exprs = append(exprs, c.expr)
	}
	for _, l := range strings.Split(string(changed), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			exprs = append(exprs, l)
		}
	}
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		var config strings.Builder
		var names []string
		add := func(e string) {
			if grammar.LibpcpVerdict(e, r.Version, false).OK {
				names = append(names, fmt.Sprintf("t.c%d", len(names)))
				fmt.Fprintf(&config, "%s = %s\n", names[len(names)-1], e)
			}
		}
		for _, e := range exprs {
			add(e)
		}
		handWritten := len(names)
		g := exprgen.New(4242, genMetrics)
		g.BrokenShare = 0
		g.PCP7 = r.Version.Has(pcpver.Novalue)
		for len(names) < handWritten+5000 {
			add(g.Next())
		}
		kinds, differ := compareWithRelease(t, r, src, config.String(), names, "releases.conf")
		t.Logf("%s: %d definitions (%d hand-written; %s): %d differ", r, len(names), handWritten, summary(kinds), differ)
	})
}

// TestShippedConfigsAcrossReleases: the configs each release ships get
// that release's verdict and metadata for every metric they define.
func TestShippedConfigsAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	for _, r := range oracle.ReleasesFor(t) {
		configs, err := r.ShippedConfigs()
		if err != nil {
			t.Fatal(err)
		}
		total, differ := 0, 0
		for name, text := range configs {
			f := grammar.ParseConfig(name, text, grammar.Options{Version: r.Version})
			var names []string
			for _, d := range f.Definitions.All() {
				if d.Registered {
					names = append(names, d.Name)
				}
			}
			_, n := compareWithRelease(t, r, src, string(text), names, name)
			total += len(names)
			differ += n
		}
		t.Logf("%s: %d metrics in %d shipped configs: %d differ", r, total, len(configs), differ)
	}
}

// TestNovalueOptionAcrossReleases: "#control option_novalue=1" (7.1.1+)
// makes unknown operands novalue(); before, the line is a comment.
func TestNovalueOptionAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	config := "#control option_novalue=1\nn.a = no.such.metric\nn.b = sample.long.one + no.such\nn.c = sample.bad.unknown + 1\nn.d = defined(no.such) ? 1 : 2\n"
	for _, r := range oracle.ReleasesFor(t) {
		if _, differ := compareWithRelease(t, r, src, config, []string{"n.a", "n.b", "n.c", "n.d"}, "novalue.conf"); differ > 0 {
			t.Logf("%s: %d differ", r, differ)
		}
	}
}

// TestDerivedControlNovalueAcrossReleases: option_novalue from
// $PCP_DERIVED_CONTROL (7.1.1+) maps unknown operands to novalue() as the
// config's own #control line does, and the config cannot turn it off;
// older releases ignore the variable.
func TestDerivedControlNovalueAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	names := []string{"n.a", "n.b", "n.c", "n.d", "n.e", "n.f", "n.g", "n.h"}
	// n.e, n.f, n.g: a mapped name is a novalue() branch of a ternary;
	// n.h: defined() of one is false, so its branch goes unchecked.
	body := "n.a = no.such.metric\nn.b = sample.long.one + no.such\nn.c = sample.bad.unknown + 1\nn.d = defined(no.such) ? 1 : 2\n" +
		"n.e = sample.long.one > 0 ? sample.long.one : no.such\nn.f = sample.long.one > 0 ? no.such : sample.double.one\nn.g = sample.long.one > 0 ? no.such : no.such2\n" +
		"n.h = defined(no.such) ? rescale(instant(no.such + no.such2), \"Kbyte\") : sample.long.one\n"
	for _, tc := range []struct{ env, config string }{
		{"option_novalue=1", body},
		{"option_novalue=1", "#control option_novalue=0\n" + body},
		{"option_novalue=0", "#control option_novalue=1\n" + body},
		{"option_novalue=2", "#control option_novalue=1\n" + body},
		{"bad=1,option_novalue=1", body},
	} {
		oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
			env := tc.env
			kinds, differ := compareParsed(t, r.With("PCP_DERIVED_CONTROL="+env), src, tc.config, names, "env.conf",
				grammar.Options{Version: r.Version, DerivedControl: &env})
			t.Logf("%s, PCP_DERIVED_CONTROL=%s: %s: %d differ", r, env, summary(kinds), differ)
		})
	}
}

// TestFailedDerivedOperandAcrossReleases: an alias of a derived metric
// that failed to bind is hidden before 7.1; from 7.1 libpcp finds the
// name but not its metadata ("Metadata for operand metric not
// available"), while an alias of a name that never registered is an
// unknown operand. (An alias cycle crashes 7.2.2, so none is here.)
func TestFailedDerivedOperandAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	const config = `x.base = sample.long.one + 1
x.alias.later = x.late
x.mid = x.base + 1
x.alias = x.mid
x.alias2 = x.alias
x.ok = x.base
x.bad = 1 +
x.alias.bad = x.bad
x.late = x.base * 2
x.alias.unknown = no.such.metric
x.guarded = defined(x.mid) ? x.mid : 0
`
	names := []string{"x.alias.later", "x.mid", "x.alias", "x.alias2", "x.ok", "x.alias.bad", "x.late", "x.alias.unknown", "x.guarded"}
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		kinds, differ := compareWithRelease(t, r, src, config, names, "failed-operand.conf")
		t.Logf("%s: %s: %d differ", r, summary(kinds), differ)
	})
}

// TestStaleTreeAcrossReleases: novalue() on both sides of a ternary
// registers with the expression libpcp parsed last (6.2.2+), so generated
// sequences of definitions (ones that parse, fail, or have the double
// novalue()) get each release's pminfo -d metadata for every name.
func TestStaleTreeAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	rng := rand.New(rand.NewPCG(20261129, 7))
	exprs := []string{"sample.long.one", "sample.double.million * 2", "sample.byte_ctr", "rate(sample.byte_ctr)",
		"mkconst(3, type=u64, units=Kbyte)", "1 +", "sample.long.one > 0 ? novalue() : novalue()",
		"2 * (sample.long.one > 1 ? novalue() : novalue())", "sample.bin"}
	seqs := randomSequences(rng, exprs, 30, 6) // drawn before the releases run in parallel
	compareSequences(t, src, seqs, "st")
}

// TestSpecZeroAcrossReleases: 6.2.2 to 7.0.x keep novalue(SPECS)'s
// descriptor in a static only mkconst( resets, so before the first
// mkconst( in the process a ternary of novalue(SPECS) and a scalar has
// instance domain 0.0; generated sequences of such definitions, with
// mkconst( and failed parses among them, get each release's metadata.
func TestSpecZeroAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	rng := rand.New(rand.NewPCG(20261129, 11))
	exprs := []string{"sample.long.one > 0 ? novalue(units=Kbyte) : sample.long.one",
		"sample.long.one > 0 ? sample.double.one : novalue(type=double)", "sample.long.one > 0 ? novalue() : sample.long.one",
		"sample.long.one > 0 ? novalue(type=u64) : sample.ulonglong.one", "mkconst(1, type=double)", "mkconst(2) +",
		"mkconst(3, units=Kbyte) + (sample.long.one > 0 ? novalue(units=Kbyte) : sample.long.one)",
		"(sample.long.one > 0 ? novalue(units=Kbyte) : sample.long.one) + mkconst(4)", "sample.long.one +",
		"sample.long.one > 0 ? novalue(units=Kbyte) : sample.bin"}
	seqs := randomSequences(rng, exprs, 25, 5) // drawn before the releases run in parallel
	compareSequences(t, src, seqs, "sz")
}

// randomSequences draws n sequences of k expressions from exprs.
func randomSequences(rng *rand.Rand, exprs []string, n, k int) [][]string {
	out := make([][]string, n)
	for i := range out {
		for range k {
			out[i] = append(out[i], exprs[rng.IntN(len(exprs))])
		}
	}
	return out
}

// compareSequences checks each sequence of expressions as a config of
// its own (names PREFIX.cK.mI) on every release, and compares every name
// that parses with the release's pminfo -d.
func compareSequences(t *testing.T, src pmclient.Source, seqs [][]string, prefix string) {
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		total, differ := 0, 0
		for k, seq := range seqs {
			var config strings.Builder
			var names []string
			for i, e := range seq {
				name := fmt.Sprintf("%s.c%d.m%d", prefix, k, i)
				fmt.Fprintf(&config, "%s = %s\n", name, e)
				if grammar.LibpcpVerdict(e, r.Version, false).OK {
					names = append(names, name)
				}
			}
			_, n := compareWithRelease(t, r, src, config.String(), names, fmt.Sprintf("%s%d.conf", prefix, k))
			total += len(names)
			differ += n
		}
		t.Logf("%s: %d names in %d sequences: %d differ", r, total, len(seqs), differ)
	})
}
