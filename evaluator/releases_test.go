package evaluator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// releaseConfig is n definitions valid for release v: the cases that
// changed between releases (checker/testdata/releases.table) first, then
// generated ones with every construct the release has. Expressions that
// crash the release's libpcp at fetch are left out.
func releaseConfig(t *testing.T, v pcpver.Version, seed uint64, metrics []string, n int) (string, []string) {
	t.Helper()
	changed, err := os.ReadFile("../checker/testdata/releases.table")
	if err != nil {
		t.Fatal(err)
	}
	var config strings.Builder
	var names []string
	add := func(e string) {
		if !grammar.LibpcpVerdict(e, v, false).OK || (!v.Has(pcpver.ExprInstance) && oracle.KnownCrash(e)) {
			return
		}
		names = append(names, fmt.Sprintf("rel.m%d", len(names)))
		fmt.Fprintf(&config, "%s = %s\n", names[len(names)-1], e)
	}
	for _, l := range strings.Split(string(changed), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			add(l)
		}
	}
	g := exprgen.New(seed, metrics)
	g.BrokenShare = 0
	g.PCP7 = v.Has(pcpver.Novalue)
	for len(names) < n {
		add(g.Next())
	}
	return config.String(), names
}

// TestValuesAcrossReleases: one live sample of each release's definitions
// equals that release's pminfo -f.
func TestValuesAcrossReleases(t *testing.T) {
	requirePCP(t)
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		config, names := releaseConfig(t, r.Version, 99, steady, 1200)
		_, rep, ev := prepare(t, livePmcd(t), "rel.conf", config, r.Version)
		s, err := ev.Sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		WritePminfo(&b, s, ev.InstanceName)
		libpcp, hung, err := r.Values(context.Background(), config, names)
		if err != nil {
			t.Fatal(err)
		}
		want, got := oracle.PminfoBlocks(libpcp), oracle.PminfoBlocks(b.String())
		compared, differ := 0, 0
		for m := range rep.Metrics.Values() {
			name := m.Def.Name
			if _, asked := want[name]; m.Status != checker.Valid || !asked || garbageValue(rep, m) || changing(m, rep) {
				continue
			}
			compared++
			if !oracle.SameValues(got[name], want[name]) {
				differ++
				if differ <= 15 {
					t.Errorf("%s: %s = %s\n  libpcp: %q\n  ours:   %q", r, name, m.Def.Expr, want[name], got[name])
				}
			}
		}
		t.Logf("%s: %d definitions compared with pminfo -f, %d differ (%d left out: libpcp hung)", r, compared, differ, hung)
		if compared < 500 {
			t.Errorf("%s: only %d definitions compared", r, compared)
		}
	})
}

