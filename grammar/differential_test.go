package grammar

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// libpcpVerdicts registers every expression with this machine's libpcp.
func libpcpVerdicts(t *testing.T, exprs []string) []Verdict {
	t.Helper()
	requirePCP(t)
	answers, err := oracle.Host().Register(context.Background(), exprs)
	if err != nil {
		t.Fatalf("registering with libpcp (run scripts/pcp-testenv.sh): %v", err)
	}
	verdicts := make([]Verdict, len(answers))
	for i, a := range answers {
		verdicts[i] = Verdict{OK: a.OK, Caret: int32(a.Caret), Message: a.Msg}
	}
	return verdicts
}

// deviations are expressions where we knowingly differ from libpcp 6.0.3,
// with the reason (testdata/syntax-deviations.txt: "expr<TAB>reason").
func deviations(t *testing.T) map[string]string {
	b, err := os.ReadFile("testdata/syntax-deviations.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		expr, reason, ok := strings.Cut(l, "\t")
		if !ok || reason == "" {
			t.Fatalf("syntax-deviations.txt: %q has no reason", l)
		}
		m[expr] = reason
	}
	return m
}

func compareWithLibpcp(t *testing.T, exprs []string) {
	t.Helper()
	want := libpcpVerdicts(t, exprs)
	dev := deviations(t)
	accepted, differ := 0, 0
	for i, e := range exprs {
		got := LibpcpVerdict(e, pcpver.V6_0_3, false)
		if want[i].OK {
			accepted++
		}
		if got.OK == want[i].OK && (got.OK || (got.Caret == want[i].Caret && got.Message == want[i].Message)) {
			continue
		}
		if _, ok := dev[e]; ok && got.OK == want[i].OK {
			continue // caret or message deviation, listed with its reason
		}
		differ++
		t.Errorf("%q:\n  libpcp: ok=%v caret=%d %q\n  ours:   ok=%v caret=%d %q",
			e, want[i].OK, want[i].Caret, want[i].Message, got.OK, got.Caret, got.Message)
	}
	t.Logf("%d expressions (%d accepted by libpcp), %d differ", len(exprs), accepted, differ)
}

// TestSyntaxAgainstLibpcpTable: the hand-written cases and the starter set.
func TestSyntaxAgainstLibpcpTable(t *testing.T) {
	exprs := loadStarterSeeds()
	for _, c := range loadStarter(t) {
		exprs = append(exprs, c.Expr)
	}
	if len(exprs) < 700 {
		t.Fatalf("only %d table cases", len(exprs))
	}
	compareWithLibpcp(t, exprs)
}

// TestSyntaxAgainstLibpcpGenerated: 10,000 generated expressions, a fifth
// of them deliberately broken, from a fixed seed.
func TestSyntaxAgainstLibpcpGenerated(t *testing.T) {
	g := exprgen.New(20261122, []string{"sample.long.one", "sample.bin", "sample.colour", "sample.byte_ctr",
		"kernel.all.load", "sample.string.hullo", "sample.double.one", "disk.dev.read"})
	exprs := make([]string, 10000)
	for i := range exprs {
		exprs[i] = g.Next()
	}
	compareWithLibpcp(t, exprs)
}
