// Package editortest runs the language server in real terminal editors:
// Debian 12's Neovim 0.7.2 on this machine, and Neovim 0.12, Emacs 30
// (eglot) and Helix from the Debian sid chroot scripts/editors-env.sh makes
// (make testenv). Each editor starts from the snippet docs/editors.md shows
// (editors/snippets/, checked identical by TestDocsShowTheTestedSnippets),
// opens a config under pcp/derived/ against the test pmcd and goes through
// filetype detection, a diagnostic, hover, the explain command (Neovim and
// Emacs), a quick fix, formatting and completion after "sample."; the hover's "metadata: pmcd at localhost"
// shows that the snippet's settings reached the server. Neovim and Emacs
// also open a pmrep file and a pcp-htop meter (toolconf_test.go).
package editortest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The config each editor opens: line 3 has an unknown metric (did you mean
// sample.long.one), line 4 needs formatting.
const testConf = `# pcp-derive-lsp editor test
m.load = kernel.all.load + 1
m.one = sample.long.onr + 1
m.fmt   =   sample.long.ten*2
`

const (
	fixedLine3     = "m.one = sample.long.one + 1"
	formattedLine4 = "m.fmt = sample.long.ten * 2"
	// The snippets name source.host = localhost; by default the server
	// would use the local socket ("pmcd on this host") or the embedded
	// snapshot.
	settingsProof = "metadata: pmcd at localhost"
)

func skipWithoutOracle(t *testing.T) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1: no test pmcd")
	}
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// server builds the static server binary once (it runs in the chroot too).
func server(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pcp-derive-lsp-editors-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "pcp-derive-lsp")
		cmd := exec.Command("go", "build", "-o", binary, "../../cmd/pcp-derive-lsp")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// workspace makes dir/{bin/pcp-derive-lsp, ws/pcp/derived/test.conf,
// editors/...}: the server, the config and this repository's editor files.
func workspace(t *testing.T, dir string) {
	t.Helper()
	bin := server(t)
	for _, d := range []string{"bin", "ws/pcp/derived", "editors"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "bin/pcp-derive-lsp"), b, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "ws/pcp/derived/test.conf"), []byte(testConf), 0o644))
	if out, err := exec.Command("cp", "-r", "../neovim", "../snippets", "../test", filepath.Join(dir, "editors")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sidRoot is the editors chroot, made by scripts/editors-env.sh.
func sidRoot(t *testing.T) string {
	t.Helper()
	skipWithoutOracle(t)
	dir := os.Getenv("PCP_EDITORS_DIR")
	if dir == "" {
		dir = "/var/cache/pcp-derive-lsp/editors"
	}
	root := filepath.Join(dir, "sid")
	if _, err := os.Stat(filepath.Join(root, ".pcp-derive-lsp-ready")); err != nil {
		t.Fatalf("no editors chroot at %s: run scripts/editors-env.sh (make testenv)", root)
	}
	if os.Geteuid() != 0 {
		t.Fatal("the chroot editor tests need root (chroot, mounts)")
	}
	return root
}

// chrootWork makes a work directory inside the chroot, seen there as
// /work/NAME.
func chrootWork(t *testing.T, root string) (host, inside string) {
	t.Helper()
	host, err := os.MkdirTemp(filepath.Join(root, "work"), strings.ToLower(t.Name())+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(host) })
	workspace(t, host)
	return host, "/work/" + filepath.Base(host)
}

// chrootCmd runs argv in the chroot with a clean environment, in a private
// mount namespace that has /proc and its own pseudo-terminals mounted
// (Helix reads /proc, tmux needs ptys); the mounts vanish with the
// namespace's last process.
func chrootCmd(root, work string, env []string, argv ...string) *exec.Cmd {
	mounts := `set -e; r=$0
mount -t proc proc "$r/proc"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts"
mount --bind "$r/dev/pts/ptmx" "$r/dev/ptmx"
shift 0
exec chroot "$r" "$@"`
	full := append([]string{"env", "-i", "PATH=" + work + "/bin:/usr/bin:/bin", "HOME=" + work, "LANG=C.UTF-8", "TERM=xterm-256color"}, env...)
	full = append(full, argv...)
	return exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", mounts, root}, full...)...)
}

