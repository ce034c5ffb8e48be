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
// share one participle parse, and each gets its own tree, equal to the
// tree parsed alone.
func TestShapesShareAcrossAtoms(t *testing.T) {
	for _, group := range [][]string{
		{"a.b + c.d", "-x.y[i] + 3", "rate(q.r) + !!avg(s.t)", "1.5 * x"},
		{"(a) [i] * -rate(b[x]) ? c : mkconst(1, units=\"count\")", "(-b.c) [j] / d ? avg(e) : mkconst(2.5, units=\"Kbyte\")"},
		{"rescale(delta(a.b), \"Kbyte/sec\") < 7", "rescale(-x[y], \"count\") <= rate(y)"},
		{"matchinst(!/a.*/, x.y) && !(a - b)", "matchinst(!/z/, -3) || !(count(q) * k.l[k])"},
	} {
		shapes := NewShapes()
		for _, expr := range group {
			toks := Tokens(expr, pcpver.Latest, false)
			got, err := parseShared(toks, shapes)
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
		}
		if len(shapes.m) != 1 {
			t.Errorf("%q: %d parses remembered, want the one they share", group, len(shapes.m))
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
			got, gerr := parseShared(Tokens(expr, v, false), shapes)
			want, werr := ParseExpr(expr, v)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q (%v) through shared parses: %s (%v), alone: %s (%v)", expr, v, Format(got), gerr, Format(want), werr)
			}
		}
		if len(shapes.m) == 0 || len(shapes.m) >= n/2 {
			t.Errorf("%v: %d parses remembered for %d expressions", v, len(shapes.m), n)
		}
	}
}
