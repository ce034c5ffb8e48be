package evaluator

import (
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
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// Metrics logged for the evaluation archive: counters, instants, strings,
// several types and instance domains that change (sample.mirage,
// sample.dynamic).
var logged = []string{
	"sample.bin", "sample.milliseconds", "sample.long.one", "sample.long.hundred", "sample.ulong.million",
	"sample.double.ten", "sample.float.one", "sample.longlong.million", "sample.ulonglong.hundred",
	"sample.colour", "sample.byte_ctr", "sample.kbyte_ctr", "sample.long.bin_ctr", "sample.dynamic.counter", "sample.mirage",
	"kernel.all.load", "kernel.all.cpu.user", "mem.util.used", "hinv.ncpu",
}

// replayAll evaluates every sample of the source until it ends, printed
// as canonical does, and counts the samples (sampleAll).
func replayAll(ctx context.Context, t *testing.T, ev *Evaluator) (string, int) {
	t.Helper()
	out, samples, _ := sampleAll(ctx, t, ev, -1)
	return out, samples
}

// canonical prints a sample as the oracle's replay (oracle.ReplayArchive) does.
func canonical(s *Sample) string {
	var b strings.Builder
	fmt.Fprintf(&b, "T %d.%06d\n", s.Timestamp.Unix(), s.Timestamp.Nanosecond()/1000)
	for _, r := range s.Results {
		switch {
		case r.Err != nil:
			fmt.Fprintf(&b, "%s ERR %v\n", r.Name, r.Err)
		case len(r.Values) == 0:
			fmt.Fprintf(&b, "%s NOVALUES\n", r.Name)
		}
		for _, v := range r.Values {
			val := Format(r.Desc.Type, v)
			switch r.Desc.Type {
			case pmapi.TypeFloat, pmapi.TypeDouble:
				val = fmt.Sprintf("%.17g", v.Float)
			case pmapi.TypeString:
				val = v.String
			}
			fmt.Fprintf(&b, "%s %d %s\n", r.Name, v.Inst, val)
		}
	}
	return b.String()
}

// TestArchiveAgainstLibpcp: over every record of an archive of 62 samples
// taken a second apart (counters, instants, strings, and instance domains
// that change: sample.mirage, sample.dynamic), 1,000 generated definitions
// evaluate as libpcp evaluates them.
func TestArchiveAgainstLibpcp(t *testing.T) {
	t.Parallel() // the archive test records for a minute: overlap the others
	requirePCP(t)
	dir := t.TempDir()
	cfg := "log mandatory on default { " + strings.Join(logged, " ") + " }\n"
	os.WriteFile(filepath.Join(dir, "cfg"), []byte(cfg), 0o644)
	rec := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "1sec", "-s", "62", "-V3", "eval")
	rec.Dir = dir
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("pmlogger: %v\n%s", err, out)
	}
	g := exprgen.New(7, logged)
	g.BrokenShare = 0
	var config strings.Builder
	var names []string
	for i := 0; len(names) < 1000; i++ {
		e := g.Next()
		if !grammar.LibpcpVerdict(e, pcpver.V6_0_3, false).OK || oracle.KnownCrash(e) {
			continue
		}
		name := fmt.Sprintf("gen.m%d", i)
		names = append(names, name)
		fmt.Fprintf(&config, "%s = %s\n", name, e)
	}
	ctx := context.Background()
	lines := strings.SplitAfter(config.String(), "\n")
	compared, differ, hung, samples, definitions := 0, 0, 0, 0, 0
	for start := 0; start < len(lines); start += 100 {
		chunk := strings.Join(lines[start:min(start+100, len(lines))], "")
		confPath := filepath.Join(dir, fmt.Sprintf("gen%d.conf", start))
		os.WriteFile(confPath, []byte(chunk), 0o644)
		a, err := archive.Open(filepath.Join(dir, "eval"))
		if err != nil {
			t.Fatal(err)
		}
		f := grammar.ParseConfig(confPath, []byte(chunk), grammar.Options{Version: pcpver.V6_0_3})
		rep, err := checker.Check(ctx, []*grammar.File{f}, a, checker.Options{Version: pcpver.V6_0_3})
		if err != nil {
			t.Fatal(err)
		}
		valid, skip := comparable(rep)
		if len(valid) == 0 {
			continue // nothing to compare (the config's last, empty line)
		}
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		out, err := oracle.Host().ReplayArchive(pctx, filepath.Join(dir, "eval"), chunk, valid)
		timedOut := pctx.Err() == context.DeadlineExceeded
		cancel()
		if timedOut {
			hung += len(valid) // libpcp 6.0.3 hangs on a few expressions
			continue
		}
		if err != nil {
			// libpcp 6.0.3 crashes on a few expressions.
			t.Logf("chunk %d: %v", start, err)
			hung += len(valid)
			continue
		}
		definitions += len(valid)
		ev, err := New(ctx, a, rep)
		if err != nil {
			t.Fatal(err)
		}
		ours, n, undefined := sampleAll(ctx, t, ev, -1)
		samples = n
		wantLines := strings.Split(string(out), "\n")
		gotLines := strings.Split(ours, "\n")
		if len(wantLines) != len(gotLines) {
			t.Errorf("chunk %d: libpcp printed %d lines, we %d", start, len(wantLines), len(gotLines))
		}
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
					t.Errorf("%s = %s\n  line %d: libpcp %q, ours %q", name, exprOf(rep, name), i+1, wantLines[i], gotLines[i])
				}
			}
		}
	}
	if samples < 60 {
		t.Errorf("only %d samples", samples)
	}
	t.Logf("%d definitions over %d records: %d value lines compared, %d differ (%d definitions left out: libpcp hung)", definitions, samples, compared, differ, hung)
}

