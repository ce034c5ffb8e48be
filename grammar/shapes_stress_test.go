package grammar

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

var stressAtoms = []string{"a", "x.y", "-x.y[i]", "!!3", "1.5", "rate(b)", "avg(c)", "delta(-q[z])", "- ! k", "instant(7)",
	"sum(m)", "-rate(b)", "!avg(x)", "novalue()", "count(a[b])", "rate(a+b)", "(a)", "-(b)", "mkconst(1, type=u32)",
	"7", "\"s\"", "[i]", "/p/", "type", "!", "-", "matchinst(/x/, a)", "matchinst(!/x/, a)", "matchinst(-/x/, a)"}
var stressOps = []string{"+", "-", "*", "/", "<", "<=", "==", ">=", ">", "!=", "&&", "||", "?", ":", ",", "=", "(", ")", "!"}

// TestShapesMutatedAtoms: generated expressions (valid and broken) whose
// atoms and binary operators are swapped at random for others (prefixed,
// filtered, calls, and some that do not belong there), and a token now
// and then for punctuation, get through one Shapes per release the tree
// or the error they get alone; most of the key-equal ones share a parse.
func TestShapesMutatedAtoms(t *testing.T) {
	bases := 6000
	if testing.Short() {
		bases = 1500
	}
	metrics := []string{"sample.long.one", "kernel.all.load", "hinv.ncpu"}
	for _, v := range []pcpver.Version{pcpver.V5_2_6, pcpver.V6_0_3, pcpver.V6_3_8, pcpver.Latest} {
		g := exprgen.New(99, metrics)
		g.PCP7 = v == pcpver.Latest
		g.BrokenShare = 0.3
		rng := rand.New(rand.NewPCG(7, uint64(v.Major)))
		shapes := NewShapes()
		hits, n := 0, 0
		for range bases {
			base := g.Next()
			toks := Tokens(base, v, false)
			for range 4 {
				var b strings.Builder
				for _, tk := range toks {
					if tk.Kind == TokEOS {
						break
					}
					s := tk.Text(base)
					switch tk.Kind {
					case TokName, TokInteger, TokDouble:
						if rng.IntN(2) == 0 {
							s = stressAtoms[rng.IntN(len(stressAtoms))]
						}
					case TokPlus, TokStar, TokSlash, TokLT, TokLEQ, TokEQ, TokGEQ, TokGT, TokNEQ, TokAnd, TokOr:
						if rng.IntN(2) == 0 {
							s = stressOps[rng.IntN(12)]
						}
					}
					if rng.IntN(40) == 0 {
						s = stressOps[rng.IntN(len(stressOps))]
					}
					b.WriteString(s)
					b.WriteByte(' ')
				}
				expr := b.String()
				xt := Tokens(expr, v, false)
				var kb [2*shapeMaxTokens + 2]byte
				key, ok := shapeKey(kb[:0], &tokenStream{src: expr, toks: xt})
				hit := ok && shapes.get(key) != nil
				got, gerr := parseShared(expr, xt, shapes)
				if hit {
					hits++ // a shared parse: participle never ran
				}
				n++
				want, werr := ParseExpr(expr, v)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%q (%v) through shared parses: %s (%v), alone: %s (%v)", expr, v, Format(got), gerr, Format(want), werr)
				}
			}
		}
		if hits == 0 {
			t.Errorf("%v: no expression shared a parse", v)
		}
		t.Logf("%v: %d exprs, %d parses remembered, %d built from a remembered parse", v, n, len(shapes.m), hits)
	}
}
