package analysis

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestHtopAgreesWithPcpHtop runs this machine's pcp-htop (PCP 6.0.3,
// under script(1) for the terminal it wants, against the test pmcd) on
// broken meter and column files and compares what it prints before it
// exits with status 2 with what check --format pcp prints for the same
// files: the analysis' findings' PCP lines, in PCPOrder. (toolconf/htop's
// own oracle test proves the reader on every release; this one proves
// the wiring: the registrations, the fatal text, the order of kinds.)
func TestHtopAgreesWithPcpHtop(t *testing.T) {
	oracle.ReleasesFor(t) // fails, never skips, without the test environment (skips only when asked)
	host := oracle.Host() // this machine's PCP, whose pcp-htop is compared
	const binary = "/usr/lib/pcp/bin/pcp-htop"
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("%s: %v (make testenv installs it)", host, err)
	}
	tests := []struct {
		name  string
		files []string // DIR/NAME, text, ...
	}{
		{"meter expression", []string{"meters/load", "[load]\ncaption = Load\nl.metric = kernel.all.load\nl.color = Red\nbusy.metric = 100 * kernel.all.load[1] / hinv.ncpu +\n"}},
		{"column expression", []string{"columns/rss", "[rss]\nheading = RSS\nmetric = proc.psinfo.rss * (2\n"}},
		{"meters before columns", []string{"columns/rss", "[rss]\nmetric = proc.psinfo.rss *\n", "meters/load", "[load]\nl.metric = kernel.all.load[\n"}},
		{"a metric line repeated", []string{"meters/load", "[load]\nl.metric = kernel.all.load\nl.metric = hinv.ncpu\n"}},
		{"a newer construct", []string{"meters/load", "[load]\nl.metric = hinv.ncpu > 1 ? hinv.ncpu : novalue()\n"}},
		{"the value cut at a second =", []string{"meters/load", "[load]\nl.metric = (hinv.ncpu == 1)\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var inputs []Input
			for i := 0; i < len(tc.files); i += 2 {
				path := filepath.Join(dir, "cfg", "htop", filepath.FromSlash(tc.files[i]))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.files[i+1]), 0o644); err != nil {
					t.Fatal(err)
				}
				inputs = append(inputs, Buffer(path, []byte(tc.files[i+1])))
			}
			res := Parse(inputs, Config{Version: VersionChoice{Version: pcpver.V6_0_3}}, Options{})
			var want []string
			for _, file := range res.PCPOrder() {
				for _, d := range file {
					want = append(want, d.PCP...)
				}
			}
			got := runPcpHtop(t, binary, dir)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("pcp-htop printed\n%s\ncheck --format pcp prints\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// runPcpHtop runs pcp-htop with dir/cfg as XDG_CONFIG_HOME (and an empty
// PCP_SHARE_DIR, so only the files under test load) and returns its
// stderr, line by line; it must exit with status 2.
func runPcpHtop(t *testing.T, binary, dir string) []string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "share"), 0o755); err != nil {
		t.Fatal(err)
	}
	errFile := filepath.Join(dir, "stderr")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", binary+" --host=127.0.0.1 2>"+errFile, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm", "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "cfg"),
		"PCP_SHARE_DIR="+filepath.Join(dir, "share"), "PCP_DERIVED_CONFIG=")
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	stderr, readErr := os.ReadFile(errFile)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || readErr != nil {
		t.Fatalf("pcp-htop did not stop with status 2 (%v, %v): %s", err, readErr, stderr)
	}
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(stderr), "\r", ""), "\n"), "\n")
}
