package checker

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// TestFindingsOnlySameFindings: a FindingsOnly check (trees built a
// window at a time and dropped, operand names from the tokens, nodes
// dropped as it goes) reports exactly the findings, statuses and
// descriptors of a full check, on a config that spans several windows,
// has broken lines, derived metrics used by others (before and after
// their definition) and unknown names.
func TestFindingsOnlySameFindings(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	metrics := append([]string{"gen.m7", "gen.m9000", "no.such.metric", "sample.lnog.one"}, genMetrics...)
	g := exprgen.New(11, metrics)
	g.BrokenShare = 0.1
	var config strings.Builder
	n := treeWindow*2 + 500
	for i := range n {
		fmt.Fprintf(&config, "gen.m%d = %s\n", i, g.Next())
	}
	text := []byte(config.String())
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		check := func(findingsOnly bool) *Report {
			f := grammar.ParseConfig("g.conf", text, grammar.Options{Version: v})
			rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: v, FindingsOnly: findingsOnly})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		full, lean := check(false), check(true)
		fd, ld := full.Diagnostics(full.Files[0]), lean.Diagnostics(lean.Files[0])
		if len(fd) != len(ld) {
			t.Fatalf("%s: %d findings, FindingsOnly %d", v, len(fd), len(ld))
		}
		for i := range fd {
			if !reflect.DeepEqual(fd[i], ld[i]) {
				t.Fatalf("%s: finding %d:\n full %+v\n lean %+v", v, i, fd[i], ld[i])
			}
		}
		for i, m := range full.Metrics.All() {
			l := lean.Metrics.At(i)
			if m.Status != l.Status || m.Desc != l.Desc || m.Message() != l.Message() || !reflect.DeepEqual(m.Unknown(), l.Unknown()) {
				t.Fatalf("%s: %s: full %v %v, lean %v %v", v, m.Def.Name, m.Status, m.Desc, l.Status, l.Desc)
			}
			if (l.nodes != nil || m.nodes != nil) && !m.boundUnfinished {
				t.Fatalf("%s: %s: the check kept the node metadata", v, m.Def.Name)
			}
		}
		if len(fd) < n/10 {
			t.Fatalf("%s: only %d findings: the config no longer exercises the check", v, len(fd))
		}
	}
}

// TestCheckAllocationBound bounds what a FindingsOnly check allocates per
// definition, metadata cached, over parse and check: the cost that makes
// check of a big config fast and its peak memory small. Today about 13
// KB and 130 allocations for 94 bytes of text (it was 45 KB and 470);
// the bounds leave room, a return of per-token leftovers does not fit.
func TestCheckAllocationBound(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	g := exprgen.New(7, genMetrics)
	g.BrokenShare = 0
	const n = 2000
	var config strings.Builder
	for i := range n {
		fmt.Fprintf(&config, "bench.m%d = %s\n", i, g.Next())
	}
	text := []byte(config.String())
	opts := Options{Version: pcpver.V6_0_3, FindingsOnly: true}
	run := func() {
		f := grammar.ParseConfig("b.conf", text, grammar.Options{Version: pcpver.V6_0_3})
		if _, err := Check(context.Background(), []*grammar.File{f}, src, opts); err != nil {
			t.Fatal(err)
		}
	}
	run() // warm the cache
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run()
		}
	})
	bytesPer, allocsPer := res.AllocedBytesPerOp()/n, res.AllocsPerOp()/n
	t.Logf("per definition: %d bytes, %d allocations (%d bytes of text)", bytesPer, allocsPer, len(text)/n)
	if bytesPer > 32<<10 || allocsPer > 300 {
		t.Errorf("a check allocates %d bytes and %d allocations per definition; the bound is 32 KiB and 300", bytesPer, allocsPer)
	}
}

// TestFullCheckTreesNotShared: only a FindingsOnly check shares the
// trees of definitions of one text; a full check's metrics each have
// their own, as an evaluator's state by node needs (two rate(x) must
// each keep their previous values).
func TestFullCheckTreesNotShared(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	text := []byte("a = rate(sample.long.one)\nb = rate(sample.long.one)\n")
	for _, findingsOnly := range []bool{false, true} {
		f := grammar.ParseConfig("g.conf", text, grammar.Options{Version: pcpver.Latest})
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.Latest, FindingsOnly: findingsOnly})
		if err != nil {
			t.Fatal(err)
		}
		if findingsOnly {
			continue // the trees are dropped
		}
		ta, _ := rep.Metrics.At(0).Def.Tree()
		tb, _ := rep.Metrics.At(1).Def.Tree()
		if ta == tb {
			t.Fatal("a full check shares one tree between two definitions")
		}
	}
}
