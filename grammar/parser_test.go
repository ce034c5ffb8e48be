package grammar

import (
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// sexpr renders a tree with explicit grouping, for precedence tests.
func sexpr(n Node) string {
	switch n := n.(type) {
	case *Metric:
		if n.Inst != nil {
			return n.Name + "[" + n.Inst.Name + "]"
		}
		return n.Name
	case *Number:
		return n.Text
	case *Paren:
		return sexpr(n.X)
	case *Unary:
		return "(" + n.Op + sexpr(n.X) + ")"
	case *Binary:
		return "(" + sexpr(n.L) + " " + n.Op + " " + sexpr(n.R) + ")"
	case *Ternary:
		return "(" + sexpr(n.Cond) + " ? " + sexpr(n.Then) + " : " + sexpr(n.Else) + ")"
	case *Call:
		return n.Func + "(" + sexpr(n.Arg) + ")"
	case *Rescale:
		return "rescale(" + sexpr(n.X) + ", \"" + n.Units + "\")"
	case *Matchinst:
		inv := ""
		if n.Invert {
			inv = "!"
		}
		return "matchinst(" + inv + "/" + n.Pattern + "/, " + sexpr(n.X) + ")"
	case *Filter:
		return "(" + sexpr(n.X) + ")[" + n.Inst.Name + "]"
	case *Mkconst:
		var specs []string
		for _, s := range n.Specs {
			specs = append(specs, s.Key+"="+s.Value)
		}
		return "mkconst(" + n.Value.Text + ", " + strings.Join(specs, ", ") + ")"
	case *Novalue:
		var specs []string
		for _, s := range n.Specs {
			specs = append(specs, s.Key+"="+s.Value)
		}
		return "novalue(" + strings.Join(specs, ", ") + ")"
	}
	return "?"
}

// The groupings below are libpcp 6.0.3's, confirmed with its parse-tree
// dumps; note where they differ from C and the man page.
func TestPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a ? b : c ? d : e", "((a ? b : c) ? d : e)"},
		{"a ? b ? c : d : e", "(a ? (b ? c : d) : e)"},
		{"a && b ? c : d", "((a && b) ? c : d)"},
		{"a ? b : c || d", "(a ? b : (c || d))"},
		{"a || b && c", "((a || b) && c)"},
		{"a>=b||b>c&&d!=e||f>g", "((((a >= b) || (b > c)) && (d != e)) || (f > g))"},
		{"!a && b", "((!a) && b)"},
		{"!a < b", "(!(a < b))"},
		{"!a + b", "(!(a + b))"},
		{"!a*b", "(!(a * b))"},
		{"!a>b||c<d", "((!(a > b)) || (c < d))"},
		{"a < b < c", "((a < b) < c)"},
		{"a > b != c", "((a > b) != c)"},
		{"-a * b", "(-(a * b))"},
		{"-a / b", "(-(a / b))"},
		{"-a + b", "((-a) + b)"},
		{"-a < b", "((-a) < b)"},
		{"a * -b", "(a * (-b))"},
		{"a * -b * c", "(a * (-(b * c)))"},
		{"a - -b", "(a - (-b))"},
		{"- - a", "(-(-a))"},
		{"-!a", "(-(!a))"},
		{"!-a", "(!(-a))"},
		{"a * b / c * d", "(((a * b) / c) * d)"},
		{"(a + b) * c", "((a + b) * c)"},
		{"sample.bin [bin-100]", "sample.bin[bin-100]"},
		{`a[x\]y\\z]`, `a[x]y\z]`},
		{"(a + b)[x]", "((a + b))[x]"},
		{"matchinst(! /a\\/b/, x + 1)", "matchinst(!/a/b/, (x + 1))"},
		{`rescale(a * 2, "Kbyte/sec")`, `rescale((a * 2), "Kbyte/sec")`},
		{"mkconst(1.5, type=double, units=\"byte\")", "mkconst(1.5, type=double, units=byte)"},
		{"a ? novalue() : b", "(a ? novalue() : b)"},
		{"delta(a + b)", "delta((a + b))"},
		{"sum(x) - avg(y)", "(sum(x) - avg(y))"},
	}
	for _, tt := range tests {
		n, err := ParseExpr(tt.in, pcpver.Latest)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := sexpr(n); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// The syntax tree accepts exactly what libpcp 7.2 accepts, apart from the
// checks libpcp makes in rule actions (units, spec values, regexps), which
// are the checker's job. (pcp6 is pcp7 minus constructs the dialect check
// reports, so the tree is built with the pcp7 grammar in both dialects.)
func TestParseExprAgreesWithLibpcpVerdict(t *testing.T) {
	actionChecks := []string{"Illegal units", "Unrecognized value", "Incompatible floating", "bad regular expression", "Illegal indom"}
	for _, c := range loadStarter(t) {
		_, err := ParseExpr(c.Expr, pcpver.Latest)
		v := LibpcpVerdict(c.Expr, pcpver.Latest, false)
		if slices.ContainsFunc(actionChecks, func(p string) bool { return strings.HasPrefix(v.Message, p) }) {
			continue
		}
		if v.OK != (err == nil) {
			t.Errorf("%q: libpcp verdict ok=%v, participle err=%v", c.Expr, v.OK, err)
		}
	}
}

func goldenPath(name string) string { return filepath.Join("testdata", name+".golden") }

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.File(t, goldenPath(name), got)
}