func exprOf(rep *checker.Report, name string) string {
	if m, ok := rep.ByName.Lookup(name); ok {
		return m.Def.Expr
	}
	return "?"
}

// TestArchiveMarkAgainstLibpcp: over an archive merged by pmlogextract,
// which holds a <mark> where the recordings meet, pmFetch in forward mode
// passes over the mark: no sample there, and delta()/rate() go on from the
// last record before it. We evaluate as libpcp does.
func TestArchiveMarkAgainstLibpcp(t *testing.T) {
	requirePCP(t)
	dir := t.TempDir()
	cfg := "log mandatory on default { sample.long.bin_ctr sample.milliseconds sample.long.one sample.byte_ctr }\n"
	os.WriteFile(filepath.Join(dir, "cfg"), []byte(cfg), 0o644)
	for _, name := range []string{"one", "two"} {
		rec := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "100msec", "-s", "6", "-V3", name)
		rec.Dir = dir
		if out, err := rec.CombinedOutput(); err != nil {
			t.Fatalf("pmlogger: %v\n%s", err, out)
		}
	}
	merge := exec.Command("pmlogextract", "-m", "one", "two", "merged")
	merge.Dir = dir
	if out, err := merge.CombinedOutput(); err != nil {
		t.Fatalf("pmlogextract: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "merged")
	config := "m.d = delta(sample.long.bin_ctr)\nm.r = rate(sample.milliseconds)\nm.b = rate(sample.byte_ctr)\nm.o = sample.long.one\n"
	confPath := filepath.Join(dir, "m.conf")
	os.WriteFile(confPath, []byte(config), 0o644)
	a, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	marks := 0
	for r := a.Records(); ; {
		rec, err := r.Next(context.Background())
		if err != nil {
			break
		}
		if rec.Mark {
			marks++
		}
	}
	if marks == 0 {
		t.Fatal("the merged archive has no <mark> record")
	}
	ctx := context.Background()
	f := grammar.ParseConfig(confPath, []byte(config), grammar.Options{Version: pcpver.V6_0_3})
	rep, err := checker.Check(ctx, []*grammar.File{f}, a, checker.Options{Version: pcpver.V6_0_3})
	if err != nil {
		t.Fatal(err)
	}
	want, err := oracle.Host().ReplayArchive(ctx, path, config, []string{"m.d", "m.r", "m.b", "m.o"})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := New(ctx, a, rep)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := replayAll(ctx, t, ev)
	if got != want {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := range min(len(wl), len(gl)) {
			if wl[i] != gl[i] {
				t.Fatalf("line %d: libpcp %q, ours %q (%d vs %d lines)", i+1, wl[i], gl[i], len(wl), len(gl))
			}
		}
		t.Fatalf("libpcp %d lines, ours %d", len(wl), len(gl))
	}
}
