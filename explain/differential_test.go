package explain

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// steadyCases are hand-written definitions over metrics whose values
// never change, with every kind of node and every cause of emptiness;
// those a release does not accept are left out for it.
var steadyCases = []string{
	"sum(sample.bin) / count(sample.bin)",
	"sample.bad.novalues + 1",
	"matchinst(/^nomatch$/, sample.bin) * 2",
	"matchinst(/100/, sample.bin) + matchinst(/900/, sample.bin)",
	"matchinst(!/bin-[1-5]00/, sample.bin) * sample.part_bin",
	"sample.bin[bin-999] + 1",
	"sample.bin[bin-300] + sample.long.ten",
	"(sample.bin + 1)[bin-200] * 2",
	"sample.ulong.count.kilo + sample.ulong.count.base",
	"rescale(sample.ulong.count.kilo, \"count / Kbyte\") - sample.ulong.count.base",
	"-sample.long.hundred + !sample.long.one",
	"sample.double.bin / sample.long.bin",
	"max(sample.bin) - min(sample.part_bin) + avg(sample.float.bin)",
	"sample.bogus_bin * sample.long.bin",
	"sample.long.one > 5 ? sample.long.one : novalue()",
	"sample.bin > 500 ? sample.bin : novalue()",
	"defined(no.such.metric) ? no.such.metric : novalue()",
	"defined(sample.long.one) ? sample.long.ten : sample.long.hundred",
	"sample.long.one == 1 && sample.double.one >= 1 || sample.float.one < 0",
	"count(sample.bad.novalues) + sum(sample.bad.novalues)",
	"sample.bad.nosupport + 1",
	"mkconst(42, type=double, semantics=instant) * sample.long.one",
	"instant(sample.ulong.hundred) + scalar(sample.bin)",
}

// nodeSample is a node's values as one result of a sample, to print as
// pminfo -f does (evaluator.WritePminfo).
func nodeSample(name string, n *Node) evaluator.Result {
	r := evaluator.Result{Name: name, Desc: *n.Desc(), Err: n.Err()}
	for _, v := range n.Values() {
		r.Values = append(r.Values, v.Raw())
	}
	return r
}

// comparableNode reports a node whose values libpcp computes, as a
// derived metric of its own, the way it computes them in the tree: it is
// evaluated, has metadata, is accepted alone by the release, fetches no
// other derived metric, and is none of libpcp's garbage values (! of a
// non-32-bit operand, a string through ?:, misalignedTernary, a constant
// over an instance domain an archive has no instances of).
func comparableNode(n *Node, v pcpver.Version, rep *checker.Report) bool {
	if !n.Evaluated() || n.NotEvaluated() != "" || n.Desc() == nil || n.Kind() == KindNovalue || n.EmptyBecause() != "" && n.Kind() == KindNovalue {
		return false
	}
	text := n.Text()
	if !grammar.LibpcpVerdict(text, v, false).OK || !v.Has(pcpver.ExprInstance) && oracle.KnownCrash(text) {
		return false
	}
	ok := true
	walk(n, func(c *Node) {
		switch syn := c.Syntax().(type) {
		case *grammar.Metric:
			if _, derived := rep.ByName.Lookup(syn.Name); derived {
				ok = false
			}
		case *grammar.Unary:
			if d := c.Children()[0].Desc(); syn.Op == "!" && d != nil && d.Type != pmapi.Type32 && d.Type != pmapi.TypeU32 {
				ok = false
			}
		case *grammar.Ternary:
			if c.Desc() != nil && c.Desc().Type == pmapi.TypeString || misalignedTernary(c) {
				ok = false
			}
		case *grammar.Mkconst:
			if c.Desc() != nil && c.Desc().InDom != pmapi.InDomNull && c.Evaluated() && len(c.Values()) == 0 {
				// A constant over an instance domain an archive has no
				// instances of: libpcp fails (PM_ERR_INDOM_LOG), then
				// frees twice and aborts; we give no values.
				ok = false
			}
		}
	})
	return ok
}

