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

// TestCheckPCPDebugDerive: check --pcp-debug derive prints on stderr what
// libpcp prints with PCP_DEBUG=derive loading the config and binding each
// name it defines (proved against each release by grammar's
// TestDeriveDebugAcrossReleases and checker's TestBindDebugAcrossReleases);
// any other flag is a usage error.
func TestCheckPCPDebugDerive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.conf")
	if err := os.WriteFile(path, []byte("#control option_novalue=1\nx = hinv.ncpu\ny = 1 +\nhinv.ncpu = 1\nz = hinv.ncpu + nosuch.m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ := runEnv(t, Env{Args: []string{"check", "--metadata", "embedded", "--pcp-version", "7.2.2", "--pcp-debug=derive", path}})
	const mask = "Warning: hinv.ncpu [60.0.32 host context] masks global derived metric [511.0.4] with the same name"
	want := strings.Join([]string{
		"pmRegisterDerived: global metric[0] event.flags = anon(PM_TYPE_U32)",
		"pmRegisterDerived: global metric[1] event.missed = anon(PM_TYPE_U32)",
		`pmLoadDerivedConfig("` + path + `")`,
		"[" + path + ":1] derived metric control: option_novalue=1 set",
		"pmRegisterDerived: global metric[2] x = hinv.ncpu",
		"[" + path + ":3] Error: pmRegisterDerived(y, ...) syntax error",
		" 1 +", "   ^", "Arithmetic expression expected to follow PLUS",
		"pmRegisterDerived: global metric[3] hinv.ncpu = 1",
		"pmRegisterDerived: global metric[4] z = hinv.ncpu + nosuch.m",
		mask, // binding x's operand
		mask, // binding hinv.ncpu
		mask, // binding z's first operand
		`Warning: derived metric z: operand "nosuch.m" not found, mapped to novalue()`,
		mask, // pminfo's second lookup of the names
		"",
	}, "\n")
	if !strings.HasPrefix(stderr, want) { // the text report's summary follows
		t.Errorf("--pcp-debug=derive printed\n%s\nwant it to start\n%s", stderr, want)
	}
	if _, stderr, status := runEnv(t, Env{Args: []string{"check", "--metadata", "embedded", "--pcp-debug", "appl0", path}}); status != ExitUsage || !strings.Contains(stderr, "want derive") {
		t.Errorf("--pcp-debug appl0: exit %d, %q", status, stderr)
	}
}
