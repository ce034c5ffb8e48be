// Command gendocs writes pcp-derive-lsp's man page and bash, zsh and fish
// completions, generated from the commands' help (internal/docgen), into
// a directory: the release script (scripts/release.sh) packs them into
// the .deb and .rpm.
//
//	go run ./internal/docgen/gendocs -o DIR [-version V] [-date YYYY-MM-DD]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/cli"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/docgen"
)

// summary is the man page's NAME line.
const summary = "language server, CI linter and live previewer for Performance Co-Pilot derived metrics"

// seeAlso are the PCP pages the man page refers to.
var seeAlso = []string{"PCPIntro(1)", "pmLoadDerivedConfig(3)", "pminfo(1)", "pmrep(1)", "pmval(1)"}

func main() {
	out := flag.String("o", "", "write the files into `DIR`")
	version := flag.String("version", cli.Version, "the `VERSION` the man page names")
	date := flag.String("date", time.Now().UTC().Format(time.DateOnly), "the man page's `DATE` (YYYY-MM-DD)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gendocs -o DIR [-version VERSION] [-date YYYY-MM-DD]")
		os.Exit(2)
	}
	if err := run(*out, *version, *date); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// Files are the generated files, by their name in the output directory.
var files = map[string]func(io.Writer, docgen.Tool, string) error{
	"pcp-derive-lsp.1": func(w io.Writer, t docgen.Tool, date string) error {
		return docgen.WriteMan(w, t, date, seeAlso)
	},
	"pcp-derive-lsp.bash": func(w io.Writer, t docgen.Tool, _ string) error { return docgen.WriteBash(w, t) },
	"_pcp-derive-lsp":     func(w io.Writer, t docgen.Tool, _ string) error { return docgen.WriteZsh(w, t) },
	"pcp-derive-lsp.fish": func(w io.Writer, t docgen.Tool, _ string) error { return docgen.WriteFish(w, t) },
}

func run(dir, version, date string) error {
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("-date: %w", err)
	}
	tool, err := docgen.Load("pcp-derive-lsp", summary, version, help)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range files {
		var buf bytes.Buffer
		if err := write(&buf, tool, date); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// help runs the command line in-process and returns what it printed on
// stdout: the top-level usage for "help", a command's for "NAME -h".
func help(args []string) (string, error) {
	if args == nil {
		args = []string{"help"}
	}
	var stdout, stderr bytes.Buffer
	env := cli.Env{Args: args, Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	if status := cli.Main(context.Background(), env); status != cli.ExitOK {
		return "", errors.New(stderr.String())
	}
	return stdout.String(), nil
}