// misalignedTernary reports a ternary whose values libpcp reads from
// memory it did not write: a branch with an instance domain that has
// fewer values than the other (libpcp indexes past its end), or a guard
// that chose novalue() for an instance before one it kept a value for
// (libpcp writes the kept values at their original positions while
// shortening the list). We give the values that are
// there.
func misalignedTernary(n *Node) bool {
	guard, then, els := n.Children()[0], n.Children()[1], n.Children()[2]
	if !guard.Evaluated() || len(guard.Values()) == 0 {
		return false
	}
	count := max(len(then.Values()), len(els.Values()))
	for _, b := range []*Node{then, els} {
		if b.Kind() != KindNovalue && b.Desc() != nil && b.Desc().InDom != pmapi.InDomNull && len(b.Values()) < count {
			return true
		}
	}
	if then.Kind() != KindNovalue && els.Kind() != KindNovalue {
		return false
	}
	dropped, choose := false, false
	for i := 0; i < count; i++ {
		if i < len(guard.Values()) {
			choose = evaluator.Float64(guard.Desc().Type, guard.Values()[i].Raw()) != 0
		}
		novalue := choose && then.Kind() == KindNovalue || !choose && els.Kind() == KindNovalue
		if novalue {
			dropped = true
		} else if dropped {
			return true
		}
	}
	return false
}

// nodeConfig collects comparable nodes as definitions of their own, one
// per distinct text, with our values printed as pminfo -f prints them.
type nodeConfig struct {
	config strings.Builder
	names  []string
	byText map[string]string
	ours   map[string]string
	expr   map[string]string // name -> the definition it came from
}

func newNodeConfig() *nodeConfig {
	return &nodeConfig{byText: map[string]string{}, ours: map[string]string{}, expr: map[string]string{}}
}

// add collects the comparable nodes of an explanation; ours is keyed by
// name and at (the sample's label, "" for one sample).
func (c *nodeConfig) add(x *Explanation, at string, v pcpver.Version, rep *checker.Report, render func(name string, n *Node) string) {
	walk(x.Root, func(n *Node) {
		if !comparableNode(n, v, rep) {
			return
		}
		name, seen := c.byText[n.Text()]
		if !seen {
			name = fmt.Sprintf("node.n%d", len(c.names))
			c.byText[n.Text()] = name
			c.names = append(c.names, name)
			c.expr[name] = x.Expr
			fmt.Fprintf(&c.config, "%s = %s\n", name, n.Text())
		}
		if _, done := c.ours[name+at]; !done {
			c.ours[name+at] = render(name, n)
		}
	})
}

// pminfoBlock prints a node as pminfo -f prints the same metric.
func pminfoBlock(name string, n *Node) string {
	names := map[int32]string{}
	for _, v := range n.Values() {
		names[v.Inst] = v.Instance
	}
	var b bytes.Buffer
	s := &evaluator.Sample{Results: []evaluator.Result{nodeSample(name, n)}}
	evaluator.WritePminfo(&b, s, func(_ pmapi.InDom, id int32) string { return names[id] })
	return oracle.PminfoBlocks(b.String())[name]
}

// TestNodesAgreeWithLibpcpLive: every subexpression of hand-written and
// generated definitions over steady metrics, explained from the live
// pmcd, has the values each release's libpcp gives it as a derived metric
// of its own (pminfo -c FILE -f, one definition per node).
func TestNodesAgreeWithLibpcpLive(t *testing.T) {
	live := livePmcd(t)
	ctx := context.Background()
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		var config strings.Builder
		n := 0
		add := func(e string) {
			if grammar.LibpcpVerdict(e, r.Version, false).OK && (r.Version.Has(pcpver.ExprInstance) || !oracle.KnownCrash(e)) {
				fmt.Fprintf(&config, "d.m%d = %s\n", n, e)
				n++
			}
		}
		for _, e := range steadyCases {
			add(e)
		}
		g := exprgen.New(20, oracle.SteadyMetrics)
		g.BrokenShare = 0
		g.PCP7 = r.Version.Has(pcpver.Novalue)
		for n < 800 {
			add(g.Next())
		}
		rep := check(t, live, config.String(), r.Version)
		nodes := newNodeConfig()
		explained := 0
		for m := range rep.Metrics.Values() {
			if m.Status != checker.Valid || m.Broken || needsHistoryTree(m) {
				continue
			}
			x := explainName(t, live, rep, m.Def.Name, Options{})
			explained++
			nodes.add(x, "", r.Version, rep, pminfoBlock)
		}
		out, hung, err := r.Values(ctx, nodes.config.String(), nodes.names)
		if err != nil {
			t.Fatal(err)
		}
		want := oracle.PminfoBlocks(out)
		compared, differ, absent := 0, 0, 0
		for _, name := range nodes.names {
			w, ok := want[name]
			if !ok {
				absent++ // libpcp hung on its chunk, or does not register it alone
				if absent <= 3 {
					t.Logf("%s: libpcp gave no answer for node %q", r, textOf(nodes, name))
				}
				continue
			}
			compared++
			if !oracle.SameValues(nodes.ours[name], w) {
				differ++
				if differ <= 10 {
					t.Errorf("%s: node %q of %q\n  libpcp: %q\n  ours:   %q", r, textOf(nodes, name), nodes.expr[name], w, nodes.ours[name])
				}
			}
		}
		t.Logf("%s: %d definitions explained, %d distinct nodes compared with pminfo -f, %d differ (%d not answered: %d hung)", r, explained, compared, differ, absent, hung)
		if compared < 400 {
			t.Errorf("%s: only %d nodes compared", r, compared)
		}
	})
}

