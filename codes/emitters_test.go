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

// codeName is a field, variable or constant that holds a finding code:
// Code, code, ProblemCode, CodeNotRead (toolconf/htop's), ...
var codeName = regexp.MustCompile(`(?i)code$|^Code[A-Z]`)

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
// diag), and comparisons with a .Code (d.Code == "x", switch g.Code). Each
// must be registered, and each registered code must be made somewhere:
// the checker, the grammar, the analysis and the command line all
// emit codes, and a new emitter of any of them is covered without a
// change here.
func TestEveryEmittedCodeRegistered(t *testing.T) {
	uses := scanModule(t, filepath.Join("..", "."))
	if len(uses) < 40 {
		t.Fatalf("only %d uses of codes found: the scan no longer sees the emitters", len(uses))
	}
	made := map[string]bool{}
	for _, u := range uses {
		made[u.code] = true
		if _, ok := Lookup(u.code); !ok {
			t.Errorf("%s: code %q is not in the registry (codes/codes.go)", u.where, u.code)
		}
	}
	for _, in := range All() {
		if !made[in.Code] {
			t.Errorf("code %q is registered but nothing in the module makes it", in.Code)
		}
	}
}

func scanModule(t *testing.T, root string) []use {
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
	return out
}
