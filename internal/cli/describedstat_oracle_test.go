package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// TestDescribeDstatAgrees runs this machine's pcp-dstat on two plugins of
// one column, mem.util.free (gigabytes here), one with a colorstep: the
// value ends in a magnitude suffix exactly when describe says pcp-dstat
// shows one, and its header's width is the one describe gives.
func TestDescribeDstatAgrees(t *testing.T) {
	host := false
	for _, r := range oracle.ReleasesFor(t) { // fails, never skips, without the test environment
		host = host || r.Root == "" && r.Suite != "upstream"
	}
	if !host {
		t.Fatal("no release on this machine: run make testenv")
	}
	home := t.TempDir()
	conf := "[sufx]\nwidth = 5\nfree = mem.util.free\n\n[nosufx]\nwidth = 5\ncolorstep = 10\nfree = mem.util.free\n"
	dir := filepath.Join(home, ".pcp", "dstat")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shown")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status := run(t, "", "describe", "--host", "127.0.0.1", "--kind", "dstat", path)
	if status != ExitOK {
		t.Fatalf("describe: exit %d: %s", status, stderr)
	}
	says := map[string]bool{} // plugin -> describe says a suffix
	for _, line := range strings.Split(stdout, "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(name, "dstat.") {
			if !strings.Contains(line, "5 characters wide") {
				t.Errorf("describe gives another width: %s", line)
			}
			says[strings.Split(name, ".")[1]] = strings.Contains(line, "with a magnitude suffix")
		}
	}
	if !says["sufx"] || says["nosufx"] {
		t.Fatalf("describe: a suffix for sufx %v, nosufx %v, want true, false:\n%s", says["sufx"], says["nosufx"], stdout)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "/"+oracle.DstatBinary, "--sufx", "--nosufx", "1", "1")
	cmd.Env = append(os.Environ(), "HOME="+home, "PCP_HOST=127.0.0.1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pcp-dstat: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	fields := strings.Split(lines[len(lines)-1], "|")
	if len(lines) < 3 || len(fields) != 2 {
		t.Fatalf("pcp-dstat printed:\n%s", out)
	}
	for i, plugin := range []string{"sufx", "nosufx"} {
		v := strings.TrimSpace(fields[i])
		if len(fields[i]) != 5 {
			t.Errorf("pcp-dstat's %s value %q is not 5 wide", plugin, fields[i])
		}
		suffixed := v != "" && strings.ContainsRune("BkMGTPEZY", rune(v[len(v)-1]))
		if suffixed != says[plugin] {
			t.Errorf("pcp-dstat shows %s as %q; describe says a suffix: %v\n%s", plugin, v, says[plugin], out)
		}
	}
}