// results reads a driver's "key value" lines.
func results(t *testing.T, path string, log []byte) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no results from the editor (%v); its output:\n%s", err, log)
	}
	out := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(l, " ")
		out[k] = append(out[k], v)
	}
	return out
}

// checkSession asserts what a scripted editor (Neovim, Emacs) saw;
// markdown says whether the editor declares it reads markdown hovers
// (eglot does only with markdown-mode, which the test's Emacs lacks: it
// gets plain text).
func checkSession(t *testing.T, r map[string][]string, kindKey, kind string, markdown bool) {
	t.Helper()
	one := func(k string) string { return strings.Join(r[k], "\n") }
	if e := one("error"); e != "" {
		t.Errorf("the driver failed: %s", e)
	}
	if got := one(kindKey); got != kind {
		t.Errorf("%s = %q, want %q", kindKey, got, kind)
	}
	if d := one("diagnostic"); !strings.HasPrefix(d, "3:9 ") || !strings.Contains(d, "unknown-metric") ||
		!strings.Contains(d, "unknown metric sample.long.onr") || strings.Count(d, "\n") != 0 {
		t.Errorf("diagnostics %q, want one unknown-metric at 3:9", d)
	}
	name, proof := "kernel.all.load", settingsProof
	if markdown {
		name, proof = "**"+name+"**", "_"+proof+"_"
	}
	if h := one("hover"); !strings.Contains(h, name) || !strings.Contains(h, "1, 5 and 15 minute load average") ||
		!strings.Contains(h, proof) || !markdown && strings.Contains(h, "**") {
		t.Errorf("hover %q, want kernel.all.load's help and %q (the snippet's source setting), markdown %v", h, settingsProof, markdown)
	}
	if x := one("explain"); !strings.Contains(x, "**Explain `m.load`**") || !strings.Contains(x, "kernel.all.load + 1  [") ||
		!strings.Contains(x, "— values of the metric `kernel.all.load`") {
		t.Errorf("explain %q, want the tree of m.load (the explain command)", x)
	}
	if a := one("applied"); a != "Change to sample.long.one" {
		t.Errorf("quick fix applied: %q (offered: %q)", a, r["codeaction"])
	}
	if l := one("line3"); l != fixedLine3 {
		t.Errorf("line 3 after the quick fix: %q, want %q", l, fixedLine3)
	}
	if l := one("line4"); l != formattedLine4 {
		t.Errorf("line 4 after formatting: %q, want %q", l, formattedLine4)
	}
	items := map[string]bool{}
	for _, c := range strings.Split(one("completion"), ",") {
		items[c] = true
	}
	if !items["long"] || !items["ulong"] || !items["bin"] || items["sample"] {
		t.Errorf("completion after sample.: %q, want the names under sample (long, ulong, bin...)", one("completion"))
	}
}

// TestNeovim07 runs Debian 12's Neovim 0.7.2 (this machine's) with our
// plugin and setup() (editors/snippets/neovim-0.7.lua).
func TestNeovim07(t *testing.T) {
	nvim, dir := localNeovim(t)
	cmd := neovim07(nvim, dir, "nvim-driver.lua", "PCP_EDITOR_OUT="+dir+"/out", "PCP_EDITOR_CONF="+dir+"/ws/pcp/derived/test.conf")
	log := run(t, cmd)
	r := results(t, dir+"/out", log)
	if v := strings.Join(r["version"], ""); !strings.HasPrefix(v, "0.7.") {
		t.Errorf("Neovim %s, want Debian 12's 0.7", v)
	}
	checkSession(t, r, "filetype", "pcpderived", true)
}

