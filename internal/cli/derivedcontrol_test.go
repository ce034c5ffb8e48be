package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckReadsDerivedControl: check applies $PCP_DERIVED_CONTROL as
// libpcp 7.1.1+ does, before the config's #control lines: its bad items
// are warned about in libpcp's words, naming the variable, and a #control
// line that would change what it set is refused; 7.0.2 ignores it.
func TestCheckReadsDerivedControl(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.conf")
	if err := os.WriteFile(path, []byte("#control option_novalue=0\nx = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PCP_DERIVED_CONTROL" {
			return "option_novalue=1,nosuch=1"
		}
		return ""
	}
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"7.2.2", []string{
			"Warning: $PCP_DERIVED_CONTROL: unknown derived metric control (nosuch)\n",
			"[" + path + ":1] Warning: failed to set derived metric control option_novalue=0: Try again. Information not currently available\n",
		}},
		{"7.0.2", nil},
	} {
		stdout, stderr, _ := runEnv(t, Env{Args: []string{"check", "--metadata", "embedded", "--pcp-version", tc.version, "--format", "pcp", path}, Getenv: getenv})
		if got := strings.Join(tc.want, ""); stdout != got {
			t.Errorf("%s: check --format pcp printed\n%s(stderr %q)\nwant\n%s", tc.version, stdout, stderr, got)
		}
	}
}
