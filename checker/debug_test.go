package checker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// claimed is what libpcp printed under PCP_DEBUG=derive without the lines
// DeriveDebug and BindDebug leave out: the __dm* traces, pminfo's own
// "Error: NAME: ..." lines, and the line saying the config came from
// $PCP_DERIVED_CONFIG (how the tool was told of it, not what is in it).
func claimed(stderr string) string {
	var b strings.Builder
	for _, l := range strings.Split(stderr, "\n") {
		if l == "" || strings.HasPrefix(l, "__dm") || strings.HasPrefix(l, "Derived metric initialization from ") ||
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
	for _, r := range oracle.ReleasesFor(t) {
		lines, differ := 0, 0
		for i, conf := range bindConfigs {
			name := fmt.Sprintf("bind%d.conf", i)
			f := grammar.ParseConfig(name, []byte(conf), grammar.Options{Version: r.Version})
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
			want := claimed(stderr)
			rep, err := Check(t.Context(), []*grammar.File{f}, src, Options{Version: r.Version})
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, l := range append(grammar.DeriveDebug([]*grammar.File{f}), rep.BindDebug([]*grammar.File{f})...) {
				got.WriteString(l + "\n")
			}
			if got.String() != want {
				differ++
				t.Errorf("%s, %s:\nlibpcp prints:\n%s\nwe print:\n%s", r, name, want, got.String())
			}
			lines += strings.Count(want, "\n")
		}
		t.Logf("%s: %d configs, %d lines: %d differ", r, len(bindConfigs), lines, differ)
	}
}
