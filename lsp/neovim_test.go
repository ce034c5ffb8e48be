package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeovim drives the real server binary from Debian's Neovim (0.7,
// headless, its built-in LSP client): diagnostics, hover and completion.
func TestNeovim(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("nvim missing: run scripts/pcp-testenv.sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pcp-derive-lsp")
	build := exec.Command("go", "build", "-o", bin, "../cmd/pcp-derive-lsp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	conf := filepath.Join(dir, "test.conf")
	os.WriteFile(conf, []byte("m.a = kernel.all.load + 1\nm.b = no.such.metric + 1\nm.c = kernel.al\n"), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(nvim, "--headless", "--clean", "-u", "NONE", "-c", "luafile ../editors/neovim/test/smoke.lua")
	cmd.Env = append(os.Environ(), "PCP_DERIVE_LSP_OUT="+out, "PCP_DERIVE_LSP_BIN="+bin, "PCP_DERIVE_LSP_CONF="+conf)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"diagnostics true 2", "diag unknown-metric unknown metric no.such.metric",
		"hover **kernel.all.load**", "1, 5 and 15 minute load average", "complete all", "complete percpu"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestNeovimPlugin: the plugin detects the filetype and starts the server.
func TestNeovimPlugin(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Fatal("nvim missing: run scripts/pcp-testenv.sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pcp-derive-lsp")
	build := exec.Command("go", "build", "-o", bin, "../cmd/pcp-derive-lsp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	confDir := filepath.Join(dir, "pcp", "config", "derived")
	os.MkdirAll(confDir, 0o755)
	conf := filepath.Join(confDir, "test.conf")
	os.WriteFile(conf, []byte("m.a = kernel.all.load +\n"), 0o644)
	out := filepath.Join(dir, "out")
	plugin, _ := filepath.Abs("../editors/neovim")
	cmd := exec.Command(nvim, "--headless", "--clean", "-u", "NONE", "--cmd", "set rtp+="+plugin, "--cmd", "runtime! ftdetect/*.lua",
		"-c", "luafile ../editors/neovim/test/plugin.lua")
	cmd.Env = append(os.Environ(), "PCP_DERIVE_LSP_OUT="+out, "PCP_DERIVE_LSP_BIN="+bin, "PCP_DERIVE_LSP_CONF="+conf)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, _ := os.ReadFile(out)
	if !strings.Contains(string(got), "filetype pcpderived") || !strings.Contains(string(got), "diagnostics true 1") {
		t.Errorf("plugin test:\n%s", got)
	}
}
