package checker

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// nodeCases are the checker's test corpora as one list of expressions:
// the hand-written semantic table, the cases that changed between
// releases, derived metrics as operands (t.c0 and t.c1 are the first
// two), names without descriptors, and generated definitions, some of
// them broken. cycleDefs adds cycles of derived metrics.
func nodeCases(t *testing.T) []string {
	t.Helper()
	_, table := readTable(t)
	var exprs []string
	for _, c := range table {
		exprs = append(exprs, c.expr)
	}
	changed, err := os.ReadFile("testdata/releases.table")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(changed), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			exprs = append(exprs, l)
		}
	}
	exprs = append(exprs,
		"t.c1 + 1", "t.c0 * 2", // t.c0 and t.c1 are the table's first two
		"mkconst(1, meta=t.c0)", "novalue(meta=t.c1)",
		"sample.bad.unknown + 1", "defined(sample.bad.unknown) ? sample.bad.unknown : 0",
		"sample.long.one ? sample.bad.unknown : novalue()", "no.such.metric ? 1 : sample.long.one",
		"sample.bin + sample.colour", "sample.long.one ? sample.bin : sample.colour")
	g := exprgen.New(1717, append([]string{"t.c0", "t.c1", "t.c5", "no.such.metric", "sample.bad.unknown"}, genMetrics...))
	g.BrokenShare = 0.05
	for range 1500 {
		exprs = append(exprs, g.Next())
	}
	g.PCP7 = true
	for range 1500 {
		exprs = append(exprs, g.Next())
	}
	return exprs
}

// cycleDefs are derived metrics that bind each other (libpcp binds
// neither, or crashes), through operands, meta= and defined().
const cycleDefs = `t.cyc.a = t.cyc.b + 1
t.cyc.b = t.cyc.a * 2
t.cyc.m = mkconst(1, meta=t.cyc.n)
t.cyc.n = mkconst(2, meta=t.cyc.m)
t.cyc.p = sample.long.one ? t.cyc.q : novalue()
t.cyc.q = defined(t.cyc.p) ? 1 : t.cyc.p
t.cyc.r = defined(t.cyc.s) ? 1 : 2
t.cyc.s = defined(t.cyc.r) ? sample.long.one : 3
t.self = defined(t.self) ? 1 : 2
`

// nodeVersions are the releases whose rules differ in what the nodes
// get: the oldest modelled, each feature's first, the proved ones.
func nodeVersions() []pcpver.Version {
	vs := append([]pcpver.Version{pcpver.Oldest, pcpver.Latest}, pcpver.Proved()...)
	for _, f := range pcpver.Features() {
		vs = append(vs, f.Since())
	}
	slices.SortFunc(vs, func(a, b pcpver.Version) int { return a.Compare(b) })
	return slices.Compact(vs)
}

// TestNodesOfEqualsCheck: for every case of the checker's corpora, under
// every release's rules, with and without equivalent instance domains
// and "#control option_novalue=1", the nodes Report.NodesOf infers on
// demand, and those Report.InferEach tells (see diffInferEach), are
// exactly those the check inferred (the same nodes, the same
// descriptors, scales and bound branches), the partial ones of a
// semantic error included; the check itself keeps none.
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestNodesOfEqualsCheck(t *testing.T) {
	src := livePmcd(t)
	exprs := testsize.Sample(t, nodeCases(t))
	eq, problems := pmapi.ParseIndomConfig(strings.NewReader("29.2 29.1\n"), "indom.conf")
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	compared, inferred, kept := 0, 0, 0
	for _, v := range nodeVersions() {
		for _, variant := range []struct {
			control string
			indoms  *pmapi.InDomEquivalence
		}{{"", nil}, {"#control option_novalue=1\n", eq}} {
			var config strings.Builder
			config.WriteString(variant.control)
			for i, e := range exprs {
				fmt.Fprintf(&config, "t.c%d = %s\n", i, e)
			}
			config.WriteString(cycleDefs)
			f := grammar.ParseConfig("nodes.conf", []byte(config.String()), grammar.Options{Version: v})
			check := func(keep bool) *Report {
				rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: v, InDoms: variant.indoms, keepNodes: keep})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			eager, lazy := check(true), check(false)
			for i, m := range eager.Metrics.All() {
				l := lazy.Metrics.At(i)
				if l.nodes != nil && !l.boundUnfinished {
					t.Fatalf("%s: %s: the check kept its nodes", v, l.Def.Name)
				}
				if l.boundUnfinished {
					kept++
				}
				got := lazy.NodesOf(l)
				if diff := diffNodes(m.nodes, got); diff != "" {
					t.Errorf("%s %q: %s = %s (%s): %s", v, variant.control, m.Def.Name, m.Def.Expr, m.Status, diff)
				}
				if diff := diffInferEach(eager, m, lazy, l); diff != "" {
					t.Errorf("%s %q: %s = %s (%s): InferEach: %s", v, variant.control, m.Def.Name, m.Def.Expr, m.Status, diff)
				}
				if again := lazy.NodesOf(l); len(got) > 0 && fmt.Sprintf("%p", again) != fmt.Sprintf("%p", got) {
					t.Fatalf("%s: %s: NodesOf inferred the nodes again", v, m.Def.Name)
				}
				compared++
				if len(got) > 0 {
					inferred++
				}
			}
		}
	}
	if inferred < compared/2 {
		t.Fatalf("only %d of %d metrics have nodes: the corpora no longer exercise the inference", inferred, compared)
	}
	t.Logf("%d metrics compared (%d with nodes, %d kept by the check: they bind one in a cycle) under %d releases", compared, inferred, kept, len(nodeVersions()))
}

