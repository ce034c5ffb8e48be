package grammar

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestFunctionCatalogueReachesEveryPlace: a function of the catalogue is
// known to every place that must know it, and the test names the one
// that does not (docs/architecture.md, "A function of the language"): a
// function written f(...) (not a syntax of its own) is a case of the
// checker's inference, the evaluator's operations and the explanation's
// phrases; random expressions (internal/exprgen) use every function, so
// the differential tests compare it with libpcp; VS Code highlights it.
func TestFunctionCatalogueReachesEveryPlace(t *testing.T) {
	cases := map[string]map[string]bool{}
	for _, path := range []string{"../checker/infer.go", "../evaluator/ops.go", "../explain/phrase.go"} {
		cases[path] = caseStrings(t, path)
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	exprgen := read("../internal/exprgen/exprgen.go")
	highlight := read("../editors/vscode/syntaxes/pcp-derived.tmLanguage.json")
	for _, f := range Functions() {
		if f.Arg != ArgSyntax {
			for path, set := range cases {
				if !set[f.Name] {
					t.Errorf("%s: no case %q in %s", f.Name, f.Name, path)
				}
			}
		}
		if !f.Internal && !regexp.MustCompile(`"`+f.Name+`[("]`).MatchString(exprgen) {
			t.Errorf("%s: internal/exprgen/exprgen.go never writes it", f.Name)
		}
		if !regexp.MustCompile(`[|(]` + f.Name + `[|)]`).MatchString(highlight) {
			t.Errorf("%s: editors/vscode/syntaxes/pcp-derived.tmLanguage.json does not highlight it", f.Name)
		}
	}
}

// caseStrings are the string constants of the switch cases of a Go file.
func caseStrings(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CaseClause); ok {
			for _, e := range cc.List {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						out[s] = true
					}
				}
			}
		}
		return true
	})
	return out
}
