package grammar

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestShapesShareAcrossAtoms: expressions that differ only inside their
// atoms (prefix operators, a filter, a name, a number or a call of one)
// share their participle parses (the first of a group makes them, the
// others add none), and each gets its own tree, equal to the tree parsed
// alone.
func TestShapesShareAcrossAtoms(t *testing.T) {
	for _, group := range [][]string{
		{"a.b + c.d", "-x.y[i] + 3", "rate(q.r) + !!avg(s.t)", "1.5 * x"},
		{"(a) [i] * -rate(b[x]) ? c : mkconst(1, units=\"count\")", "(-b.c) [j] / d ? avg(e) : mkconst(2.5, units=\"Kbyte\")"},
		{"rescale(delta(a.b), \"Kbyte/sec\") < 7", "rescale(-x[y], \"count\") <= rate(y)"},
		{"matchinst(!/a.*/, x.y) && !(a - b)", "matchinst(!/z/, -3) || !(count(q) * k.l[k])"},
	} {
		shapes := NewShapes()
		made := 0
		for i, expr := range group {
			toks := Tokens(expr, pcpver.Latest, false)
			got, err := parseShared(expr, toks, shapes)
			if err != nil {
				t.Fatalf("%q: %v", expr, err)
			}
			want, err := ParseExpr(expr, pcpver.Latest)
			if err != nil {
				t.Fatalf("%q alone: %v", expr, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q through a shared parse:\n got %s\nwant %s", expr, Format(got), Format(want))
			}
			if i == 0 {
				made = len(shapes.m)
			} else if len(shapes.m) != made {
				t.Errorf("%q: %d parses remembered after it, want the %d of %q", expr, len(shapes.m), made, group[0])
			}
		}
	}
}

// TestShapesShareAcrossLevels: a parenthesised expression or a call is
// one atom to the level around it (tokenStream.groups), so expressions
// that differ in what their groups hold share that level's parse, and
// groups of the same shape share theirs, however deep. Each gets the
// tree it gets alone; so does one participle refuses in a group.
func TestShapesShareAcrossLevels(t *testing.T) {
	for _, c := range []struct {
		first  string
		others []string
		made   int // parses the first makes
	}{
		// "A o A": the top and the insides of the group and the call.
		{"(a + b) * rate(c - d)", []string{"(x / y) - rate(q + r[i])", "-(x && y)[i] > !delta(q.r * 2)"}, 2},
		// Parentheses inside parentheses: a level each, of one shape
		// ("A o A"), and a lone atom's ("A").
		{"((a + b) * (c)) / 2", []string{"((x - 1) / (y * z)) + ((w) - v)", "((a) - (b))[i] < 1"}, 2},
		// "A ? A : A", and rescale's, mkconst's and novalue's own.
		{"rescale(a + b, \"count\") ? mkconst(1, units=\"count\") : novalue(type=u32)",
			[]string{"rescale(-a * rate(b[i]), \"Kbyte\") ? mkconst(7.5, units=\"Mbyte\") : novalue(type=double)"}, 4},
		// instant(-a) is an atom of its own (tokenStream.callAtomEnd):
		// instant(-(a * 2)) is a level, "FE ( A )".
		{"matchinst(!/x/, a - b) || instant(-(a * 2)) + instant(-a)", []string{"matchinst(!/y.*/, (a + 1) - (b + c)) && instant(-(x / y)) - q"}, 4},
	} {
		shapes := NewShapes()
		for i, expr := range append([]string{c.first}, c.others...) {
			got, err := parseShared(expr, Tokens(expr, pcpver.Latest, false), shapes)
			if err != nil {
				t.Fatalf("%q: %v", expr, err)
			}
			if want, _ := ParseExpr(expr, pcpver.Latest); !reflect.DeepEqual(got, want) {
				t.Errorf("%q through shared levels:\n got %s\nwant %s", expr, Format(got), Format(want))
			}
			if i == 0 && len(shapes.m) != c.made {
				t.Errorf("%q: %d parses made, want %d (a level each)", expr, len(shapes.m), c.made)
			}
		}
		if len(shapes.m) != c.made {
			t.Errorf("%q: %d parses remembered, want the %d of the first", c.others, len(shapes.m), c.made)
		}
	}
	// Refused inside a group: the error is the whole expression's, as
	// participle gives it without groups.
	shapes := NewShapes()
	for _, expr := range []string{"a + (b * )", "(a) + rate((b)[i] +)", "x * mkconst(1, units=(2))", "(a + b", "rate(a)[i]", "-()"} {
		_, got := parseShared(expr, Tokens(expr, pcpver.Latest, false), shapes)
		_, want := ParseExpr(expr, pcpver.Latest)
		if got == nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: error %v through shared levels, %v alone", expr, got, want)
		}
	}
}

// TestShapesGeneratedCorpus: through one Shapes, each of thousands of
// generated expressions (valid and broken, both release families) gets
// the tree, or the error, it gets alone, and the parses are shared.
func TestShapesGeneratedCorpus(t *testing.T) {
	metrics := []string{"sample.long.one", "kernel.all.load", "disk.dev.read", "hinv.ncpu", "no.such.metric"}
	n := 20000
	if testing.Short() {
		n = 4000
	}
	for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
		g := exprgen.New(18, metrics)
		g.PCP7 = v == pcpver.Latest
		shapes := NewShapes()
		for range n {
			expr := g.Next()
			got, gerr := parseShared(expr, Tokens(expr, v, false), shapes)
			want, werr := ParseExpr(expr, v)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (%v) through shared parses: %s (%v), alone: %s (%v)", expr, v, Format(got), gerr, Format(want), werr)
			}
		}
		// A level of parentheses at a time (tokenStream.groups), the
		// expressions share far more: 972 parses of 20,000, where by
		// whole expressions they filled the cache (4,096).
		if len(shapes.m) == 0 || len(shapes.m) >= n/10 {
			t.Errorf("%v: %d parses remembered for %d expressions", v, len(shapes.m), n)
		}
	}
}