// diffInferEach describes how the nodes InferEach tells of metric l
// of report lazy (inferred again) and of its twin m of report eager (the
// check's kept map) differ from what the check inferred, or break its
// promises: each node told once, every operand told before its operator,
// the same order either way ("" when all hold).
func diffInferEach(eager *Report, m *Metric, lazy *Report, l *Metric) string {
	tell := func(rep *Report, m *Metric) (Nodes, []grammar.Node, string) {
		told, order := Nodes{}, []grammar.Node{}
		twice := ""
		rep.InferEach(m, func(n grammar.Node, ni *NodeInfo) {
			if told[n] != nil && twice == "" {
				twice = fmt.Sprintf("node %s told twice", grammar.Format(n))
			}
			told[n] = ni
			order = append(order, n)
		})
		return told, order, twice
	}
	told, order, twice := tell(lazy, l)
	if twice != "" {
		return twice
	}
	if diff := diffNodes(m.nodes, told); diff != "" {
		return diff
	}
	at := map[grammar.Node]int{}
	for i, n := range order {
		at[n] = i
	}
	for i, n := range order {
		kids, k := grammar.Operands(n)
		for _, kid := range kids[:k] {
			if j, ok := at[kid]; ok && j > i {
				return fmt.Sprintf("operand %s told after its operator %s", grammar.Format(kid), grammar.Format(n))
			}
		}
	}
	_, keptOrder, twice := tell(eager, m)
	if twice != "" {
		return "from the kept map: " + twice
	}
	if !slices.Equal(order, keptOrder) {
		return "told in another order from the check's kept map"
	}
	return ""
}

// diffNodes describes how two metrics' nodes differ ("" when they do not).
func diffNodes(want, got Nodes) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d nodes, on demand %d", len(want), len(got))
	}
	for n, w := range want {
		g := got[n]
		if g == nil {
			return fmt.Sprintf("node %s (%T) missing on demand", grammar.Format(n), n)
		}
		if *g != *w {
			return fmt.Sprintf("node %s: %+v, on demand %+v", grammar.Format(n), *w, *g)
		}
	}
	return ""
}

// TestNodesOfConcurrent: readers of a published report ask for the same
// metrics' nodes at once (the server's handlers); all get the same.
func TestNodesOfConcurrent(t *testing.T) {
	src := liveMetadata(t)
	config := "a.x = sample.long.one + sample.long.ten\na.y = rate(sample.ulong.hundred) * 2\na.z = a.x ? a.y : 0\n"
	f := grammar.ParseConfig("c.conf", []byte(config), grammar.Options{Version: pcpver.V6_0_3})
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.V6_0_3})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]Nodes, 8)
	for w := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range rep.Metrics.Values() {
				got[w] = append(got[w], rep.NodesOf(m))
			}
		}()
	}
	wg.Wait()
	for i, m := range rep.Metrics.All() {
		if len(got[0][i]) == 0 {
			t.Fatalf("%s: no nodes", m.Def.Name)
		}
		for w := range got {
			if diff := diffNodes(got[0][i], got[w][i]); diff != "" {
				t.Fatalf("%s: reader %d: %s", m.Def.Name, w, diff)
			}
		}
	}
}