func textOf(c *nodeConfig, name string) string {
	for text, n := range c.byText {
		if n == name {
			return text
		}
	}
	return "?"
}

// historyCases need two samples: delta() and rate() of counters.
var historyCases = []string{
	"rate(sample.seconds) * 100",
	"delta(sample.long.bin_ctr) * sample.bin",
	"rate(sample.byte_ctr) / 1024",
	"delta(sample.milliseconds) + rate(sample.milliseconds)",
	"rate(kernel.all.cpu.user) / hinv.ncpu",
	"sum(sample.long.bin_ctr) + delta(sample.long.one)",
	"delta(defined(sample.part_bin)) + rate(defined(sample.bin) + 1)",
}

// loggedMetrics are recorded for the archive comparison.
var loggedMetrics = []string{
	"sample.seconds", "sample.milliseconds", "sample.byte_ctr", "sample.long.bin_ctr", "sample.bin",
	"sample.long.one", "sample.part_bin", "sample.double.one", "kernel.all.cpu.user", "hinv.ncpu",
	"sample.bad.novalues", "sample.ulong.million", "kernel.all.load",
}

// replayRecord pulls one record's lines out of archive.py's replay output: name
// -> "inst value" lines, NOVALUES or ERR.
func replayRecord(out string, stamp string) map[string]string {
	got := map[string]string{}
	in := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "T ") {
			in = l == "T "+stamp
			continue
		}
		if !in || l == "" {
			continue
		}
		name, rest, _ := strings.Cut(l, " ")
		if strings.HasPrefix(rest, "ERR") {
			rest = "ERR"
		}
		got[name] += rest + "\n"
	}
	return got
}

// replayLines prints a node as archive.py prints a metric's values.
func replayLines(_ string, n *Node) string {
	switch {
	case n.Err() != nil:
		return "ERR\n"
	case len(n.Values()) == 0:
		return "NOVALUES\n"
	}
	var b strings.Builder
	for _, v := range n.Values() {
		val := v.Text
		switch n.Desc().Type {
		case pmapi.TypeFloat, pmapi.TypeDouble:
			val = strconv.FormatFloat(v.Raw().Float, 'g', 17, 64)
		}
		fmt.Fprintf(&b, "%d %s\n", v.Inst, val)
	}
	return b.String()
}

// TestNodesAgreeWithLibpcpArchive: nodes whose values need history
// (delta, rate of counters that change), explained at records in the
// middle of an archive, equal what each release's libpcp computes for
// them as derived metrics of their own at those records, replaying every
// record (python3-pcp pmFetch, oracle.ReplayArchive). Generated
// definitions over the logged metrics join the hand-written ones.
func TestNodesAgreeWithLibpcpArchive(t *testing.T) {
	base := recordArchive(t, 8, loggedMetrics...)
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		var config strings.Builder
		n := 0
		add := func(e string) {
			if grammar.LibpcpVerdict(e, r.Version, false).OK && (r.Version.Has(pcpver.ExprInstance) || !oracle.KnownCrash(e)) {
				fmt.Fprintf(&config, "d.m%d = %s\n", n, e)
				n++
			}
		}
		for _, e := range append(append([]string(nil), historyCases...), steadyCases...) {
			add(e)
		}
		g := exprgen.New(21, loggedMetrics)
		g.BrokenShare = 0
		g.PCP7 = r.Version.Has(pcpver.Novalue)
		for n < 300 {
			add(g.Next())
		}
		a := openArchive(t, base)
		rep := check(t, a, config.String(), r.Version)
		compared, history := compareAtRecords(t, r, base, a, rep)
		if compared < 400 || history < 40 {
			t.Errorf("%s: only %d node values compared, %d with history", r, compared, history)
		}
	})
}

