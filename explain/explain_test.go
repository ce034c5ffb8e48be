package explain

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

func TestMain(m *testing.M) {
	// Golden headers print times: in UTC, whatever the machine's zone.
	time.Local = time.UTC
	os.Exit(m.Run())
}

func requirePCP(t testing.TB) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo missing: run scripts/pcp-testenv.sh")
	}
}

// livePmcd connects to the test pmcd (scripts/pcp-testenv.sh).
func livePmcd(t testing.TB) *pmcd.Client {
	t.Helper()
	requirePCP(t)
	src, err := pmcd.New("127.0.0.1", pmcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// check parses and checks a config as the explain command does.
func check(t testing.TB, src pmclient.Source, config string, v pcpver.Version) *checker.Report {
	t.Helper()
	files := grammar.ParseConfigs([]grammar.Source{{Path: "test.conf", Src: []byte(config)}}, v)
	rep, err := checker.Check(context.Background(), files, src, checker.Options{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// explainName explains one definition of a checked config.
func explainName(t testing.TB, src pmclient.Source, rep *checker.Report, name string, opts Options) *Explanation {
	t.Helper()
	m, ok := rep.ByName.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	if opts.Interval == 0 {
		opts.Interval = 200 * time.Millisecond
	}
	x, err := Explain(context.Background(), src, Target{Report: rep, Metric: m}, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return x
}

// byText finds the first node (pre-order) with this source text.
func byText(x *Explanation, text string) *Node {
	var found *Node
	walk(x.Root, func(n *Node) {
		if found == nil && n.Text() == text {
			found = n
		}
	})
	return found
}

// emptyCause is one cause of emptiness: the definition, the node where
// values must vanish, and words its reason must hold.
type emptyCause struct {
	name, expr string
	version    pcpver.Version
	at         string
	words      []string
}

var emptyCauses = []emptyCause{
	{"no_values", "sample.bad.novalues + 1", pcpver.V6_0_3, "sample.bad.novalues", []string{"`sample.bad.novalues`", "no values"}},
	{"matchinst", "matchinst(/^nomatch$/, sample.bin) * 2", pcpver.V6_0_3, "matchinst(/^nomatch$/, sample.bin)", []string{"no instance of `sample.bin` matches `/^nomatch$/`"}},
	{"disjoint", "matchinst(/100/, sample.bin) + matchinst(/900/, sample.bin)", pcpver.V6_0_3, "matchinst(/100/, sample.bin) + matchinst(/900/, sample.bin)", []string{"share no instance", "`bin-100`", "`bin-900`"}},
	{"guard", "sample.long.one > 5 ? sample.long.one : novalue()", pcpver.V7_2_2, "sample.long.one > 5 ? sample.long.one : novalue()", []string{"the guard `sample.long.one > 5` chose the branch that has no value", "`novalue()`"}},
	{"static_novalue", "defined(no.such.metric) ? no.such.metric : novalue()", pcpver.V7_2_2, "novalue()", []string{"`novalue()`", "`defined(no.such.metric)`", "always chooses this branch"}},
	{"instance", "sample.bin[bin-999] + 1", pcpver.V6_0_3, "sample.bin[bin-999]", []string{"no instance of `sample.bin` is named `bin-999`"}},
}

// checkCause asserts that values vanish at the expected node with the
// expected words, and that every node above it points at it.
func checkCause(t *testing.T, c emptyCause, x *Explanation) {
	t.Helper()
	if len(x.Origins) == 0 {
		t.Fatalf("%s: no node where values vanish; root %q has %d values", c.name, x.Root.Text(), len(x.Root.Values()))
	}
	o := x.Origins[0]
	if o.Text() != c.at {
		t.Errorf("%s: values vanish at %q (%s), want %q", c.name, o.Text(), o.EmptyBecause(), c.at)
	}
	for _, w := range c.words {
		if !strings.Contains(o.EmptyBecause(), w) {
			t.Errorf("%s: reason %q lacks %q", c.name, o.EmptyBecause(), w)
		}
	}
	for _, p := range ancestors(x.Root, o) {
		if p.EmptyBecause() != "" {
			t.Errorf("%s: %q above the origin has a reason of its own: %q", c.name, p.Text(), p.EmptyBecause())
		}
		if p.EmptyAt() != o {
			t.Errorf("%s: %q does not point at %q", c.name, p.Text(), o.Text())
		}
		if !strings.Contains(p.Explanation(), "`"+abbreviate(o.Text(), maxQuoted)+"`") {
			t.Errorf("%s: %q's explanation %q does not name %q", c.name, p.Text(), p.Explanation(), o.Text())
		}
	}
	if !x.Root.Empty() {
		t.Errorf("%s: the root has values", c.name)
	}
}

// ancestors are the nodes above n in the tree under root, nearest first.
func ancestors(root, n *Node) []*Node {
	parent := map[*Node]*Node{}
	walk(root, func(p *Node) {
		for _, c := range p.Children() {
			parent[c] = p
		}
	})
	var out []*Node
	for p := parent[n]; p != nil; p = parent[p] {
		out = append(out, p)
	}
	return out
}

// TestEmptyCausesLive: each cause of emptiness, against the live pmcd,
// named at the right node.
func TestEmptyCausesLive(t *testing.T) {
	src := livePmcd(t)
	for _, c := range emptyCauses {
		rep := check(t, src, "e."+c.name+" = "+c.expr+"\n", c.version)
		checkCause(t, c, explainName(t, src, rep, "e."+c.name, Options{}))
	}
}

// recordArchive logs metrics from the test pmcd for samples records.
func recordArchive(t testing.TB, samples int, metrics ...string) string {
	t.Helper()
	requirePCP(t)
	dir := t.TempDir()
	cfg := "log mandatory on default { " + strings.Join(metrics, " ") + " }\n"
	if err := os.WriteFile(filepath.Join(dir, "cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "200msec", "-s", strconv.Itoa(samples), "-V2", "a")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pmlogger: %v\n%s", err, out)
	}
	return filepath.Join(dir, "a")
}

func openArchive(t testing.TB, base string) *archive.Archive {
	t.Helper()
	a, err := archive.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestEmptyCausesArchive: the same causes from an archive.
func TestEmptyCausesArchive(t *testing.T) {
	base := recordArchive(t, 3, "sample.bad.novalues", "sample.bin", "sample.long.one")
	for _, c := range emptyCauses {
		a := openArchive(t, base)
		rep := check(t, a, "e."+c.name+" = "+c.expr+"\n", c.version)
		x := explainName(t, a, rep, "e."+c.name, Options{})
		if c.name == "instance" {
			// An archive matches instance names itself, as libpcp does.
			c.words = []string{"no instance of `sample.bin` is named `bin-999` (it has bin-100"}
		}
		checkCause(t, c, x)
		if !x.Recorded || x.Samples != 1 {
			t.Errorf("%s: recorded %v, %d samples, want one record", c.name, x.Recorded, x.Samples)
		}
	}
}

// TestCounterWithOneSample: a rate has no value until a second sample:
// live, in the editor's first preview cycle (one sample recorded), and
// from an archive of one record.
func TestCounterWithOneSample(t *testing.T) {
	c := emptyCause{"one_sample", "rate(sample.seconds) * 100", pcpver.V6_0_3, "rate(sample.seconds)", []string{"the counter `sample.seconds` has one sample", "rate() needs two"}}
	live := livePmcd(t)
	rep := check(t, live, "e.rate = "+c.expr+"\n", c.version)
	m := rep.ByName.Metric("e.rate")
	ev, err := evaluator.New(context.Background(), live, rep)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(nil)
	ev.Observe(rec.Observer())
	rec.Begin()
	s, err := ev.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.End(s)
	x, err := rec.Explain(context.Background(), live, Target{Report: rep, Metric: m})
	if err != nil {
		t.Fatal(err)
	}
	checkCause(t, c, x)
	// The next cycle has the history.
	rec.Begin()
	if s, err = ev.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.End(s)
	if x, _ = rec.Explain(context.Background(), live, Target{Report: rep, Metric: m}); x.Root.Empty() || len(x.Origins) != 0 {
		t.Errorf("second sample: root empty %v, origins %d", x.Root.Empty(), len(x.Origins))
	}

	base := recordArchive(t, 1, "sample.seconds")
	a := openArchive(t, base)
	rep = check(t, a, "e.rate = "+c.expr+"\n", c.version)
	x = explainName(t, a, rep, "e.rate", Options{})
	checkCause(t, c, x)
	if !strings.Contains(x.Origins[0].EmptyBecause(), "archive") {
		t.Errorf("the reason %q does not say the archive has no other record", x.Origins[0].EmptyBecause())
	}
}

// countingSource counts fetches (a pmcd client is an InstanceLookuper).
type countingSource struct {
	*pmcd.Client
	fetches int
}

func (c *countingSource) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	c.fetches++
	return c.Client.Fetch(ctx, pmids)
}

// TestOneFetchPerSample: every leaf of the tree comes from one fetch per
// sample: one for a tree without history, two with delta() or rate().
func TestOneFetchPerSample(t *testing.T) {
	live := livePmcd(t)
	for _, c := range []struct {
		expr    string
		fetches int
	}{
		{"sample.bin + sample.part_bin * sample.long.one - sum(sample.bin) + count(sample.long.bin)", 1},
		{"delta(sample.long.bin_ctr) * (rate(sample.seconds) + sample.double.one)", 2},
		{"1 + 2 * 3", 0},
	} {
		src := &countingSource{Client: live}
		rep := check(t, src, "f.m = "+c.expr+"\n", pcpver.V6_0_3)
		x := explainName(t, src, rep, "f.m", Options{})
		if src.fetches != c.fetches || x.Fetches != c.fetches {
			t.Errorf("%s: %d fetches (%d counted by explain), want %d", c.expr, src.fetches, x.Fetches, c.fetches)
		}
		if x.Root.Empty() {
			t.Errorf("%s: no values: %s %s", c.expr, x.Root.Explanation(), x.Root.EmptyBecause())
		}
	}
}

// stalledSource answers metadata from an archive but never answers a
// fetch, like a pmcd that stopped responding.
type stalledSource struct{ pmclient.Source }

func (stalledSource) Fetch(ctx context.Context, _ []pmapi.PMID) (*pmclient.Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// failingSource fails every fetch, like a pmcd that went away.
type failingSource struct{ pmclient.Source }

func (failingSource) Fetch(context.Context, []pmapi.PMID) (*pmclient.Result, error) {
	return nil, pmclient.ErrIPC
}

// TestSourceThatStallsOrFails: a source that never answers a fetch gives
// an error naming the deadline, one that fails gives its error; neither
// hangs.
func TestSourceThatStallsOrFails(t *testing.T) {
	a := openArchive(t, "testdata/golden")
	rep := check(t, a, "s.m = sample.bin * 2\n", pcpver.V7_2_2)
	m := rep.ByName.Metric("s.m")
	_, err := Explain(context.Background(), stalledSource{a}, Target{Report: rep, Metric: m}, Options{SampleTimeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Errorf("stalled source: %v", err)
	}
	_, err = Explain(context.Background(), failingSource{a}, Target{Report: rep, Metric: m}, Options{})
	if err == nil || !strings.Contains(err.Error(), pmclient.ErrIPC.Error()) {
		t.Errorf("failing source: %v", err)
	}
}

// scriptedSource answers metadata from an archive and each fetch with the
// next of a script of values for one metric, like a pmcd whose PMDA
// changes between samples.
type scriptedSource struct {
	pmclient.Source
	pmid   pmapi.PMID
	script [][]pmclient.Value
	next   int
}

func (s *scriptedSource) Fetch(_ context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	res := &pmclient.Result{Timestamp: time.Unix(1700000000+int64(s.next), 0)}
	for _, p := range pmids {
		mv := pmclient.MetricValues{PMID: p}
		if p == s.pmid && s.next < len(s.script) {
			mv.Values = s.script[s.next]
		}
		res.Metrics = append(res.Metrics, mv)
	}
	s.next++
	return res, nil
}

// TestHistoryReasons: a counter that went backwards (rate() leaves it
// out since 6.2.1) and instances that changed between the two samples are
// named at the delta() or rate().
func TestHistoryReasons(t *testing.T) {
	for _, tc := range []struct {
		name, metric, expr string
		script             [][]pmclient.Value
		at                 string
		words              string
	}{
		{"backwards", "sample.seconds", "rate(sample.seconds) + 1", [][]pmclient.Value{{{Inst: -1, Uint: 100}}, {{Inst: -1, Uint: 50}}},
			"rate(sample.seconds)", "the counter `sample.seconds` went backwards since the previous sample for every instance"},
		{"instances", "sample.long.bin_ctr", "delta(sample.long.bin_ctr) * 2", [][]pmclient.Value{{{Inst: 100, Int: 1}}, {{Inst: 200, Int: 2}}},
			"delta(sample.long.bin_ctr)", "no instance of `sample.long.bin_ctr` has a value in both this sample and the previous one"},
		{"previous empty", "sample.seconds", "rate(sample.seconds) + 1", [][]pmclient.Value{nil, {{Inst: -1, Uint: 50}}},
			"rate(sample.seconds)", "the counter `sample.seconds` had no values in the previous sample"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := openArchive(t, "testdata/golden")
			rep := check(t, a, "h.m = "+tc.expr+"\n", pcpver.V7_2_2)
			src := &scriptedSource{Source: a, pmid: rep.Operands[tc.metric].PMID, script: tc.script}
			x := explainName(t, src, rep, "h.m", Options{Interval: time.Millisecond})
			if x.Samples != 2 || len(x.Origins) != 1 {
				t.Fatalf("%d samples, %d nodes where values vanish", x.Samples, len(x.Origins))
			}
			if o := x.Origins[0]; o.Text() != tc.at || !strings.Contains(o.EmptyBecause(), tc.words) {
				t.Errorf("values vanish at %q: %q; want %q: %q", o.Text(), o.EmptyBecause(), tc.at, tc.words)
			}
		})
	}
}

// TestValueRaw: a Value gives back the evaluator's value it was made of,
// at every numeric type's extremes and for a string, and its text is
// pminfo's.
func TestValueRaw(t *testing.T) {
	for _, tc := range []struct {
		typ  pmapi.Type
		v    evaluator.Value
		text string
	}{
		{pmapi.Type32, evaluator.Value{Inst: -1, Int: math.MinInt32}, "-2147483648"},
		{pmapi.Type64, evaluator.Value{Inst: 3, Int: math.MinInt64}, "-9223372036854775808"},
		{pmapi.TypeU32, evaluator.Value{Inst: 0, Uint: math.MaxUint32}, "4294967295"},
		{pmapi.TypeU64, evaluator.Value{Inst: 7, Uint: math.MaxUint64}, "18446744073709551615"},
		{pmapi.TypeFloat, evaluator.Value{Inst: -1, Float: float64(float32(1.5))}, "1.5"},
		{pmapi.TypeDouble, evaluator.Value{Inst: -1, Float: math.Inf(-1)}, "-inf"},
		{pmapi.TypeDouble, evaluator.Value{Inst: -1, Float: 0.1 + 0.2}, "0.3"},
		{pmapi.TypeString, evaluator.Value{Inst: 2, String: "a \"quoted\" one"}, "a \"quoted\" one"},
	} {
		got := makeValue(tc.typ, tc.v)
		if got.Text != tc.text {
			t.Errorf("%v %+v: text %q, want %q", tc.typ, tc.v, got.Text, tc.text)
		}
		if got.Number != tc.typ.Arithmetic() {
			t.Errorf("%v %+v: Number %v", tc.typ, tc.v, got.Number)
		}
		if raw := got.Raw(); !reflect.DeepEqual(raw, tc.v) {
			t.Errorf("%v: Raw() = %+v, want %+v", tc.typ, raw, tc.v)
		}
	}
}

// TestNodeSize holds a Node to 40 bytes: a big expression has one per
// subexpression (it was 192, with its span, text, phrase and the fields
// few nodes have inline; 96 with its syntax node, values and children
// slices and its trouble pointer inside).
func TestNodeSize(t *testing.T) {
	if size := unsafe.Sizeof(Node{}); size > 40 {
		t.Errorf("a Node is %d bytes, want at most 40", size)
	}
}

// TestValueSize holds a value as an explanation keeps it to 16 bytes and
// a Value as Values gives it to 48: a big expression has one per node and
// instance (it was 112 with the evaluator's value inside, 48 with its
// text).
func TestValueSize(t *testing.T) {
	if size := unsafe.Sizeof(value{}); size > 16 {
		t.Errorf("a value is %d bytes, want at most 16", size)
	}
	if size := unsafe.Sizeof(Value{}); size > 48 {
		t.Errorf("a Value is %d bytes, want at most 48", size)
	}
}
