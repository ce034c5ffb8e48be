package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalEscapes: text output shows the control characters of its
// input (a config's names and lines, a hosts file's names) as \x1b and
// the like, never raw: an ESC ] 0 ; … BEL would set the terminal's title,
// ESC [ 2 J clear it. Before, check printed the config's line raw under
// its finding, the fleet report the host's name, explain the node text.
func TestTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "esc.conf")
	hosts := filepath.Join(dir, "esc.hosts")
	if err := os.WriteFile(conf, []byte("m.a = matchinst(/\x1b[31mred/, sample.bin)\nm\x1b]0;pwned\x07.b = 1 +\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hosts, []byte("bad\x1b[2Jhost=127.0.0.1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--no-metadata", "--color", "never", conf},
		{"check", "--hosts-file", hosts, "--host-timeout", "10s", conf},
		{"explain", "--metadata", "embedded", conf, "m.a"},
	} {
		stdout, stderr, status := run(t, "", args...)
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if strings.ContainsAny(out, "\x1b\x07") {
				t.Errorf("%v (exit %d): raw control characters on %s:\n%q", args[:len(args)-1], status, name, out)
			}
		}
		if !strings.Contains(stdout+stderr, `\x1b`) {
			t.Errorf("%v (exit %d): the escape is not shown as \\x1b:\n%s%s", args[:len(args)-1], status, stdout, stderr)
		}
	}
}
