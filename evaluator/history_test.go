package evaluator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// TestHistoryAcrossTernaryAndDefined: libpcp evaluates a ternary's
// branches even when its guard has no values, so delta() in a branch has
// its history at the next record (the shipped iostat.conf's await
// metrics rely on it); and delta() or rate() of defined() never has a
// value (defined() keeps no previous value). Every record of an archive
// evaluates as each release's libpcp evaluates it.
func TestHistoryAcrossTernaryAndDefined(t *testing.T) {
	requirePCP(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cfg"), []byte("log mandatory on default { sample.seconds sample.long.bin_ctr sample.bin sample.long.one }\n"), 0o644)
	rec := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "200msec", "-s", "4", "-V2", "h")
	rec.Dir = dir
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("pmlogger: %v\n%s", err, out)
	}
	base := filepath.Join(dir, "h")
	ctx := context.Background()
	for _, r := range oracle.ReleasesFor(t) {
		config := "h.guard = delta(sample.seconds) > 1000000 ? delta(sample.seconds) : delta(sample.seconds) * 2\n" +
			"h.inst = delta(sample.long.bin_ctr) > 1000000 ? delta(sample.long.bin_ctr) : delta(sample.long.bin_ctr) * sample.long.one\n"
		names := []string{"h.guard", "h.inst"}
		if r.Version.Has(pcpver.DeltaOfExpr) {
			config += "h.defined = delta(defined(sample.bin)) + delta(defined(sample.bin) + 1)\n" +
				"h.plus = delta(defined(sample.bin) + 1)\n"
			names = append(names, "h.defined", "h.plus")
		}
		want, err := r.ReplayArchive(ctx, base, config, names)
		if err != nil {
			t.Fatal(err)
		}
		a, err := archive.Open(base)
		if err != nil {
			t.Fatal(err)
		}
		f := grammar.ParseConfig("h.conf", []byte(config), grammar.Options{Version: r.Version})
		rep, err := checker.Check(ctx, []*grammar.File{f}, a, checker.Options{Version: r.Version})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := New(ctx, a, rep)
		if err != nil {
			t.Fatal(err)
		}
		ours, _ := replayAll(ctx, t, ev)
		for _, n := range names {
			if !strings.Contains(want, "\n"+n+" ") {
				t.Fatalf("%s: libpcp did not evaluate %s:\n%s", r, n, want)
			}
		}
		wantLines, gotLines := strings.Split(want, "\n"), strings.Split(ours, "\n")
		if len(wantLines) != len(gotLines) {
			t.Fatalf("%s: libpcp printed\n%s\nwe printed\n%s", r, want, ours)
		}
		for i := range wantLines {
			if !oracle.SameValues(wantLines[i], gotLines[i]) {
				t.Errorf("%s: line %d: libpcp %q, ours %q", r, i+1, wantLines[i], gotLines[i])
			}
		}
	}
}
