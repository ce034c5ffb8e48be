package grammar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

func addSeeds(f *testing.F) {
	f.Add([]byte("a.b = sample.long.one + 1\n"))
	f.Add([]byte("m(oneline) = 'x\\\ny'\n"))
	f.Add([]byte("#control global_limit=5\nm = 1 + \\\n 2\n"))
	paths, _ := filepath.Glob("testdata/config/*.conf")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile("testdata/syntax-cases.txt"); err == nil {
		f.Add(b)
	}
	for _, c := range []string{"matchinst(/a/, x", "mkconst(1.5, type=U32)", "a ? novalue() : novalue()", `a[\`} {
		f.Add([]byte("m.x = " + c + "\n"))
	}
}

// FuzzParseConfig: any bytes give diagnostics with sane ranges, never a
// panic or a hang.
func FuzzParseConfig(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, d := range []pcpver.Version{pcpver.V5_2_6, pcpver.V6_0_3, pcpver.Novalue.Since(), pcpver.V6_3_8, pcpver.IndomSpec.Since(), pcpver.Latest} {
			file := ParseConfig("fuzz.conf", src, Options{Version: d})
			for _, diag := range file.Diagnostics {
				r := diag.Range
				// A position is on a line of the file, at most one past
				// its end, and the range does not run backwards.
				if r.Start.Line < 1 || int(r.End.Line) > strings.Count(string(src), "\n")+1 || r.End.Before(r.Start) ||
					file.OffsetOf(r.End) > len(src) || r.Start.Col < 1 || r.End.Col < 1 {
					t.Fatalf("diagnostic %+v out of range for %d bytes", diag, len(src))
				}
			}
			for _, def := range file.Definitions.All() {
				if tree, err := def.Tree(); def.Verdict.OK && (err != nil || tree == nil) {
					t.Fatalf("%q: libpcp verdict accepts but no syntax tree: %v", def.Expr, err)
				}
			}
		}
	})
}

// FuzzExpr: the verdict and the tree never panic and agree on success.
func FuzzExpr(f *testing.F) {
	for _, c := range loadStarterSeeds() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, d := range []pcpver.Version{pcpver.V5_2_6, pcpver.V6_0_3, pcpver.Novalue.Since(), pcpver.V6_3_8, pcpver.IndomSpec.Since(), pcpver.Latest} {
			v := LibpcpVerdict(expr, d, false)
			LibpcpVerdict(expr, d, true)
			root, err := ParseExpr(expr, d)
			var deep *TooDeepError
			if v.OK && err != nil && !errors.As(err, &deep) {
				t.Fatalf("%q (%v): libpcp accepts, participle fails: %v", expr, d, err)
			}
			if v.OK && err == nil && root == nil {
				t.Fatalf("%q: nil tree", expr)
			}
			if err != nil {
				// A level at a time (Shapes), the same error.
				if _, serr := parseShared(expr, Tokens(expr, d, false), NewShapes()); fmt.Sprint(serr) != fmt.Sprint(err) {
					t.Fatalf("%q (%v): error %v through shared levels, %v alone", expr, d, serr, err)
				}
			}
			if err == nil {
				checkSharedShape(t, expr, d, root)
				checkCallAtoms(t, expr, d, root)
				// The depth read from the tokens never exceeds the tree's:
				// it refuses nothing the tree would accept.
				if bound, depth := chainDepth(expr, Tokens(expr, d, false)), Depth(root); bound > depth {
					t.Fatalf("%q (%v): chainDepth %d > Depth %d", expr, d, bound, depth)
				}
			}
			if !v.OK && (v.Caret < 0 || (len(expr) > 0 && int(v.Caret) >= len(expr))) {
				t.Fatalf("%q: caret %d outside the text", expr, v.Caret)
			}
		}
	})
}

// checkSharedShape: the tree of expr built from participle's parse of
// another expression of the same shape (other names and numbers), taken
// from a Shapes, is the tree built from its own parse.
func checkSharedShape(t *testing.T, expr string, v pcpver.Version, want Node) {
	t.Helper()
	toks := Tokens(expr, v, false)
	// The twin: each name and integer written otherwise.
	var twin strings.Builder
	last := 0
	for i, tok := range toks {
		switch tok.Kind {
		case TokName:
			fmt.Fprintf(&twin, "%sother%d.m", expr[last:tok.Offset()], i)
		case TokInteger:
			fmt.Fprintf(&twin, "%s987", expr[last:tok.Offset()])
		default:
			continue
		}
		last = tok.End()
	}
	twin.WriteString(expr[last:])
	shapes := NewShapes()
	if _, err := parseShared(twin.String(), Tokens(twin.String(), v, false), shapes); err != nil {
		return // not remembered: nothing shared
	}
	got, err := parseShared(expr, toks, shapes)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q (%v): tree through a shared parse differs (err %v):\n got %s\nwant %s", expr, v, err, Format(got), Format(want))
	}
	if again, _ := parseShared(expr, toks, shapes); !reflect.DeepEqual(again, want) {
		t.Fatalf("%q (%v): a shared parse changed by its first use", expr, v)
	}
}

// checkCallAtoms: the tree of expr, whose commonest calls reach
// participle as one token each (tokenStream), is the tree of the same
// expression fed to participle token by token.
func checkCallAtoms(t *testing.T, expr string, v pcpver.Version, want Node) {
	t.Helper()
	toks := Tokens(expr, v, false)
	stream := &tokenStream{src: expr, toks: toks, plainCalls: true}
	e, err := participleParse(stream)
	if err != nil {
		t.Fatalf("%q (%v): accepted with call atoms, refused token by token: %v", expr, v, err)
	}
	got, err := (&builder{src: expr, toks: toks, spans: stream.spans}).build(e)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q (%v): tree with call atoms differs from the tree token by token (err %v):\n with %s\n without %s", expr, v, err, Format(want), Format(got))
	}
}

func loadStarterSeeds() []string {
	b, err := os.ReadFile("testdata/syntax-cases.txt")
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range splitLines(string(b)) {
		if l != "" && l[0] != '#' {
			out = append(out, l)
		}
	}
	return out
}
