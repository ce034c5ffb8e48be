package grammar

import (
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar/lalr"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// The syntax tree is release-independent, so every release's grammar file
// must declare the operators' precedence the tree reads from pcp7's.
func TestPrecedenceFromGrammarFiles(t *testing.T) {
	for _, g := range []pcpver.Grammar{pcpver.Grammar60, pcpver.Grammar622, pcpver.Grammar63, pcpver.Grammar71} {
		binary, prefix := operatorPrecedence(lalr.For(g))
		for op, want := range binaryPrec {
			if binary[op] != want {
				t.Errorf("grammar %v: %q has level %d, the tree uses %d", g, op, binary[op], want)
			}
		}
		for op, want := range prefixPrec {
			if prefix[op] != want {
				t.Errorf("grammar %v: prefix %q has level %d, the tree uses %d", g, op, prefix[op], want)
			}
		}
	}
	// The levels themselves, as libpcp's grammar declares them: the
	// ternary loosest, then && and || together, !, comparisons, + -, * /.
	if !(binaryPrec["?"] < binaryPrec["&&"] && binaryPrec["&&"] == binaryPrec["||"] &&
		binaryPrec["||"] < prefixPrec["!"] && prefixPrec["!"] < binaryPrec["<"] &&
		binaryPrec["<"] < binaryPrec["+"] && binaryPrec["+"] == prefixPrec["-"] && binaryPrec["+"] < binaryPrec["*"]) {
		t.Errorf("precedence levels out of libpcp's order: binary %v, prefix %v", binaryPrec, prefixPrec)
	}
}

// Both parsers group every expression the same way: the participle tree
// (sexpr) against the groupings the LALR automaton reduces, over the
// starter table and generated expressions that libpcp 7.2 accepts.
func TestTreeGroupsAsTheLALRParser(t *testing.T) {
	exprs := loadStarterSeeds()
	for _, c := range loadStarter(t) {
		exprs = append(exprs, c.Expr)
	}
	g := exprgen.New(20261126, []string{"sample.long.one", "sample.bin", "kernel.all.load", "disk.dev.read"})
	for range 5000 {
		exprs = append(exprs, g.Next())
	}
	compared := 0
	for _, expr := range exprs {
		want, ok := lalrGrouping(expr, pcpver.Latest)
		if !ok {
			continue
		}
		n, err := ParseExpr(expr, pcpver.Latest)
		if err != nil {
			continue // an action check (units, regexps): TestParseExprAgreesWithLibpcpVerdict
		}
		compared++
		if got := grouping(expr, n); got != want {
			t.Errorf("%q:\n  tree groups %s\n  LALR groups %s", expr, got, want)
		}
	}
	if compared < 3000 {
		t.Fatalf("only %d expressions compared", compared)
	}
}

// grouping prints a tree with every operator's operands in parentheses
// and everything else as its source text.
func grouping(src string, n Node) string {
	switch n := n.(type) {
	case *Binary:
		return "(" + grouping(src, n.L) + " " + n.Op + " " + grouping(src, n.R) + ")"
	case *Unary:
		return "(" + n.Op + grouping(src, n.X) + ")"
	case *Ternary:
		return "(" + grouping(src, n.Cond) + " ? " + grouping(src, n.Then) + " : " + grouping(src, n.Else) + ")"
	case *Paren:
		return grouping(src, n.X)
	}
	sp := n.Span()
	return src[sp.Start:sp.End]
}

// grouped is a grammar symbol's value in lalrGrouping: the value
// libpcp's actions see, the grouping so far and the source it covers
// (start < 0: none, an empty rule).
type grouped struct {
	tok        Token
	text       string
	start, end int
}

// groupingRun prints what the LALR automaton reduces as grouping does for
// the tree; libpcp's own lexer and actions still decide the verdict.
type groupingRun struct {
	run *libpcpRun
	g   lalr.Grammar
	top string // the expression's grouping, once "defn: expr EOS" is reduced
	buf []Token
}

func (r *groupingRun) Next() (int, grouped) {
	sym, t := r.run.Next()
	return sym, grouped{tok: t, text: t.Text(r.run.expr), start: t.Offset(), end: t.End()}
}

func (r *groupingRun) Reduce(rule int, rhs []grouped) (grouped, lalr.Verdict) {
	r.buf = r.buf[:0]
	start, end := -1, -1
	for _, p := range rhs {
		r.buf = append(r.buf, p.tok)
		if p.start >= 0 && p.end > p.start {
			if start < 0 {
				start = p.start
			}
			end = p.end
		}
	}
	tok, verdict := r.run.Reduce(rule, r.buf)
	text := r.g.RuleText(rule)
	lhs, body, _ := strings.Cut(text, ": ")
	syms := strings.Fields(body)
	out := grouped{tok: tok, start: start, end: end}
	switch {
	case text == "defn: expr EOS":
		r.top = rhs[0].text
	case lhs == "expr" && len(syms) == 3 && syms[0] == "expr" && syms[2] == "expr":
		out.text = "(" + rhs[0].text + " " + rhs[1].text + " " + rhs[2].text + ")"
	case lhs == "expr" && len(syms) == 2 && (syms[0] == "MINUS" || syms[0] == "NOT"):
		out.text = "(" + rhs[0].text + rhs[1].text + ")"
	case lhs == "expr" && len(syms) == 5 && syms[1] == "QUEST":
		out.text = "(" + rhs[0].text + " ? " + rhs[2].text + " : " + rhs[4].text + ")"
	case text == "expr: LPAREN expr RPAREN":
		out.text = rhs[1].text // parentheses leave no trace in the tree
	case len(syms) == 1 && rhs[0].start >= 0:
		out.text = rhs[0].text // expr: num, expr: func, expr: NAME, ...
	case start >= 0:
		out.text = r.run.expr[start:end]
	}
	return out, verdict
}

// lalrGrouping parses expr with release v's automaton and returns the
// grouping of its expression, or false when libpcp rejects it.
func lalrGrouping(expr string, v pcpver.Version) (string, bool) {
	var toks tokenIter
	toks.reset(expr, v, false)
	run := &libpcpRun{tables: grammarTables[v.Grammar()], version: v, expr: expr, toks: &toks}
	r := &groupingRun{run: run, g: lalr.For(v.Grammar())}
	var st lalr.Stacks[grouped]
	accepted, err := lalr.Parse[grouped](r.g, r, r, &st)
	if !accepted || err != nil || run.gramErr != "" || run.lexErr != "" {
		return "", false
	}
	return r.top, true
}
