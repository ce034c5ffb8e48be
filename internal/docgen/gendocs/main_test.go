package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/docgen"
)

// TestEveryFlagDocumented generates the files from the real commands'
// help: every command and every flag must be in the man page and each
// completion script.
func TestEveryFlagDocumented(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir, "9.8.7", "2026-11-29"); err != nil {
		t.Fatal(err)
	}
	tool, err := docgen.Load("pcp-derive-lsp", summary, "9.8.7", help)
	if err != nil {
		t.Fatal(err)
	}
	if len(tool.Commands) < 6 {
		t.Fatalf("only %d commands parsed from the usage", len(tool.Commands))
	}
	nflags := 0
	for name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasSuffix(name, ".1") {
			text = strings.ReplaceAll(text, `\-`, "-")
		}
		for _, c := range tool.Commands {
			if !strings.Contains(text, c.Name) {
				t.Errorf("%s lacks the command %s", name, c.Name)
			}
			for _, f := range c.Flags {
				nflags++
				if !strings.Contains(text, f.Name) {
					t.Errorf("%s lacks %s's flag %s", name, c.Name, f.Name)
				}
			}
		}
	}
	if nflags < 40 {
		t.Errorf("only %d flags parsed from the help", nflags)
	}
}
