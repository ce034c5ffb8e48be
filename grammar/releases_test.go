package grammar

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestSyntaxAcrossReleases: for each proved release, its libpcp and our
// model of it give the same verdict, caret and message for the
// hand-written cases and 5,000 generated expressions that use every
// release's constructs (so older releases are tested on what they reject).
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestSyntaxAcrossReleases(t *testing.T) {
	exprs := loadStarterSeeds()
	for _, c := range loadStarter(t) {
		exprs = append(exprs, c.Expr)
	}
	exprs = testsize.Sample(t, exprs)
	table := len(exprs)
	g := exprgen.New(20261125, []string{"sample.long.one", "sample.bin", "sample.colour", "sample.byte_ctr",
		"kernel.all.load", "sample.string.hullo", "sample.double.one", "disk.dev.read"})
	g.PCP7 = true
	generated := make([]string, 5000)
	for i := range generated {
		generated[i] = g.Next()
	}
	exprs = append(exprs, testsize.Sample(t, generated)...)
	dev := deviations(t)
	for _, r := range oracle.ReleasesFor(t) {
		want, err := r.Register(context.Background(), exprs)
		if err != nil {
			t.Fatal(err)
		}
		accepted, differ := 0, 0
		for i, e := range exprs {
			got := LibpcpVerdict(e, r.Version, false)
			if want[i].OK {
				accepted++
			}
			if got.OK == want[i].OK && (got.OK || (int(got.Caret) == want[i].Caret && got.Message == want[i].Msg)) {
				continue
			}
			if _, ok := dev[e]; ok && got.OK == want[i].OK {
				continue
			}
			differ++
			if differ <= 20 {
				t.Errorf("%s: %q:\n  libpcp: ok=%v caret=%d %q\n  ours:   ok=%v caret=%d %q",
					r, e, want[i].OK, want[i].Caret, want[i].Msg, got.OK, got.Caret, got.Message)
			}
		}
		t.Logf("%s: %d expressions (%d hand-written, %d generated; %d accepted): %d differ", r, len(exprs), table, len(exprs)-table, accepted, differ)
	}
}

// TestConfigMessagesAcrossReleases: every config under testdata/config
// makes us print what each release's libpcp prints loading it.
func TestConfigMessagesAcrossReleases(t *testing.T) {
	files, err := filepath.Glob("testdata/config/*.conf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test configs: %v", err)
	}
	for _, r := range oracle.ReleasesFor(t) {
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			compareConfigMessages(t, r, filepath.Base(path), src)
		}
	}
}

func compareConfigMessages(t *testing.T, r oracle.Release, name string, src []byte) {
	t.Helper()
	want, err := r.ConfigMessages(context.Background(), name, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := pcpLines(ParseConfig(name, src, Options{Version: r.Version})); got != want {
		t.Errorf("%s, %s: libpcp prints:\n%.2000s\nwe print:\n%.2000s", r, name, want, got)
	}
}

// TestDeepNestingAcrossReleases: libpcp's parser stops at bison's stack
// limit (lalr.MaxDepth) with a syntax error; we stop at the same token,
// and deeper input (the 200,000 parentheses of a hostile file) costs us
// no more than the limit.
func TestDeepNestingAcrossReleases(t *testing.T) {
	var conf strings.Builder
	line := func(name, open, mid, close string, n int) {
		fmt.Fprintf(&conf, "%s = %s%s%s\n", name, strings.Repeat(open, n), mid, strings.Repeat(close, n))
	}
	for _, n := range []int{9996, 9997, 200000} {
		line(fmt.Sprintf("paren%d", n), "(", "1", ")", n)
	}
	for _, n := range []int{9997, 9998} {
		line(fmt.Sprintf("neg%d", n), "-", "sample.long.one", "", n)
		line(fmt.Sprintf("not%d", n), "!", "1", "", n)
	}
	for _, n := range []int{4997, 4998, 4999} {
		line(fmt.Sprintf("abs%d", n), "abs(", "sample.long.one", ")", n)
		line(fmt.Sprintf("negparen%d", n), "-(", "1", ")", n)
		line(fmt.Sprintf("ternary%d", n), "1 ? 2 : ", "3", "", n)
	}
	for _, r := range oracle.ReleasesFor(t) {
		compareConfigMessages(t, r, "deep.conf", []byte(conf.String()))
	}
}

// TestNewerConstructNamesItsRelease: a construct the target lacks is
// reported with the release that introduced it.
func TestNewerConstructNamesItsRelease(t *testing.T) {
	for _, tc := range []struct {
		expr   string
		target pcpver.Version
		want   string
	}{
		{"a ? b : novalue()", pcpver.V6_0_3, "novalue() needs PCP 6.2.2 or later (target: PCP 6.0.3)"},
		{"delta(a + 1)", pcpver.V5_2_6, "delta() of an expression needs PCP 6.3.0 or later (target: PCP 5.2.6)"},
		{"mkconst(1, indom=1.2)", pcpver.V6_3_8, "indom= in a spec list needs PCP 7.1.0 or later (target: PCP 6.3.8)"},
		{"mkconst(1, meta=a)", pcpver.V6_0_3, "meta= in a spec list needs PCP 6.2.2 or later"},
	} {
		f := ParseConfig("n.conf", []byte("x = "+tc.expr+"\n"), Options{Version: tc.target})
		if len(f.Diagnostics) != 1 || f.Diagnostics[0].Code != "dialect" || !strings.Contains(f.Diagnostics[0].Message, tc.want) {
			t.Errorf("%s for %s: %+v, want %q", tc.expr, tc.target, f.Diagnostics, tc.want)
		}
	}
}