// localNeovim is this machine's Neovim (Debian 12's 0.7) and a workspace
// for it; the test runs in parallel.
func localNeovim(t *testing.T) (nvim, dir string) {
	t.Helper()
	skipWithoutOracle(t)
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("nvim missing: run scripts/pcp-testenv.sh (make testenv)")
	}
	dir = t.TempDir()
	workspace(t, dir)
	return nvim, dir
}

// neovim07 is Debian 12's Neovim 0.7 with the plugin's setup()
// (editors/snippets/neovim-0.7.lua) running a driver of editors/test in
// the workspace dir, its environment plus env.
func neovim07(nvim, dir, driver string, env ...string) *exec.Cmd {
	cmd := exec.Command(nvim, "--headless", "-u", dir+"/editors/snippets/neovim-0.7.lua",
		"--cmd", "set rtp^="+dir+"/editors/neovim", "-c", "luafile "+dir+"/editors/test/"+driver)
	cmd.Env = append(append(os.Environ(), "PATH="+dir+"/bin:"+os.Getenv("PATH"), "HOME="+dir, "XDG_CONFIG_HOME="+dir+"/.config",
		"XDG_DATA_HOME="+dir+"/.local/share", "XDG_STATE_HOME="+dir+"/.local/state"), env...)
	return cmd
}

// TestNeovim012 runs sid's Neovim 0.12 with vim.lsp.config/enable and
// the plugin's lsp/pcp_derive_lsp.lua (editors/snippets/neovim-0.11.lua);
// its settings reach the server by workspace/configuration.
func TestNeovim012(t *testing.T) {
	root := sidRoot(t)
	t.Parallel()
	host, in := chrootWork(t, root)
	cmd := chrootCmd(root, in, []string{"PCP_EDITOR_OUT=" + in + "/out", "PCP_EDITOR_CONF=" + in + "/ws/pcp/derived/test.conf"},
		"nvim", "--headless", "-u", in+"/editors/snippets/neovim-0.11.lua", "--cmd", "set rtp^="+in+"/editors/neovim",
		"-c", "luafile "+in+"/editors/test/nvim-driver.lua")
	log := run(t, cmd)
	r := results(t, host+"/out", log)
	if v := strings.Join(r["version"], ""); !strings.HasPrefix(v, "0.12.") {
		t.Errorf("Neovim %s, want sid's 0.12", v)
	}
	// The lspconfig file proposed upstream is the one Neovim loaded.
	if f := r["lspconfig"]; len(f) != 1 || f[0] != in+"/editors/neovim/lsp/pcp_derive_lsp.lua" {
		t.Errorf("Neovim found lsp/pcp_derive_lsp.lua at %q, want only editors/neovim's", f)
	}
	if m := strings.Join(r["rootmarkers"], ""); m != ".pcp-derive-lsp.yaml .git" {
		t.Errorf("root_markers %q, want lsp/pcp_derive_lsp.lua's", m)
	}
	checkSession(t, r, "filetype", "pcpderived", true)
	checkNeovimNavigation(t, r)
}

// checkNeovimNavigation asserts what Neovim 0.12 saw of issue #39's
// features: diagnostics pulled (it declares pull support, so none are
// pushed), m.load's highlights (its definition written, its use in the
// line the driver added read) and its call hierarchy.
func checkNeovimNavigation(t *testing.T, r map[string][]string) {
	t.Helper()
	one := func(k string) string { return strings.Join(r[k], "\n") }
	if m := one("diagmodel"); m != "pull" {
		t.Errorf("diagnostics came by %q, want pull (Neovim 0.12 declares textDocument.diagnostic)", m)
	}
	if h := one("highlight"); h != "2:0-2:6 3\n6:10-6:16 2" {
		t.Errorf("highlights of m.load %q, want its definition (write, 3) and its use on line 6 (read, 2)", h)
	}
	if c := one("callitem"); c != "m.load" {
		t.Errorf("call hierarchy item %q, want m.load", c)
	}
	if in, out := one("incoming"), one("outgoing"); in != "m.twice" || out != "kernel.all.load" {
		t.Errorf("calls of m.load: incoming %q, outgoing %q; want m.twice and kernel.all.load", in, out)
	}
}

