package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/txtar"
)

// checkCase is one testdata/check/*.txtar: check's flags ("args"), the
// config files (*.conf, in order) and any other file (a project rules
// file), and the expected output ("golden").
type checkCase struct {
	name, path string
	args       []string
	configs    []string // the *.conf sections, in order
	archive    *txtar.Archive
}

// checkCases reads every testdata/check/*.txtar.
func checkCases(t *testing.T) []checkCase {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "check", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no testdata/check/*.txtar cases")
	}
	var out []checkCase
	for _, p := range paths {
		p, err := filepath.Abs(p) // the tests change directory
		if err != nil {
			t.Fatal(err)
		}
		a, err := txtar.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := checkCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p, archive: a}
		for _, f := range a.Files {
			switch {
			case f.Name == "args":
				c.args = strings.Fields(f.Data)
			case strings.HasSuffix(f.Name, ".conf"):
				c.configs = append(c.configs, f.Name)
			}
		}
		out = append(out, c)
	}
	return out
}

// writeTo writes the case's files (everything but args and golden) under
// dir.
func (c checkCase) writeTo(t *testing.T, dir string) {
	t.Helper()
	for _, f := range c.archive.Files {
		if f.Name == "args" || f.Name == "golden" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.Data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckCases runs check on each config file of every case by itself,
// as an editor opens it (TestEditorAndCheckAgree compares the two), from
// the case's directory; the golden section holds what it prints and its
// exit status (go test -update rewrites it).
func TestCheckCases(t *testing.T) {
	for _, c := range checkCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.writeTo(t, dir)
			t.Chdir(dir)
			var b strings.Builder
			for _, conf := range c.configs {
				args := append(append([]string{"check"}, c.args...), conf)
				out, _, status := run(t, "", args...)
				fmt.Fprintf(&b, "$ pcp-derive-lsp %s\n%sexit %d\n", strings.Join(args, " "), out, status)
			}
			got := b.String()
			if golden.Update() {
				if err := txtar.ReplaceLast(c.path, "golden", got); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := c.archive.Map()["golden"]; got != want {
				t.Errorf("output differs from the golden section (go test -update rewrites it):\n%s", got)
			}
		})
	}
}
