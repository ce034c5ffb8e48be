package evaluator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// Metrics whose values never change, so one sample of ours and one of
// libpcp's can be compared.
var steady = oracle.SteadyMetrics

func requirePCP(t *testing.T) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo missing: run scripts/pcp-testenv.sh")
	}
}

// sampleOnce checks a config against the live pmcd and evaluates one
// sample, printed as pminfo -f prints it.
// prepare parses and checks a config against a source and makes its
// evaluator: the path every test takes to values.
func prepare(t *testing.T, src pmclient.Source, path, config string, d pcpver.Version) (*grammar.File, *checker.Report, *Evaluator) {
	t.Helper()
	ctx := context.Background()
	f := grammar.ParseConfig(path, []byte(config), grammar.Options{Version: d})
	rep, err := checker.Check(ctx, []*grammar.File{f}, src, checker.Options{Version: d})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := New(ctx, src, rep)
	if err != nil {
		t.Fatal(err)
	}
	return f, rep, ev
}

// livePmcd connects to the test pmcd.
func livePmcd(t *testing.T) *pmcd.Client {
	t.Helper()
	src, err := pmcd.New("127.0.0.1", pmcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func sampleOnce(t *testing.T, config string) (string, *checker.Report) {
	t.Helper()
	_, rep, ev := prepare(t, livePmcd(t), "gen.conf", config, pcpver.V6_0_3)
	s, err := ev.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WritePminfo(&b, s, ev.InstanceName)
	return b.String(), rep
}

// pminfoValues asks libpcp for one sample of the named metrics, in chunks:
// a few expressions make libpcp 6.0.3 hang at fetch (the chunk is then
// left out and counted).
func pminfoValues(t *testing.T, config string, names []string) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gen.conf")
	os.WriteFile(path, []byte(config), 0o644)
	var all strings.Builder
	hung := 0
	for start := 0; start < len(names); start += 50 {
		chunk := names[start:min(start+50, len(names))]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, "pminfo", append([]string{"-h", "127.0.0.1", "-c", path, "-f"}, chunk...)...)
		cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
		out, _ := cmd.Output() // exits 1 when some metric has no value
		timedOut := ctx.Err() == context.DeadlineExceeded
		cancel()
		if timedOut {
			hung += len(chunk)
			continue
		}
		all.Write(out)
	}
	return all.String(), hung
}

// TestSingleSampleAgainstPminfo: generated definitions over metrics with
// steady values read the same as pminfo -c FILE -f prints them.
func TestSingleSampleAgainstPminfo(t *testing.T) {
	t.Parallel() // the archive test records for a minute: overlap the others
	requirePCP(t)
	g := exprgen.New(99, steady)
	g.BrokenShare = 0
	var config strings.Builder
	var names []string
	for i := 0; len(names) < 1200; i++ {
		e := g.Next()
		if !grammar.LibpcpVerdict(e, pcpver.V6_0_3, false).OK || oracle.KnownCrash(e) {
			continue
		}
		name := fmt.Sprintf("gen.m%d", i)
		names = append(names, name)
		fmt.Fprintf(&config, "%s = %s\n", name, e)
	}
	ours, rep := sampleOnce(t, config.String())
	libpcp, hung := pminfoValues(t, config.String(), names)
	want := oracle.PminfoBlocks(libpcp)
	got := oracle.PminfoBlocks(ours)
	compared, differ := 0, 0
	for m := range rep.Metrics.Values() {
		name := m.Def.Name
		if _, asked := want[name]; m.Status != checker.Valid || !asked {
			continue
		}
		if garbageValue(rep, m) {
			continue
		}
		compared++
		if !oracle.SameValues(got[name], want[name]) {
			differ++
			if differ <= 20 {
				t.Errorf("%s = %s\n  libpcp: %q\n  ours:   %q", name, m.Def.Expr, want[name], got[name])
			}
		}
	}
	t.Logf("%d definitions compared with libpcp, %d differ (%d left out: libpcp hung fetching them)", compared, differ, hung)
	if compared < 500 {
		t.Errorf("only %d definitions compared", compared)
	}
}

// comparable lists the valid metrics of a report, to compare with libpcp,
// and which of them have a value libpcp computes as garbage (garbageValue).
func comparable(rep *checker.Report) (valid []string, garbage map[string]bool) {
	garbage = map[string]bool{}
	for m := range rep.Metrics.Values() {
		if m.Status == checker.Valid {
			valid = append(valid, m.Def.Name)
			garbage[m.Def.Name] = garbageValue(rep, m)
		}
	}
	return valid, garbage
}

// garbageValue: metrics whose libpcp value is not meaningful (documented
// deviations): !x of non-32-bit operands, strings through ?:, min/max of
// nothing.
func garbageValue(rep *checker.Report, m *checker.Metric) bool {
	if m.Broken {
		return true // libpcp's value is whatever was left over, if any
	}
	bad := false
	nodes := rep.NodesOf(m)
	tree, _ := m.Def.Tree()
	grammar.Walk(tree, func(n grammar.Node) bool {
		if u, ok := n.(*grammar.Unary); ok && u.Op == "!" {
			if ni := nodes[u.X]; ni != nil && ni.Desc.Type != 0 && ni.Desc.Type != 1 {
				bad = true
			}
		}
		if tr, ok := n.(*grammar.Ternary); ok {
			if ni := nodes[tr]; ni != nil && ni.Desc.Type == 6 {
				bad = true
			}
		}
		return true
	})
	return bad
}

// TestDeltaRate: the first sample has no values; the second compares with
// it (rate of a time counter is a utilisation near 1).
func TestDeltaRate(t *testing.T) {
	t.Parallel() // the archive test records for a minute: overlap the others
	requirePCP(t)
	ctx := context.Background()
	config := "m.rate = rate(sample.milliseconds)\nm.delta = delta(sample.long.one)\nm.util = rate(sample.milliseconds) > 0.5 ? 1 : 0\nm.count = count(sample.bin)\n"
	_, _, ev := prepare(t, livePmcd(t), "t.conf", config, pcpver.V6_0_3)
	first, err := ev.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Results[0].Values) != 0 || len(first.Results[1].Values) != 0 {
		t.Errorf("first sample has delta/rate values: %+v", first.Results)
	}
	time.Sleep(300 * time.Millisecond)
	second, err := ev.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rate := second.Results[0].Values
	if len(rate) != 1 || rate[0].Float < 0.9 || rate[0].Float > 1.1 {
		t.Errorf("rate(sample.milliseconds) = %+v, want about 1", rate)
	}
	if d := second.Results[1].Values; len(d) != 1 || d[0].Int != 0 {
		t.Errorf("delta(sample.long.one) = %+v, want 0", d)
	}
	if c := second.Results[3].Values; len(c) != 1 || c[0].Uint != 9 {
		t.Errorf("count(sample.bin) = %+v", c)
	}
}
