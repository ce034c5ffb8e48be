package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runEnv runs a command line in an environment the test shapes
// (terminals, environment variables).
func runEnv(t *testing.T, env Env) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env.Stdout, env.Stderr = &out, &errOut
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	status = Main(context.Background(), env)
	return out.String(), errOut.String(), status
}

// TestHelpEverySubcommand: -h and --help print the subcommand's usage on
// stdout in one style and exit 0 (they used to exit 2).
func TestHelpEverySubcommand(t *testing.T) {
	for _, cmd := range []string{"check", "describe", "eval", "explain", "snapshot", "serve", "web"} {
		for _, h := range []string{"-h", "--help"} {
			stdout, stderr, status := run(t, "", cmd, h)
			if status != ExitOK || !strings.HasPrefix(stdout, "usage: pcp-derive-lsp "+cmd+" ") || !strings.Contains(stdout, "\n\nflags:\n") || stderr != "" {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", cmd, h, status, stdout, stderr)
			}
		}
	}
}

// TestFlagsAfterPaths: flags may follow the paths, and "--" ends them.
func TestFlagsAfterPaths(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "a.conf")
	dash := filepath.Join(dir, "-dash.conf")
	for _, p := range []string{conf, dash} {
		if err := os.WriteFile(p, []byte("m.a = 1 +\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, status := run(t, "", "check", conf, "--format", "json", "--no-metadata")
	var doc struct{ Files []struct{ Path string } }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || status != ExitFindings || len(doc.Files) != 1 {
		t.Errorf("check PATH --format json: exit %d, %v, stdout %q, stderr %q", status, err, stdout, stderr)
	}
	t.Chdir(dir)
	stdout, stderr, status = run(t, "", "check", "--no-metadata", "--", "-dash.conf")
	if status != ExitFindings || !strings.Contains(stdout, "-dash.conf:1:") {
		t.Errorf(`check -- -dash.conf: exit %d, stdout %q, stderr %q`, status, stdout, stderr)
	}
}

// TestQuietAndColor: -q prints nothing and keeps the exit status;
// --color follows the terminal, $NO_COLOR and the flag.
func TestQuietAndColor(t *testing.T) {
	src := "m.a = 1 +\n"
	if stdout, stderr, status := run(t, src, "check", "-q", "--no-metadata", "-"); status != ExitFindings || stdout != "" || stderr != "" {
		t.Errorf("-q: exit %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	for _, tc := range []struct {
		name     string
		flag     string
		terminal bool
		getenv   func(string) string
		color    bool
	}{
		{"auto, not a terminal", "auto", false, nil, false},
		{"auto, a terminal", "auto", true, nil, true},
		{"auto, a terminal, NO_COLOR", "auto", true, noColor, false},
		{"always, NO_COLOR", "always", false, noColor, true},
		{"never, a terminal", "never", true, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, status := runEnv(t, Env{Args: []string{"check", "--no-metadata", "--color", tc.flag, "-"}, Stdin: strings.NewReader(src), StdoutTerminal: tc.terminal, Getenv: tc.getenv})
			if status != ExitFindings || strings.Contains(stdout, "\x1b[") != tc.color {
				t.Errorf("exit %d, coloured %v, want %v: %q", status, strings.Contains(stdout, "\x1b["), tc.color, stdout)
			}
		})
	}
	if _, stderr, status := run(t, src, "check", "--color", "sometimes", "-"); status != ExitUsage || !strings.Contains(stderr, `--color "sometimes"`) {
		t.Errorf("--color sometimes: exit %d, %q", status, stderr)
	}
}

// TestBareCommandOnTerminal: typed on a terminal, the bare command prints
// help instead of silently waiting for LSP messages; from a pipe (an
// editor) it still serves.
func TestBareCommandOnTerminal(t *testing.T) {
	stdout, stderr, status := runEnv(t, Env{StdinTerminal: true})
	if status != ExitUsage || stdout != "" || !strings.Contains(stderr, "usage: pcp-derive-lsp [command]") || !strings.Contains(stderr, "not a terminal") {
		t.Errorf("exit %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	msgs := "Content-Length: " + strconv.Itoa(len(init)) + "\r\n\r\n" + init
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	msgs += "Content-Length: " + strconv.Itoa(len(exit)) + "\r\n\r\n" + exit
	stdout, _, _ = runEnv(t, Env{Stdin: strings.NewReader(msgs)})
	if !strings.Contains(stdout, `"capabilities"`) {
		t.Errorf("bare command from a pipe did not serve: %q", stdout)
	}
}

// TestPCPFormatSaysWhySilent: libpcp prints nothing for a metric it hides
// (an unknown operand), so --format pcp printed nothing yet exited 1; a
// line on stderr now says why.
func TestPCPFormatSaysWhySilent(t *testing.T) {
	stdout, stderr, status := run(t, "x = no.such.metric + 1\n", "check", "--format", "pcp", "--metadata", "embedded", "-")
	if status != ExitFindings || stdout != "" || !strings.Contains(stderr, "1 finding where libpcp prints nothing") {
		t.Errorf("exit %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	// A syntax error libpcp does print needs no such line.
	stdout, stderr, _ = run(t, "x = 1 +\n", "check", "--format", "pcp", "--no-metadata", "-")
	if !strings.Contains(stdout, "syntax error") || stderr != "" {
		t.Errorf("syntax error: stdout %q, stderr %q", stdout, stderr)
	}
}

// TestEvalMissingArchive: a missing archive is named as such (it used to
// say "needs a pmcd").
func TestEvalMissingArchive(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "e.conf")
	if err := os.WriteFile(conf, []byte("x = sample.long.one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, status := run(t, "", "eval", "--archive", "/nonexistent/arch", conf)
	if status != ExitUsage || !strings.Contains(stderr, "archive /nonexistent/arch") || strings.Contains(stderr, "needs a pmcd") {
		t.Errorf("exit %d, stderr %q", status, stderr)
	}
}

// TestRulesFromProjectFileAndFlags: a .pcp-derive-lsp.yaml at or above
// the checked path turns codes off and changes severities; flags go over
// it; a misspelt code in either is a usage error.
func TestRulesFromProjectFileAndFlags(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "conf", "derived")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "a.conf")
	if err := os.WriteFile(conf, []byte("m.a = 1 +\nm.b = 2\nm.b = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(root, ".pcp-derive-lsp.yaml")
	if err := os.WriteFile(project, []byte("disable: [duplicate-name]\nseverity:\n  syntax: warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status := run(t, "", "check", "--no-metadata", conf)
	if status != ExitOK || strings.Contains(stdout, "duplicate-name") || !strings.Contains(stdout, "warning: Arithmetic expression") || !strings.Contains(stderr, "rules: "+project) {
		t.Errorf("project file: exit %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	stdout, _, status = run(t, "", "check", "--no-metadata", conf, "--enable", "duplicate-name", "--severity", "syntax=error")
	if status != ExitFindings || !strings.Contains(stdout, "[duplicate-name]") || !strings.Contains(stdout, "error: Arithmetic expression") {
		t.Errorf("flags over the file: exit %d, stdout %q", status, stdout)
	}
	if _, stderr, status := run(t, "", "check", "--no-metadata", "--no-config", conf); status != ExitFindings || strings.Contains(stderr, "rules:") {
		t.Errorf("--no-config: exit %d, stderr %q", status, stderr)
	}
	if _, stderr, status := run(t, "", "check", "--no-metadata", "--disable", "dupliate-name", conf); status != ExitUsage || !strings.Contains(stderr, "did you mean duplicate-name?") {
		t.Errorf("misspelt flag: exit %d, stderr %q", status, stderr)
	}
	if err := os.WriteFile(project, []byte("disable: [duplicate-nam]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, status := run(t, "", "check", "--no-metadata", conf); status != ExitUsage || !strings.Contains(stderr, project+":1: unknown finding code") {
		t.Errorf("misspelt file: exit %d, stderr %q", status, stderr)
	}
}

// TestFixAndDiff: --diff prints the safe fixes as a unified diff and
// changes nothing; --fix applies them and reports on the fixed files.
// Unsafe fixes (a guess at a metric name) are left to the editor.
func TestFixAndDiff(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "f.conf")
	var src strings.Builder
	src.WriteString("# pcp-derive-lsp: ignore[sytnax]\nm.a = 1 +\n")
	src.WriteString("m.b = sample.bin[\"bin-100\"] + sample.bin[\"bin-200\"]\n")
	for i := 0; i < 8; i++ {
		src.WriteString("m.c" + strconv.Itoa(i) + " = 1\n")
	}
	src.WriteString("m.d = sample.bin[\"bin-300\"]\nm.e = sample.lng.one\n")
	if err := os.WriteFile(conf, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status := run(t, "", "check", "--host", "127.0.0.1", "--diff", conf)
	want := "--- a" + conf + "\n+++ b" + conf + "\n" +
		"@@ -1,6 +1,6 @@\n" +
		"-# pcp-derive-lsp: ignore[sytnax]\n+# pcp-derive-lsp: ignore[syntax]\n" +
		" m.a = 1 +\n" +
		"-m.b = sample.bin[\"bin-100\"] + sample.bin[\"bin-200\"]\n+m.b = sample.bin[bin-100] + sample.bin[bin-200]\n" +
		" m.c0 = 1\n m.c1 = 1\n m.c2 = 1\n" +
		"@@ -9,5 +9,5 @@\n" +
		" m.c5 = 1\n m.c6 = 1\n m.c7 = 1\n" +
		"-m.d = sample.bin[\"bin-300\"]\n+m.d = sample.bin[bin-300]\n" +
		" m.e = sample.lng.one\n"
	if status != ExitFindings || stdout != want {
		t.Errorf("--diff: exit %d, stderr %q, got\n%s\nwant\n%s", status, stderr, stdout, want)
	}
	if got, _ := os.ReadFile(conf); string(got) != src.String() {
		t.Errorf("--diff changed the file")
	}
	stdout, stderr, status = run(t, "", "check", "--host", "127.0.0.1", conf, "--fix")
	fixed := strings.NewReplacer(`["bin-100"]`, "[bin-100]", `["bin-200"]`, "[bin-200]", `["bin-300"]`, "[bin-300]", "sytnax", "syntax").Replace(src.String())
	if got, _ := os.ReadFile(conf); string(got) != fixed {
		t.Errorf("--fix wrote\n%s\nwant\n%s", got, fixed)
	}
	if status != ExitFindings || !strings.Contains(stderr, "fixed 4 findings in 1 file") || strings.Contains(stdout, "[syntax]") || !strings.Contains(stdout, "sample.lng.one") {
		t.Errorf("--fix: exit %d, stdout %q, stderr %q", status, stdout, stderr)
	}
}

// TestVersion: --version, -V and the version command print the version,
// the commit and the Go release, as the release script stamps them.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-V", "version"} {
		stdout, _, status := run(t, "", arg)
		if status != ExitOK || !strings.HasPrefix(stdout, "pcp-derive-lsp "+Version+" (commit ") || !strings.Contains(stdout, ", go1.") {
			t.Errorf("%s: exit %d, %q", arg, status, stdout)
		}
	}
}

// TestSeparateConfigs: pre-commit passes unrelated files in one run; with
// --separate (the hook's entry) each is its own config, so the same name
// in two files is no duplicate-name error.
func TestSeparateConfigs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.conf"), filepath.Join(dir, "b.conf")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("m.x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if stdout, _, status := run(t, "", "check", "--no-metadata", a, b); status != ExitFindings || !strings.Contains(stdout, "duplicate-name") {
		t.Errorf("together: exit %d, %q", status, stdout)
	}
	if stdout, _, status := run(t, "", "check", "--no-metadata", "--separate", a, b); status != ExitOK || strings.Contains(stdout, "duplicate-name") {
		t.Errorf("--separate: exit %d, %q", status, stdout)
	}
	hooks, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil || !strings.Contains(string(hooks), "entry: pcp-derive-lsp check --separate") {
		t.Errorf("the pre-commit hook does not check files separately (%v)", err)
	}
}

// TestSourceFlagsSayWhatTheSourceGives: each command's help says what its
// source gives it, and only check offers --no-metadata (the others
// cannot do without a source).
func TestSourceFlagsSayWhatTheSourceGives(t *testing.T) {
	for _, tc := range []struct {
		cmd        string
		what       string
		noMetadata bool
	}{
		{"check", "metadata from a PCP ARCHIVE", true},
		{"describe", "metadata from a PCP ARCHIVE", false},
		{"eval", "values and metadata from a PCP ARCHIVE", false},
		{"explain", "values and metadata from a PCP ARCHIVE", false},
	} {
		stdout, stderr, _ := run(t, "", tc.cmd, "-h")
		help := stdout + stderr
		if !strings.Contains(help, tc.what) {
			t.Errorf("%s -h does not say %q:\n%s", tc.cmd, tc.what, help)
		}
		if got := strings.Contains(help, "-no-metadata"); got != tc.noMetadata {
			t.Errorf("%s -h lists --no-metadata: %v, want %v", tc.cmd, got, tc.noMetadata)
		}
	}
	if _, stderr, status := run(t, "", "eval", "--no-metadata", "x.conf"); status != ExitUsage || !strings.Contains(stderr, "no-metadata") {
		t.Errorf("eval --no-metadata: status %d, %q; want a usage error naming the flag", status, stderr)
	}
}
