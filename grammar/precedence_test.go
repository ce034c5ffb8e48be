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

// grouped is a grammar symbol's value in lalrGrouping: the grouping so
// far and the source it covers (start < 0: none, an empty rule).
type grouped struct {
	text       string
	start, end int
}

// groupingReducer prints what the LALR automaton reduces as grouping does
// for the tree; libpcp's own actions still decide the verdict.
type groupingReducer struct {
	run *libpcpRun
}

func (r groupingReducer) Reduce(rule int, rhs []any) (any, lalr.Verdict) {
	_, verdict := r.run.Reduce(rule, rhs)
	parts := make([]grouped, len(rhs))
	start, end := -1, -1
	for i, v := range rhs {
		switch v := v.(type) {
		case Token:
			parts[i] = grouped{text: v.Text, start: v.Offset, end: v.End}
		case grouped:
			parts[i] = v
		default:
			parts[i] = grouped{start: -1}
		}
		if parts[i].start >= 0 {
			if start < 0 {
				start = parts[i].start
			}
			end = parts[i].end
		}
	}
	text := r.run.grammar.RuleText(rule)
	lhs, body, _ := strings.Cut(text, ": ")
	syms := strings.Fields(body)
	out := grouped{start: start, end: end}
	switch {
	case lhs == "expr" && len(syms) == 3 && syms[0] == "expr" && syms[2] == "expr":
		out.text = "(" + parts[0].text + " " + parts[1].text + " " + parts[2].text + ")"
	case lhs == "expr" && len(syms) == 2 && (syms[0] == "MINUS" || syms[0] == "NOT"):
		out.text = "(" + parts[0].text + parts[1].text + ")"
	case lhs == "expr" && len(syms) == 5 && syms[1] == "QUEST":
		out.text = "(" + parts[0].text + " ? " + parts[2].text + " : " + parts[4].text + ")"
	case text == "expr: LPAREN expr RPAREN":
		out.text = parts[1].text // parentheses leave no trace in the tree
	case len(syms) == 1 && parts[0].start >= 0:
		out.text = parts[0].text // expr: num, expr: func, expr: NAME, ...
	case start >= 0:
		out.text = r.run.expr[start:end]
	}
	return out, verdict
}

// lalrGrouping parses expr with release v's automaton and returns the
// grouping of its expression, or false when libpcp rejects it.
func lalrGrouping(expr string, v pcpver.Version) (string, bool) {
	g := lalr.For(v.Grammar())
	run := &libpcpRun{grammar: g, version: v, expr: expr, toks: Tokens(expr, v, false)}
	var top string
	red := topReducer{groupingReducer{run}, &top}
	accepted, err := g.Parse(run, red)
	if !accepted || err != nil || run.gramErr != "" || run.lexErr != "" {
		return "", false
	}
	return top, true
}

// topReducer keeps the expression's grouping when the definition is
// reduced ("defn: expr EOS").
type topReducer struct {
	groupingReducer
	top *string
}

func (r topReducer) Reduce(rule int, rhs []any) (any, lalr.Verdict) {
	if r.run.grammar.RuleText(rule) == "defn: expr EOS" {
		if e, ok := rhs[0].(grouped); ok {
			*r.top = e.text
		}
	}
	return r.groupingReducer.Reduce(rule, rhs)
}
