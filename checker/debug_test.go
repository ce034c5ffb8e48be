package checker

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// claimed is what libpcp printed under PCP_DEBUG=derive without the lines
// DeriveDebug and BindDebug leave out: the __dm* traces, pminfo's own
// "Error: NAME: ..." lines, and the line saying the config came from
// $PCP_DERIVED_CONFIG (how the tool was told of it, not what is in it).
func claimed(stderr string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if strings.HasPrefix(l, "__dm") || strings.HasPrefix(l, "Derived metric initialization from ") ||
			(strings.HasPrefix(l, "Error: ") && strings.HasSuffix(l, ": Unknown metric name")) {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// bindConfigs exercise every line BindDebug prints: unknown operands
// (plain, in a ternary, behind a derived metric that failed), a masked
// name, nested derived metrics, semantic errors, a syntax error that
// shifts no index, and option_novalue's mappings (7.1.1+; a bad control
// line before).
var bindConfigs = []string{
	"a = sample.long.one + 1\nb = nosuch.metric * 2\nsample.long.ten = sample.long.one\nc = a + b\nd = sample.long.one + sample.float.one\ne = 1 +\ni = sample.long.one + nosuch.other\nk = sample.long.one > 0 ? sample.long.one : nosuch.x\nm = b\n",
	"#control option_novalue=1\na = sample.long.one + nosuch.metric\nb = nosuch.x\nsample.long.ten = 3\nc = nosuch.y + nosuch.z * sample.long.one\n",
	"x = sample.long.one + sample.bin\ny = sample.string.hullo + 1\nsample.long.one = 2\nz = count(sample.bin) + nosuch.w\nw = x\nsample.long.hundred = y\nu = sample.long.one + nosuch.u\nu2 = nosuch.v + sample.long.one\nu3 = sample.long.one + nosuch.v * sample.long.one\n",
	"p = nosuch.a\nq = p + 1\nr = q\nsample.bin = nosuch.b\ns = rate(sample.long.one) + nosuch.c\n",
	"#control option_novalue=1\nsample.long.ten = 1\nz = sample.long.ten + nosuch.m\nk = sample.long.one > 0 ? sample.long.one : nosuch.x\nd = defined(nosuch.q) ? 1 : 2\nn = nosuch.n\nv = n + z\nk2 = sample.long.one > 0 ? nosuch.x : sample.double.one\nk3 = sample.long.one > 0 ? nosuch.x : nosuch.y\n",
}

// TestBindDebugAcrossReleases: grammar.DeriveDebug then BindDebug print
// the lines each release's libpcp prints under PCP_DEBUG=derive while
// `pminfo -Dderive -d NAMES...` (PCP_DERIVED_CONFIG naming the config)
// loads it and binds every name it registers, 0 differ on every release.
func TestBindDebugAcrossReleases(t *testing.T) {
	src := livePmcd(t)
	configs := map[string]string{}
	for i, conf := range bindConfigs {
		configs[fmt.Sprintf("bind%d.conf", i)] = conf
	}
	grammarConfigs := os.DirFS("../grammar/testdata/config")
	paths, _ := fs.Glob(grammarConfigs, "*.conf")
	for _, p := range paths {
		if b, err := fs.ReadFile(grammarConfigs, p); err == nil {
			configs[p] = string(b)
		}
	}
	if len(paths) == 0 || len(configs) != len(bindConfigs)+len(paths) {
		t.Fatalf("grammar's test configs: %d read of %d", len(configs)-len(bindConfigs), len(paths))
	}
	for _, r := range oracle.ReleasesFor(t) {
		lines, differ := 0, 0
		shipped, err := r.ShippedConfigs()
		if err != nil {
			t.Fatal(err)
		}
		all := maps.Clone(configs)
		for name, b := range shipped {
			all["shipped-"+name] = string(b)
		}
		for _, name := range slices.Sorted(maps.Keys(all)) {
			runs := []string{""}
			if strings.HasPrefix(name, "shipped-") {
				runs = append(runs, "option_novalue=1") // their defined() guards, mapped (7.1.1+)
			}
			for _, env := range runs {
				want, got := bindDebugBoth(t, r, src, name, all[name], env)
				if got != want {
					differ++
					t.Errorf("%s, %s (PCP_DERIVED_CONTROL=%q):\nlibpcp prints:\n%s\nwe print:\n%s", r, name, env, want, got)
				}
				lines += strings.Count(want, "\n")
			}
		}
		t.Logf("%s: %d configs (%d its own shipped ones), %d lines: %d differ", r, len(all), len(shipped), lines, differ)
	}
}

// bindDebugBoth is what release r prints under PCP_DEBUG=derive as pminfo
// -d binds every name conf registers (claimed's lines), and what we print
// for it, with $PCP_DERIVED_CONTROL set to env unless it is "".
func bindDebugBoth(t *testing.T, r oracle.Release, src pmclient.Source, name, conf, env string) (want, got string) {
	t.Helper()
	opts := grammar.Options{Version: r.Version}
	if env != "" {
		r = r.With("PCP_DERIVED_CONTROL=" + env)
		opts.DerivedControl = &env
	}
	f := grammar.ParseConfig(name, []byte(conf), opts)
	var names []string
	for _, d := range f.Definitions.All() {
		if d.Registered {
			names = append(names, d.Name)
		}
	}
	stderr, err := r.DeriveDebug(t.Context(), name, []byte(conf), names)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(t.Context(), []*grammar.File{f}, src, Options{Version: r.Version})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range append(grammar.DeriveDebug([]*grammar.File{f}), rep.BindDebug([]*grammar.File{f})...) {
		b.WriteString(l + "\n")
	}
	return claimed(stderr), b.String()
}