// Format keeps the tree and is idempotent, for every expression we have.
func TestFormatRoundTrip(t *testing.T) {
	exprs := loadStarterSeeds()
	for _, c := range loadStarter(t) {
		exprs = append(exprs, c.Expr)
	}
	n := 0
	for _, e := range exprs {
		root, err := ParseExpr(e, pcpver.Latest)
		if err != nil {
			continue
		}
		n++
		f1 := Format(root)
		root2, err := ParseExpr(f1, pcpver.Latest)
		if err != nil {
			t.Errorf("%q formats to %q, which does not parse: %v", e, f1, err)
			continue
		}
		if sexpr(root) != sexpr(root2) {
			t.Errorf("%q formats to %q: tree %s became %s", e, f1, sexpr(root), sexpr(root2))
		}
		if f2 := Format(root2); f2 != f1 {
			t.Errorf("not idempotent: %q -> %q -> %q", e, f1, f2)
		}
		if LibpcpVerdict(e, pcpver.Latest, false).OK != LibpcpVerdict(f1, pcpver.Latest, false).OK {
			t.Errorf("%q and its format %q get different libpcp verdicts", e, f1)
		}
	}
	if n < 300 {
		t.Errorf("only %d expressions parsed", n)
	}
}

func TestLibpcpRendering(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sample.byte_ctr * sample.kbyte_ctr", "sample.byte_ctr * sample.kbyte_ctr"},
		{"-sample.string.hullo", "- sample.string.hullo"},
		{"1.5 + sample.string.hullo", "1.5 + sample.string.hullo"},
		{"sample.bin[bin-100] + sample.colour", "<expr> + sample.colour"},
		{"(sample.bin) + 1", "sample.bin + 1"},
		{"mkconst(5, units=\"byte\") + 3", "5 + 3"},
		{"rate(sample.byte_rate)", "RATE(sample.byte_rate)"},
		{"delta(sample.bin + 1)", "DELTA((null))"},
		{"sample.bin ? 1 : 2", "sample.bin ? 1 : 2"},
		{"(1 + 2) ? sample.ulong.hundred : sample.ulong.ten", "<expr> ? sample.ulong.hundred : sample.ulong.ten"},
	}
	for _, tt := range tests {
		root, err := ParseExpr(tt.in, pcpver.Latest)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if got := LibpcpRendering(root); got != tt.want {
			t.Errorf("%q renders %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestParseExprDepthBound: the recursive tree parse refuses what is nested
// past libpcp's parser limit, at the token where it passes it, instead of
// recursing without bound (200,000 levels overflowed the Go stack), and
// still builds trees up to the limit. A left-associative chain has no
// parser limit, but past MaxTreeDepth it is refused too (libpcp crashes on
// it; TestTooDeepCrashesLibpcp in the checker): before 800,000 operators
// took 1 GB and 90 s of garbage collection scanning a stack as deep.
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestParseExprDepthBound(t *testing.T) {
	cases := []struct {
		name      string
		expr      string
		wantDeep  bool
		wantChain int  // the TooDeepError's depth, 0 for none
		afterTree bool // refused by the tree's depth, not the tokens'
	}{
		{"parens at the limit", strings.Repeat("(", 9996) + "1" + strings.Repeat(")", 9996), false, 0, false},
		{"hostile parens", strings.Repeat("(", 200000) + "1" + strings.Repeat(")", 200000), true, 0, false},
		{"hostile prefix", strings.Repeat("-", 200000) + "1", true, 0, false},
		{"hostile ternary chain", strings.Repeat("1 ? 2 : ", 20000) + "3", true, 0, false},
		{"long chain under the limit", strings.Repeat("-1 + ", 20000) + "1", false, 0, false},
		{"chain at the limit", strings.Repeat("1 + ", MaxTreeDepth) + "1", false, 0, false},
		{"chain past the limit", strings.Repeat("1 + ", MaxTreeDepth+1) + "1", false, MaxTreeDepth + 1, false},
		{"hostile chain", strings.Repeat("a.b * ", 800000) + "1", false, 800000, false},
		{"chain of mixed operators", strings.Repeat("a.b * 2 - ", 30000) + "1", false, 30000, false},
		{"deep through a function", "rate(" + strings.Repeat("1 + ", MaxTreeDepth) + "1)", false, MaxTreeDepth + 1, true},
		{"wide in parentheses", strings.Repeat("(1 + 2 + 3) * ", 20000) + "1", false, 0, false},
	}
	for _, tc := range testsize.Sample(t, cases) {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			tree, err := ParseExpr(tc.expr, pcpver.Latest)
			runtime.ReadMemStats(&after)
			var serr *SyntaxError
			deep := errors.As(err, &serr) && strings.Contains(serr.Msg, "nested more than")
			if deep != tc.wantDeep {
				t.Fatalf("nested too deep = %v (err %v), want %v", deep, err, tc.wantDeep)
			}
			if deep && (serr.Offset <= 0 || serr.Offset >= len(tc.expr)) {
				t.Errorf("offset %d outside the expression", serr.Offset)
			}
			var chain *TooDeepError
			switch {
			case errors.As(err, &chain):
				if chain.Depth != tc.wantChain {
					t.Errorf("refused as %d deep, want %d", chain.Depth, tc.wantChain)
				}
				// Refused from the tokens, before participle's parse:
				// about 60 bytes a byte of text today, 1 KB before.
				if alloc := after.TotalAlloc - before.TotalAlloc; !tc.afterTree && alloc > 200*uint64(len(tc.expr)) {
					t.Errorf("refusing %d bytes allocated %d MB", len(tc.expr), alloc>>20)
				}
			case tc.wantChain != 0:
				t.Errorf("err %v, want a TooDeepError", err)
			case !deep && err != nil:
				t.Errorf("unexpected error: %v", err)
			case !deep && Depth(tree) > MaxTreeDepth:
				t.Errorf("built a tree %d deep", Depth(tree))
			}
		})
	}
}

// TestChainDepthBoundsDepth: the depth read from the tokens is never more
// than the tree's (it refuses only what the tree would), over the starter
// table and generated expressions; and libpcp's precedence levels fit its
// array.
func TestChainDepthBoundsDepth(t *testing.T) {
	for op, p := range binaryPrec {
		if p < 0 || p >= 8 {
			t.Fatalf("operator %s has precedence %d: chainDepth's runs hold 0..7", op, p)
		}
	}
	exprs := loadStarterSeeds()
	for _, c := range loadStarter(t) {
		exprs = append(exprs, c.Expr)
	}
	g := exprgen.New(20261126, []string{"sample.long.one", "sample.bin", "kernel.all.load"})
	for range 5000 {
		exprs = append(exprs, g.Next())
	}
	exprs = append(exprs, "a - -b - c * d * e", "-a * b * c + d", "a * -b * c * d", "a < b + c + d", "a ? b + c + d : e + f", "0*0*0*!0*0", "a && b && !c * d && e")
	compared, exact := 0, 0
	for _, expr := range exprs {
		toks := Tokens(expr, pcpver.Latest, false)
		tree, err := parseTokens(expr, toks)
		if err != nil {
			continue
		}
		compared++
		bound, depth := chainDepth(expr, toks), Depth(tree)
		if bound > depth {
			t.Errorf("%q: chainDepth %d > Depth %d", expr, bound, depth)
		}
		if bound == depth {
			exact++
		}
	}
	if compared < 3000 {
		t.Fatalf("only %d expressions compared", compared)
	}
	t.Logf("%d expressions: the bound is the depth for %d", compared, exact)
}

// TestSpansCoverTheirText: every node's span is exactly its own text,
// including the name inside the functions that take only a name (their
// span was once the "sum(" token's).
func TestSpansCoverTheirText(t *testing.T) {
	cases := map[string][]string{
		"sum(sample.bin) / count( sample.bin )": {"sum(sample.bin) / count( sample.bin )", "sum(sample.bin)", "sample.bin", "count( sample.bin )", "sample.bin"},
		"defined(foo.bar) ? avg(a.b) : 1":       {"defined(foo.bar) ? avg(a.b) : 1", "defined(foo.bar)", "foo.bar", "avg(a.b)", "a.b", "1"},
	}
	for expr, want := range cases {
		for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
			n, err := ParseExpr(expr, v)
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			var got []string
			Walk(n, func(x Node) bool {
				s := x.Span()
				got = append(got, expr[s.Start:s.End])
				return true
			})
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s (PCP %s): node texts %q, want %q", expr, v, got, want)
			}
		}
	}
}

// TestLongChainVerdict: libpcp's parser takes a left-associative chain of
// any length (its stack stays shallow; pminfo then crashes binding it,
// which the checker reports), so the verdict accepts one of 1,100,000
// terms: a bound on the driver's total steps once made it a syntax
// error, "lalr: parse did not terminate", that libpcp never prints.
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestLongChainVerdict(t *testing.T) {
	for _, terms := range []int{1100000} {
		expr := strings.Repeat("sample.long.one + ", terms-1) + "sample.long.one"
		for _, v := range testsize.Sample(t, pcpver.Proved()) {
			if got := LibpcpVerdict(expr, v, false); !got.OK {
				t.Errorf("%s: a chain of %d terms: rejected at %d with %q, libpcp accepts it", v, terms, got.Caret, got.Message)
			}
		}
		var deep *TooDeepError
		if _, err := ParseExpr(expr, pcpver.V6_0_3); !errors.As(err, &deep) || deep.Depth != terms-1 {
			t.Errorf("a chain of %d terms: tree parse error %v, want a TooDeepError of %d", terms, err, terms-1)
		}
	}
}