// TestNodesOfAfterRecheck: after edits that Recheck handles (a changed
// operand, a line added, a line removed), NodesOf on the rechecked
// report, for the metrics it checked again and those it carried over,
// equals what a full check of the same file infers.
func TestNodesOfAfterRecheck(t *testing.T) {
	src := livePmcd(t)
	// Generated definitions: the tables name PMDAs the test pmcd lacks,
	// whose findings make every edit a full check.
	g := exprgen.New(1919, append([]string{"t.c0", "t.c1", "t.c5", "no.such.metric", "sample.bad.unknown"}, genMetrics...))
	g.BrokenShare = 0.05
	var exprs []string
	for range 1200 {
		exprs = append(exprs, g.Next())
	}
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		g.PCP7 = v.Has(pcpver.Novalue)
		var config strings.Builder
		for i, e := range exprs {
			fmt.Fprintf(&config, "t.c%d = %s\n", i, e)
		}
		text := config.String()
		opts := Options{Version: v}
		f := grammar.ParseConfig("r.conf", []byte(text), grammar.Options{Version: v})
		prev, err := Check(context.Background(), []*grammar.File{f}, src, opts)
		if err != nil {
			t.Fatal(err)
		}
		var refs *Refs
		rechecked := 0
		// Edits within a line (what Reparse reads again alone): an
		// expression replaced, one that others use replaced, a name
		// changed, an operand made unknown.
		exprOf := func(name string) (at, n int) {
			at = strings.Index(text, "\n"+name+" = ") + len(name) + 4
			return at, strings.Index(text[at:], "\n")
		}
		for step, edit := range []func() (at, cut int, with string){
			func() (int, int, string) { at, n := exprOf("t.c600"); return at, n, "sample.long.one + 1" },
			func() (int, int, string) { at, n := exprOf("t.c5"); return at, n, "sample.long.ten" },
			func() (int, int, string) { at, _ := exprOf("t.c601"); return at - 3, 0, "x" },
			func() (int, int, string) { at, _ := exprOf("t.c600"); return at + len("sample.long.one"), 0, "x" },
		} {
			at, cut, with := edit()
			text = text[:at] + with + text[at+cut:]
			nf, reparsed := grammar.Reparse(f, grammar.NewText([]byte(text)), grammar.TextChange{Start: at, OldEnd: at + cut, NewEnd: at + len(with)}, grammar.Options{Version: v})
			if !reparsed {
				t.Logf("%s: edit %d: parsed whole", v, step)
			}
			rep, next, ok, err := Recheck(context.Background(), prev, refs, nf, src, opts)
			if err != nil {
				t.Fatal(err)
			}
			full, err := Check(context.Background(), []*grammar.File{nf}, src, Options{Version: v, keepNodes: true})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				for _, d := range prev.Diagnostics(prev.Files[0]) {
					if crossLine(d) {
						t.Logf("%s: edit %d: a full check (%s: %s)", v, step, d.Code, d.Message)
						break
					}
				}
				// The change may reach further: a full check, as the
				// server does (one that keeps no nodes, so that the next
				// edit's carried-over metrics infer theirs).
				if prev, err = Check(context.Background(), []*grammar.File{nf}, src, opts); err != nil {
					t.Fatal(err)
				}
				f, refs = nf, nil
				continue
			}
			rechecked++
			for m := range full.Metrics.Values() {
				got := rep.NodesOf(rep.ByName.Metric(m.Def.Name))
				if diff := diffNodes(m.nodes, got); diff != "" {
					t.Errorf("%s: edit %d: %s = %s: %s", v, step, m.Def.Name, m.Def.Expr, diff)
				}
			}
			f, prev, refs = nf, rep, next
		}
		if rechecked < 2 {
			t.Fatalf("%s: Recheck took only %d of the edits: the test no longer exercises it", v, rechecked)
		}
	}
}
