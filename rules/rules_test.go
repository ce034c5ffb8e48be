package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

func diags(codes ...string) []grammar.Diagnostic {
	var out []grammar.Diagnostic
	for _, c := range codes {
		out = append(out, grammar.Diagnostic{Code: c, Severity: grammar.SeverityError})
	}
	return out
}

func TestParseAndApply(t *testing.T) {
	r, err := Parse("p.yaml", []byte("disable: [nested-derived, no-value]\nseverity:\n  unknown-metric: warning\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Flags(nil, []string{"no-value"}, []string{"syntax=hint"}); err != nil {
		t.Fatal(err)
	}
	got := r.Apply(diags("nested-derived", "no-value", "unknown-metric", "syntax", "semantic"))
	want := map[string]grammar.Severity{"no-value": grammar.SeverityError, "unknown-metric": grammar.SeverityWarning, "syntax": grammar.SeverityHint, "semantic": grammar.SeverityError}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for _, d := range got {
		if want[d.Code] != d.Severity {
			t.Errorf("%s: severity %v, want %v", d.Code, d.Severity, want[d.Code])
		}
	}
}

// TestMisspeltCodes: a misspelt code in the file or a flag is an error
// naming the line and the nearest code, not a rule that matches nothing.
func TestMisspeltCodes(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"disable", "disable:\n  - nested-derived\n  - unknown-metirc\n", []string{`p.yaml:3: unknown finding code "unknown-metirc"; did you mean unknown-metric?`}},
		{"severity code", "severity:\n  sytnax: warning\n", []string{`p.yaml:2: unknown finding code "sytnax"; did you mean syntax?`}},
		{"severity level", "severity:\n  syntax: fatal\n", []string{`p.yaml:2: severity "fatal" for syntax: want error, warning, info or hint`}},
		{"unknown key", "disabled: [syntax]\n", []string{"field disabled not found"}},
		{"not yaml", "disable: [\n", []string{"p.yaml: yaml:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	var r Rules
	err := r.Flags([]string{"syntax,frobnicate"}, nil, []string{"semantic", "no-vaule=info"})
	for _, w := range []string{`--disable: unknown finding code "frobnicate"`, `--severity "semantic": want CODE=LEVEL`, `did you mean no-value?`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("flags error %v lacks %q", err, w)
		}
	}
}

func TestFindUpward(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != "" && strings.HasPrefix(got, root) {
		t.Errorf("found %s before writing one", got)
	}
	want := filepath.Join(root, FileName)
	if err := os.WriteFile(want, []byte("disable: [syntax]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != want {
		t.Errorf("Find = %q, want %q", got, want)
	}
}