// byChunks puts replay lines in one order whatever the chunking: the
// timestamp lines once, in order, and every value line after them sorted
// by record, so that our single pass and libpcp's passes per chunk line
// up.
func byChunks(out string) []string {
	type rec struct {
		t     string
		lines []string
	}
	var recs []*rec
	at := map[string]*rec{}
	var cur *rec
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "T ") {
			if cur = at[l]; cur == nil {
				cur = &rec{t: l}
				at[l] = cur
				recs = append(recs, cur)
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	var lines []string
	for _, r := range recs {
		sort.Strings(r.lines)
		lines = append(append(lines, r.t), r.lines...)
	}
	return lines
}

// changing reports a definition over a metric whose value changes between
// two samples taken moments apart (the table's cases are not limited to
// steady metrics): comparing one sample of each is meaningless for it.
func changing(m *checker.Metric, rep *checker.Report) bool {
	isSteady := map[string]bool{}
	for _, s := range steady {
		isSteady[s] = true
	}
	tree, _ := m.Def.Tree()
	found := false
	grammar.Walk(tree, func(n grammar.Node) bool {
		if mt, ok := n.(*grammar.Metric); ok {
			if _, bound := rep.Operands[mt.Name]; bound && !isSteady[mt.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// TestArchiveAcrossReleases: over every record of a v2 archive (which
// every release reads), each release's definitions evaluate as that
// release's python3-pcp pmFetch evaluates them, record by record.
func TestArchiveAcrossReleases(t *testing.T) {
	requirePCP(t)
	dir := t.TempDir()
	cfg := "log mandatory on default { " + strings.Join(logged, " ") + " }\n"
	os.WriteFile(filepath.Join(dir, "cfg"), []byte(cfg), 0o644)
	rec := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "500msec", "-s", "12", "-V2", "rel")
	rec.Dir = dir
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("pmlogger: %v\n%s", err, out)
	}
	base := filepath.Join(dir, "rel")
	ctx := context.Background()
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		config, _ := releaseConfig(t, r.Version, 7, logged, 400)
		a, err := archive.Open(base)
		if err != nil {
			t.Fatal(err)
		}
		f := grammar.ParseConfig("rel.conf", []byte(config), grammar.Options{Version: r.Version})
		rep, err := checker.Check(ctx, []*grammar.File{f}, a, checker.Options{Version: r.Version})
		if err != nil {
			t.Fatal(err)
		}
		valid, skip := comparable(rep)
		// In chunks with a deadline each: a few expressions hang some
		// releases' libpcp at fetch (those are left out and counted).
		var wantOut strings.Builder
		var replayed []string
		hung := 0
		for start := 0; start < len(valid); start += 100 {
			chunk := valid[start:min(start+100, len(valid))]
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			out, err := r.ReplayArchive(cctx, base, config, chunk)
			timedOut := cctx.Err() != nil
			cancel()
			switch {
			case timedOut:
				hung += len(chunk)
				continue
			case err != nil:
				t.Logf("%s: %v (left out)", r, err)
				hung += len(chunk)
				continue
			}
			wantOut.WriteString(out)
			replayed = append(replayed, chunk...)
		}
		want := byChunks(wantOut.String())
		keep := map[string]bool{}
		for _, n := range replayed {
			keep[n] = true
		}
		for m := range rep.Metrics.Values() {
			if m.Status == checker.Valid && !keep[m.Def.Name] {
				m.Status = checker.NotRegistered // left out of our side too
			}
		}
		ev, err := New(ctx, a, rep)
		if err != nil {
			t.Fatal(err)
		}
		ours, samples, undefined := sampleAll(ctx, t, ev, -1)
		wantLines, gotLines := want, byChunks(ours)
		if len(wantLines) != len(gotLines) {
			t.Errorf("%s: libpcp printed %d lines, we %d", r, len(wantLines), len(gotLines))
		}
		compared, differ := 0, 0
		var at string // the record's T line
		for i := 0; i < min(len(wantLines), len(gotLines)); i++ {
			name := strings.SplitN(wantLines[i], " ", 2)[0]
			if name == "T" {
				at = wantLines[i]
			}
			if skip[name] || undefined.skip(at, wantLines[i]) {
				continue // min() or max() of no values: libpcp's unwritten buffer
			}
			compared++
			if !oracle.SameValues(wantLines[i], gotLines[i]) {
				differ++
				if differ <= 10 {
					t.Errorf("%s: %s = %s\n  line %d: libpcp %q, ours %q", r, name, exprOf(rep, name), i+1, wantLines[i], gotLines[i])
				}
			}
		}
		t.Logf("%s: %d definitions over %d records: %d value lines compared, %d differ (%d definitions left out: libpcp hung or failed)", r, len(replayed), samples, compared, differ, hung)
		if samples < 10 || compared < 1000 {
			t.Errorf("%s: only %d records, %d lines compared", r, samples, compared)
		}
	})
}

// TestAggregatesAcrossReleases: an aggregate value passed through a
// derived metric prints as each release's pminfo -f prints it
// (pmPrintValue: the bytes quoted when all are printable, then in hex).
func TestAggregatesAcrossReleases(t *testing.T) {
	requirePCP(t)
	const config = "agg.hullo = sample.aggregate.hullo\nagg.null = sample.aggregate.null\n" +
		"agg.write_me = sample.aggregate.write_me\nagg.dso = sampledso.aggregate.hullo\n"
	names := []string{"agg.hullo", "agg.null", "agg.write_me", "agg.dso"}
	oracle.EachRelease(t, func(t *testing.T, r oracle.Release) {
		_, _, ev := prepare(t, livePmcd(t), "agg.conf", config, r.Version)
		s, err := ev.Sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var ours bytes.Buffer
		WritePminfo(&ours, s, ev.InstanceName)
		libpcp, hung, err := r.Values(context.Background(), config, names)
		if err != nil || hung > 0 {
			t.Fatalf("%s: %v (%d hung)", r, err, hung)
		}
		want, got := oracle.PminfoBlocks(libpcp), oracle.PminfoBlocks(ours.String())
		for _, n := range names {
			if !strings.Contains(want[n], "value ") || got[n] != want[n] {
				t.Errorf("%s: %s:\n  libpcp: %q\n  ours:   %q", r, n, want[n], got[n])
			}
		}
	})
}
