package codes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// codeName is a field or variable that holds a finding code: Code,
// code, ProblemCode, ...
var codeName = regexp.MustCompile(`(?i)code$`)

// use is one place the module's code names a finding code.
type use struct {
	code  string
	where string
}

// TestEveryEmittedCodeRegistered reads the module's Go source (every
// package but this one; tests excluded) and finds every string literal
// in a place that makes or names a finding code: a field or variable
// called *Code/*code (Diagnostic{Code: "x"}, problemCode: "x",
// code := "x", code = map[bool]string{...}[...]), an argument passed for
// a parameter named code (the checker's diag and warn, the grammar's
// diag), and comparisons with a .Code (d.Code == "x", switch g.Code).
// There must be none: a code is named by its constant (codes.Masked), so
// a misspelt one does not compile. Each registered code must have its
// constant, the registry must name it by that constant, and each must
// be made somewhere: the checker, the grammar, the analysis, the
// fleet and the server all emit codes, and a new emitter of any of them
// is covered without a change here.
func TestEveryEmittedCodeRegistered(t *testing.T) {
	literals, used := scanModule(t, filepath.Join("..", "."))
	consts := constants(t)
	byValue := map[string]string{}
	for name, value := range consts {
		byValue[value] = name
	}
	for _, u := range literals {
		t.Errorf("%s: code %q as a string literal: name it codes.%s", u.where, u.code, byValue[u.code])
	}
	if len(used) < 30 {
		t.Fatalf("only %d codes named in the module: the scan no longer sees the emitters", len(used))
	}
	for _, in := range All() {
		name, ok := byValue[in.Code]
		switch {
		case !ok:
			t.Errorf("code %q has no constant", in.Code)
		case !used[name]:
			t.Errorf("code %q (codes.%s) is registered but nothing in the module makes it", in.Code, name)
		}
	}
}

// constants are the code constants of codes.go (name to code), read from
// its source; the registry's entries must name their codes by them.
func constants(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "codes.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok != token.CONST {
				return true
			}
			for _, spec := range n.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i < len(vs.Values) && vs.Type == nil {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if v, err := strconv.Unquote(lit.Value); err == nil {
								if _, registered := Lookup(v); registered {
									out[id.Name] = v
								}
							}
						}
					}
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Code" {
				if _, ok := n.Value.(*ast.Ident); !ok {
					t.Errorf("%s: a registry entry names its code by a literal, not its constant", fset.Position(n.Pos()))
				}
			}
		}
		return true
	})
	return out
}

func scanModule(t *testing.T, root string) (literals []use, used map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	dirOf := map[*ast.File]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "editors", "testdata", "node_modules", "codes", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		dirOf[f] = filepath.Dir(path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Functions (declared, or function literals given a name) with a
	// parameter named code, and its position, by package directory and
	// name (the grammar's diag and the checker's differ).
	codeParam := map[string]int{}
	var dir string
	params := func(name string, ft *ast.FuncType) {
		name = dir + ":" + name
		i := 0
		for _, field := range ft.Params.List {
			if len(field.Names) == 0 {
				i++
				continue
			}
			for _, n := range field.Names {
				if n.Name == "code" {
					codeParam[name] = i
				}
				i++
			}
		}
	}
	for _, f := range files {
		dir = dirOf[f]
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				params(n.Name.Name, n.Type)
			case *ast.AssignStmt:
				for i, rhs := range n.Rhs {
					if lit, ok := rhs.(*ast.FuncLit); ok && i < len(n.Lhs) {
						if id, ok := n.Lhs[i].(*ast.Ident); ok {
							params(id.Name, lit.Type)
						}
					}
				}
			}
			return true
		})
	}
	var out []use
	used = map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "codes" {
					used[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	strings := func(e ast.Node) {
		ast.Inspect(e, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, use{s, fset.Position(lit.Pos()).String()})
				}
			}
			return true
		})
	}
	isCodeField := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Code"
	}
	for _, f := range files {
		dir = dirOf[f]
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && codeName.MatchString(id.Name) {
					strings(n.Value)
				}
			case *ast.ValueSpec:
				// const emptyNowCode = "empty-now"
				for i, id := range n.Names {
					if codeName.MatchString(id.Name) && i < len(n.Values) {
						strings(n.Values[i])
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					id, ok := lhs.(*ast.Ident)
					if ok && codeName.MatchString(id.Name) && len(n.Rhs) == len(n.Lhs) {
						if _, isFunc := n.Rhs[i].(*ast.FuncLit); !isFunc {
							strings(n.Rhs[i])
						}
					}
				}
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				}
				if i, ok := codeParam[dir+":"+name]; ok && i < len(n.Args) {
					if lit, ok := n.Args[i].(*ast.BasicLit); ok {
						strings(lit)
					}
				}
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					if isCodeField(n.X) {
						strings(n.Y)
					} else if isCodeField(n.Y) {
						strings(n.X)
					}
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isCodeField(n.Tag) {
					for _, st := range n.Body.List {
						for _, e := range st.(*ast.CaseClause).List {
							strings(e)
						}
					}
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out, used
}
