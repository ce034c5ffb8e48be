package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/txtar"
)

// TestScripts runs every testdata/script/*.txtar: a command line in its
// "cmd" section (one line; single or double quotes group words; $DIR is
// the directory the script's other files are written to), run from
// this package's directory, and its output compared with the "stdout",
// "stderr" and "status" sections (go test -update rewrites them). The
// archive testdata/eval/rec is a six-second recording of the sample
// PMDA kept in the repository, so that outputs do not change.
func TestScripts(t *testing.T) {
	scripts, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			a, err := txtar.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sections := a.Map()
			dir := t.TempDir()
			for _, f := range a.Files {
				if goldenSection[f.Name] || f.Name == "cmd" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.Name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			line := strings.TrimSpace(strings.ReplaceAll(sections["cmd"], "$DIR", dir))
			args, err := splitWords(line)
			if err != nil || len(args) == 0 {
				t.Fatalf("cmd %q: %v", line, err)
			}
			var out, errOut bytes.Buffer
			status := Main(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
			got := map[string]string{
				"stdout": strings.ReplaceAll(out.String(), dir, "$DIR"),
				"stderr": strings.ReplaceAll(errOut.String(), dir, "$DIR"),
				"status": strconv.Itoa(status) + "\n",
			}
			if golden.Update() {
				kept := a.Files[:0]
				for _, f := range a.Files {
					if !goldenSection[f.Name] {
						kept = append(kept, f)
					}
				}
				a.Files = append(kept, txtar.File{Name: "status", Data: got["status"]},
					txtar.File{Name: "stdout", Data: got["stdout"]}, txtar.File{Name: "stderr", Data: got["stderr"]})
				if err := os.WriteFile(path, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"status", "stdout", "stderr"} {
				if got[k] != sections[k] {
					t.Errorf("%s differs:\n--- want\n%s--- got\n%s", k, sections[k], got[k])
				}
			}
		})
	}
}

// goldenSection names the sections a script's run rewrites.
var goldenSection = map[string]bool{"status": true, "stdout": true, "stderr": true}

// splitWords splits a command line at spaces, keeping quoted words
// (single or double quotes) together.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, strconv.ErrSyntax
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