// TestEmacs runs sid's Emacs 30 in batch mode with its built-in eglot and
// the documented snippet (editors/snippets/emacs-eglot.el): eglot's
// didChangeConfiguration {"settings":{}} must not lose the snippet's
// initializationOptions.
func TestEmacs(t *testing.T) {
	root := sidRoot(t)
	t.Parallel()
	host, in := chrootWork(t, root)
	cmd := chrootCmd(root, in, []string{"PCP_EDITOR_OUT=" + in + "/out", "PCP_EDITOR_CONF=" + in + "/ws/pcp/derived/test.conf"},
		"emacs", "--batch", "-l", in+"/editors/snippets/emacs-eglot.el", "-l", in+"/editors/test/emacs-driver.el")
	log := run(t, cmd)
	r := results(t, host+"/out", log)
	if v := strings.Join(r["version"], ""); !strings.HasPrefix(v, "30.") {
		t.Errorf("Emacs %s, want sid's 30", v)
	}
	checkSession(t, r, "mode", "pcp-derived-mode", false)
}

// run runs an editor with a deadline and returns its output.
func run(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s: %v\n%s", cmd.Args, err, out.Bytes())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not finish in 90 s:\n%s", cmd.Args, out.Bytes())
	}
	return out.Bytes()
}

// tmux drives Helix in a tmux session inside the chroot.
type tmux struct {
	t          *testing.T
	root, sock string
}

