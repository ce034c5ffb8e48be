package grammar

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestShapesHandCases: a level of parentheses at a time (Shapes), the
// tree and the error of the whole expression's parse, for the forms a
// group meets: filters after groups, prefixes before groups and calls,
// novalue() ending a ternary, matchinst's "!", specs, empty and
// unbalanced parentheses, the bare positions, with the matchinst flag
// up or down, and a second round from the remembered parses.
func TestShapesHandCases(t *testing.T) {
	cases := []string{
		"(a)[i]", "(a)[i][j]", "-(a)[i]", "!-(a+b)[i] * c", "rate(a)[i]", "(rate(a))[i]", "((a)[i])[j]",
		"a ? b : novalue()", "a ? b : novalue() + 1", "a ? b : -novalue()", "a ? b : (novalue())", "a ? b : novalue(type=u32) ? c : d",
		"a ? novalue() : b", "a ? b : novalue()[i]", "-(a ? b : novalue())", "rate(a ? b : novalue())",
		"matchinst(!/x/, a)", "matchinst(!(a), b)", "matchinst(-/x/, a)", "matchinst(/x/, (a))", "matchinst(/x/, -(a))[i]",
		"mkconst(1, type=u32)", "mkconst((1), type=u32)", "mkconst(-1, type=u32)", "mkconst(1, type=(u32))", "mkconst(1, type=-u32)",
		"novalue(type=u32)", "novalue(type=(u32))", "novalue(type=-1)", "novalue(())",
		"()", "(())", "a + ()", "rate()", "avg()", "(a", "a)", "((a)", "(a))", "rate((a)", "rate(a))",
		"avg((a))", "avg(-(a))", "avg(-a)", "count(a[i])", "avg(rate(a))", "avg(a) + (b)", "-avg(a+b)", "-avg(a)",
		"rate(rate(rate(a+b)))", "rate((a))", "rate(-(a))", "rate((a)[i])", "rate(mkconst(1, type=u32))", "rate(novalue())",
		"a + rate(b+c)", "(a + rate(b+c))", "(a + -rate(b+c))", "a * (b + rescale(c, \"KB\"))", "rescale((a), \"KB\")", "rescale(a, (\"KB\"))",
		"a ? (b) : (c)", "(a ? b : c) ? d : novalue()", "a - (b)", "a -(b)", "a (b)", "rate (a)", "a @ (b)", "(a @ b)", "(a) @",
		"delta(a)[i]", "instant((a+b))", "(a)(b)", "a ? b", "(a ? b)", "(a ?) : b", "-", "-(", "!(", "(-)", "a[i](b)",
		"NOVALUE()", "a ? b : NOVALUE()", "Rate(a+b)", "defined(a)", "(defined(a))", "anon(u32)", "(anon(u32)) + 1",
		"a ? b : novalue", "a ? b : novalue (", "a == (b) != (c) && (d) || !(e)", "! ! (a)", "- - (a)", "-!-(a)[i]",
		"matchinst(/x/, a) + (b)", "(matchinst(!/x/, (a)[i]))", "mkconst(1, type=u32, semantics=counter) + (1)",
	}
	for _, flag := range []bool{false, true} {
		for _, v := range []pcpver.Version{pcpver.V5_2_6, pcpver.V6_0_3, pcpver.V6_3_8, pcpver.Latest} {
			shapes := NewShapes()
			for round := 0; round < 2; round++ {
				for _, e := range cases {
					toks := Tokens(e, v, flag)
					want, werr := parseShared(e, toks, nil)
					got, gerr := parseShared(e, Tokens(e, v, flag), shapes)
					if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
						t.Errorf("%q (%v flag %v): shared %s (%v), alone %s (%v)", e, v, flag, Format(got), gerr, Format(want), werr)
					}
				}
			}
		}
	}
}
