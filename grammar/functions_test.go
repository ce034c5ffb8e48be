package grammar

import (
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar/lalr"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Every function of the catalogue is a keyword of the grammar files of the
// releases that have it, and lexes as a function there and as a name
// elsewhere.
func TestFunctionCatalogueMatchesGrammar(t *testing.T) {
	for _, v := range []pcpver.Version{pcpver.V5_2_6, pcpver.V6_0_3, pcpver.V6_3_8, pcpver.Latest} {
		for _, f := range Functions() {
			has := true
			for _, need := range f.Requires {
				has = has && v.Has(need)
			}
			_, terminal := lalr.For(v.Grammar()).Terminal(strings.ToUpper(f.Name))
			if terminal != has {
				t.Errorf("%s in %v: a terminal of the grammar is %v, the catalogue says %v", f.Name, v, terminal, has)
			}
			toks := Tokens(f.Name+"(1)", v, false)
			if got := toks[0].Kind == TokFunc; got != has {
				t.Errorf("%s( in %v lexes as %v", f.Name, v, toks[0].Kind)
			}
			if _, ok := funcTypes[f.Name]; !ok {
				t.Errorf("%s: the syntax tree has no token type for it", f.Name)
			}
			if f.Signature == "" || f.Doc == "" || len(f.Params) == 0 {
				t.Errorf("%s: signature, doc and parameters are all needed", f.Name)
			}
		}
	}
}

func TestNeedsHistory(t *testing.T) {
	for expr, want := range map[string]bool{
		"sample.long.one":                      false,
		"delta(sample.long.one)":               true,
		"1 + avg(a) * rate(b)":                 true,
		"instant(a) + sum(b)":                  false,
		"a > 0 ? delta(a) : 0":                 true,
		"matchinst(/x/, rate(a)) + defined(b)": true,
	} {
		tree, err := ParseExpr(expr, pcpver.Latest)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if got := NeedsHistory(tree); got != want {
			t.Errorf("NeedsHistory(%q) = %v, want %v", expr, got, want)
		}
	}
}