// compareAtRecords explains every valid metric of rep at data records 2,
// 4 and 6 of the archive (pmlogger's first record holds only its own
// metrics; one, three and five records before them give history) and
// compares every comparable node with the release's replay of it as a
// derived metric of its own. It returns how many node values it compared
// and how many of them had delta or rate.
func compareAtRecords(t *testing.T, r oracle.Release, base string, a *archive.Archive, rep *checker.Report) (compared, history int) {
	t.Helper()
	stamps := recordStamps(t, a, 7)
	nodes := newNodeConfig()
	var labels []string
	for _, at := range []time.Time{stamps[2], stamps[4], stamps[6]} {
		label := fmt.Sprintf("%d.%06d", at.Unix(), at.Nanosecond()/1000)
		labels = append(labels, label)
		for m := range rep.Metrics.Values() {
			if m.Status != checker.Valid || m.Broken {
				continue
			}
			a.Rewind()
			x := explainName(t, a, rep, m.Def.Name, Options{Start: at})
			if !x.Timestamp.Equal(at) {
				t.Fatalf("%s: explained the record at %v, want %v", m.Def.Name, x.Timestamp, at)
			}
			nodes.add(x, label, r.Version, rep, replayLines)
		}
	}
	// One replay of every record per chunk; small chunks with a deadline,
	// as a few expressions crash or hang old releases.
	libpcp := map[string]string{}
	left := 0
	for start := 0; start < len(nodes.names); start += 25 {
		chunk := nodes.names[start:min(start+25, len(nodes.names))]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := r.ReplayArchive(ctx, base, nodes.config.String(), chunk)
		cancel()
		if err != nil {
			left += len(chunk)
			continue
		}
		for _, label := range labels {
			for name, lines := range replayRecord(out, label) {
				libpcp[name+label] = lines
			}
		}
	}
	differ := 0
	for _, label := range labels {
		for _, name := range nodes.names {
			w, ok := libpcp[name+label]
			got, evaluated := nodes.ours[name+label]
			if !ok || !evaluated {
				continue
			}
			compared++
			text := textOf(nodes, name)
			if strings.Contains(text, "rate(") || strings.Contains(text, "delta(") {
				history++
			}
			if !oracle.SameValues(got, w) {
				differ++
				if differ <= 10 {
					t.Errorf("%s: node %q of %q at %s\n  libpcp: %q\n  ours:   %q", r, abbreviate(text, 200), abbreviate(nodes.expr[name], 200), label, w, got)
				}
			}
		}
	}
	t.Logf("%s: %d node values compared at data records 2, 4 and 6 of the archive (%d with delta or rate), %d differ (%d of %d nodes left out: libpcp crashed or hung)", r, compared, history, differ, left, len(nodes.names))
	return compared, history
}

// TestShippedConfigNodesAgreeWithLibpcp: every node of every metric each
// release ships in its derived configs (the disk, network, memory and
// process ones), explained over an archive of their operands recorded
// from this host, equals that release's libpcp for the node alone.
func TestShippedConfigNodesAgreeWithLibpcp(t *testing.T) {
	live := livePmcd(t)
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		shipped, err := r.ShippedConfigs()
		if err != nil {
			t.Fatal(err)
		}
		var srcs []grammar.Source
		for _, name := range slices.Sorted(maps.Keys(shipped)) {
			srcs = append(srcs, grammar.Source{Path: name, Src: shipped[name]})
		}
		files := grammar.ParseConfigs(srcs, r.Version)
		liveRep, err := checker.Check(context.Background(), files, live, checker.Options{Version: r.Version})
		if err != nil {
			t.Fatal(err)
		}
		operands := slices.Sorted(maps.Keys(liveRep.Operands))
		base := recordArchive(t, 8, operands...)
		a := openArchive(t, base)
		files = grammar.ParseConfigs(srcs, r.Version)
		rep, err := checker.Check(context.Background(), files, a, checker.Options{Version: r.Version})
		if err != nil {
			t.Fatal(err)
		}
		valid := 0
		for m := range rep.Metrics.Values() {
			if m.Status == checker.Valid {
				valid++
			}
		}
		compared, history := compareAtRecords(t, r, base, a, rep)
		t.Logf("%s: %d shipped metrics valid here, %d operands logged", r, valid, len(operands))
		if compared < 100 || history < 20 {
			t.Errorf("%s: only %d node values of the shipped configs compared, %d with history", r, compared, history)
		}
	})
}

// recordStamps reads the times of an archive's first n records holding
// any metric (as the evaluator sees them).
func recordStamps(t *testing.T, a *archive.Archive, n int) []time.Time {
	t.Helper()
	defer a.Rewind()
	var out []time.Time
	for len(out) < n {
		res, err := a.Fetch(context.Background(), nil)
		if err == io.EOF {
			t.Fatalf("the archive has only %d records", len(out))
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Timestamp)
	}
	return out
}