func (x *tmux) cmd(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("chroot", append([]string{x.root, "tmux", "-S", x.sock}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends keys (tmux key names), one send-keys each: Helix reads an
// Escape followed at once by another key as Alt+key.
func (x *tmux) keys(keys ...string) {
	x.t.Helper()
	for _, k := range keys {
		before := x.screen()
		x.cmd("send-keys", k)
		// Wait until Helix has drawn something in answer (the cursor
		// position or mode in the status line changes) or briefly give it
		// the chance to: keys that change nothing visible exist (Escape).
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) && x.screen() == before {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (x *tmux) screen() string { return x.cmd("capture-pane", "-p") }

// wait polls the screen until it holds want, with a deadline.
func (x *tmux) wait(want string) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := x.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("Helix never showed %q; the screen:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// statusPos is the cursor position Helix's status line shows ("3:9").
func statusPos(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, " sel ") {
			f := strings.Fields(l)
			return f[len(f)-1]
		}
	}
	return ""
}

// TestHelix runs sid's Helix in tmux with the documented languages.toml
// (editors/snippets/helix-languages.toml), reading the screen; the quick
// fix and formatting are checked in the file Helix writes.
func TestHelix(t *testing.T) {
	root := sidRoot(t)
	t.Parallel()
	host, in := chrootWork(t, root)
	must(t, os.MkdirAll(host+"/.config/helix", 0o755))
	snippet, err := os.ReadFile("../snippets/helix-languages.toml")
	must(t, err)
	must(t, os.WriteFile(host+"/.config/helix/languages.toml", snippet, 0o644))
	x := &tmux{t: t, root: root, sock: in + "/tmux.sock"}
	cmd := chrootCmd(root, in, nil, "tmux", "-S", x.sock, "new-session", "-d", "-x", "160", "-y", "40",
		"cd "+in+"/ws && hx -v --log "+in+"/helix.log pcp/derived/test.conf")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		exec.Command("chroot", root, "tmux", "-S", x.sock, "kill-server").Run()
		if t.Failed() {
			b, _ := os.ReadFile(host + "/helix.log")
			t.Logf("helix.log, the end:\n%s", b[max(0, len(b)-4000):])
		}
	})
	if v, _ := exec.Command("chroot", root, "hx", "--version").Output(); !strings.HasPrefix(string(v), "helix 25.") {
		t.Errorf("Helix %q, want sid's 25.x", v)
	}

	// The diagnostic, shown at the end of line 3.
	x.wait("unknown metric sample.long.onr")
	// ]d selects the first diagnostic's range; :echo shows the selection
	// and the language Helix detected, the status line the cursor (the
	// range's last character).
	x.keys("g", "g", "]d", ":echo %{selection} %{language}", "Enter")
	s := x.wait("sample.long.onr pcp-derived")
	if l := lastLine(s); l != "sample.long.onr pcp-derived" {
		t.Errorf(":echo %%{selection} %%{language} says %q, want \"sample.long.onr pcp-derived\"", l)
	}
	if pos := statusPos(s); pos != "3:23" {
		t.Errorf("]d selected up to %s, want the diagnostic's sample.long.onr at 3:9-3:23", pos)
	}
	// Hover on kernel.all.load.
	x.keys(";", ":2", "Enter", "12l", " ", "k")
	s = x.wait("1, 5 and 15 minute load average")
	if !strings.Contains(s, "kernel.all.load") || !strings.Contains(s, settingsProof) {
		t.Errorf("hover:\n%s\nwant kernel.all.load and %q (the snippet's source setting)", s, settingsProof)
	}
	// The quick fix, first in the code action menu.
	x.keys("Escape", ":3", "Enter", "8l", " ", "a")
	x.wait("Change to sample.long.one")
	x.keys("Enter")
	x.wait("m.one = sample.long.one + 1")
	// Formatting, then write the file.
	x.keys(":format", "Enter")
	x.wait(formattedLine4)
	x.keys(":w", "Enter")
	want := strings.Replace(strings.Replace(testConf, "m.one = sample.long.onr + 1", fixedLine3, 1), "m.fmt   =   sample.long.ten*2", formattedLine4, 1)
	deadline := time.Now().Add(30 * time.Second)
	var got []byte
	for time.Now().Before(deadline) {
		if got, _ = os.ReadFile(host + "/ws/pcp/derived/test.conf"); string(got) == want {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if string(got) != want {
		t.Errorf("the file Helix wrote:\n%s\nwant:\n%s", got, want)
	}
	// Completion after "sample." on a new line.
	x.keys("g", "e", "o", "m.new = sample.")
	s = x.wait("aggregate")
	if !strings.Contains(s, "bigid") || !strings.Contains(s, "bin ") {
		t.Errorf("completion menu after sample.:\n%s", s)
	}
	x.keys("Escape", ":q!")
	x.cmd("send-keys", "Enter") // Helix ends: no screen to wait for
	// Helix's log: the snippet's config went out as initializationOptions.
	b, _ := os.ReadFile(host + "/helix.log")
	if !strings.Contains(string(b), `"initializationOptions":{"pcpVersion":"auto","source":{"host":"localhost"}}`) {
		t.Errorf("helix.log has no initialize with the snippet's config")
	}
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n "), "\n")
	return ls[len(ls)-1]
}

// TestDocsShowTheTestedSnippets: docs/editors.md shows each snippet the
// tests run, byte for byte, in a fenced block.
func TestDocsShowTheTestedSnippets(t *testing.T) {
	doc, err := os.ReadFile("../../docs/editors.md")
	must(t, err)
	files, _ := filepath.Glob("../snippets/*")
	if len(files) < 4 {
		t.Fatalf("only %d snippets", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		must(t, err)
		if !bytes.Contains(doc, append(append([]byte("\n"), b...), "```\n"...)) {
			t.Errorf("docs/editors.md does not show %s exactly (in a fenced block)", f)
		}
	}
}
