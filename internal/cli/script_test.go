package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
			comment, sections, order := readScript(t, path)
			dir := t.TempDir()
			for _, name := range order {
				switch name {
				case "cmd", "stdout", "stderr", "status":
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(sections[name]), 0o644); err != nil {
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
			if *update {
				writeScript(t, path, comment, sections, order, got)
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

// readScript reads a txtar file: the comment before the first section,
// the sections by name, and their order.
func readScript(t *testing.T, path string) (string, map[string]string, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var comment strings.Builder
	sections := map[string]string{}
	var order []string
	name := ""
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if trimmed := strings.TrimSpace(l); strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			order = append(order, name)
			sections[name] = ""
			continue
		}
		if name == "" {
			comment.WriteString(l)
		} else {
			sections[name] += l
		}
	}
	return comment.String(), sections, order
}

// writeScript rewrites a script with the outputs got.
func writeScript(t *testing.T, path, comment string, sections map[string]string, order []string, got map[string]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(comment)
	for _, name := range order {
		switch name {
		case "stdout", "stderr", "status":
			continue
		}
		b.WriteString("-- " + name + " --\n" + sections[name])
	}
	for _, name := range []string{"status", "stdout", "stderr"} {
		b.WriteString("-- " + name + " --\n" + got[name])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

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
