package oracle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestReleasesAnswer pins facts of each release that the version model
// rests on, so that a broken chroot or a wrong release shows here first.
func TestReleasesAnswer(t *testing.T) {
	ctx := context.Background()
	for _, r := range ReleasesFor(t) {
		out, err := r.command(ctx, "pminfo", "--version").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "version "+r.Version.String()) {
			t.Errorf("%s: pminfo --version says %q (%v)", r, out, err)
		}
		v, err := r.Register(ctx, []string{"sample.long.one ? novalue() : 2", "delta(sample.long.one + 1)", "1 +", "sample.long.one"})
		if err != nil {
			t.Fatal(err)
		}
		if v[0].OK != r.Version.Has(pcpver.Novalue) {
			t.Errorf("%s: novalue() registered %v", r, v[0].OK)
		}
		if v[1].OK != r.Version.Has(pcpver.DeltaOfExpr) {
			t.Errorf("%s: delta of an expression registered %v", r, v[1].OK)
		}
		if v[2].OK || v[2].Caret != 2 || v[2].Msg == "" || !v[3].OK {
			t.Errorf("%s: %+v", r, v[2:])
		}
		desc, _, err := r.Describe(ctx, "x.delta = delta(sample.ulong.hundred)\nx.gone = no.such.metric + 1\n", []string{"x.delta", "x.gone"})
		if err != nil {
			t.Fatal(err)
		}
		wantType := "64-bit int"
		if !r.Version.Has(pcpver.DeltaSigned) {
			wantType = "32-bit unsigned int"
		}
		if !strings.Contains(desc["x.delta"], "Data Type: "+wantType+" ") {
			t.Errorf("%s: delta(U32) is %q, want %s", r, desc["x.delta"], wantType)
		}
		wantGone := "absent"
		if r.Version.Has(pcpver.UnknownOperandReported) {
			wantGone = "semantic: operand no.such.metric: Unknown operand metric"
		}
		if desc["x.gone"] != wantGone {
			t.Errorf("%s: an unknown operand gives %q, want %q", r, desc["x.gone"], wantGone)
		}
		vals, hung, err := r.Values(ctx, "x.one = sample.long.one + 1\n", []string{"x.one"})
		if err != nil || hung != 0 || !strings.Contains(vals, "value 2") {
			t.Errorf("%s: values %q, hung %d, %v", r, vals, hung, err)
		}
		if cs, err := r.ShippedConfigs(); err != nil || len(cs) == 0 {
			t.Errorf("%s: shipped configs: %d, %v", r, len(cs), err)
		}
	}
}

// TestCtypesArchiveAsPython: archive_ctypes.py, which answers for the
// releases without python3-pcp, prints what archive.py prints through
// each Debian release's python3-pcp, replaying and interpolating an
// archive (5.2.6 reads only version 2 archives, so it is left out).
func TestCtypesArchiveAsPython(t *testing.T) {
	ctx := context.Background()
	archive, err := filepath.Abs("../../explain/testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(archive + ".conf")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"g.avg", "g.novalues", "g.nomatch", "g.rate", "g.delta", "g.filter", "g.scale",
		"sample.bin", "sample.string.hullo", "sample.double.one", "sample.ulonglong.ten", "sample.float.one", "no.such.metric"}
	// Four records a second apart from 2026-11-25 10:12:46.260349 UTC.
	window := []string{"1795601566", "260349300", "0", "400000000", "12"}
	checked := 0
	for _, r := range ReleasesFor(t) {
		if !r.HasPython() || r.Version == pcpver.V5_2_6 {
			continue
		}
		for _, mode := range []string{"replay", "interp"} {
			args := window
			if mode == "replay" {
				args = nil
			}
			want, err := r.runArchiveScript(ctx, archiveScript, mode, archive, string(config), args, names)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.runArchiveScript(ctx, archiveCtypesScript, mode, archive, string(config), args, names)
			if err != nil {
				t.Fatal(err)
			}
			if got != want || strings.Count(want, "\nT ") < 3 {
				t.Errorf("%s, %s: archive.py prints:\n%.1500s\narchive_ctypes.py prints:\n%.1500s", r, mode, want, got)
			}
			checked++
		}
	}
	if checked != 6 {
		t.Errorf("compared %d runs, want 6 (three releases, two modes)", checked)
	}
}
