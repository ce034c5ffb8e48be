package analysis

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// TestPmrepAgrees runs this machine's pmrep (PCP 6.0.3) on every
// metricset of every config it ships, and of mutations of them (a wrong
// metric, a broken formula, a "%", a duplicate key, the compact form
// reversed), and compares what it does with what the analysis says it
// will do (pmconfig.Outcome): run clean, or stop with the same last
// line (and, for a formula, the same whole message).
func TestPmrepAgrees(t *testing.T) {
	oracle.ReleasesFor(t) // fails, never skips, without the releases (skips only when asked)
	host := oracle.Host()
	paths, _ := filepath.Glob("/etc/pcp/pmrep/*.conf")
	if len(paths) == 0 {
		t.Fatal("no /etc/pcp/pmrep/*.conf: install pcp (make testenv)")
	}
	ctx := context.Background()
	src, err := choose.Open(ctx, choose.Spec{Host: "127.0.0.1"}, choose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = b
		for name, m := range mutations(b) {
			files[strings.TrimSuffix(filepath.Base(p), ".conf")+"-"+name+".conf"] = m
		}
	}
	sections, differ := 0, 0
	for name, content := range files {
		in := Input{Path: name, Src: content, Kind: toolconf.Pmrep}
		res := Run(ctx, []Input{in}, Config{Version: VersionChoice{Version: host.Version}, Source: src}, Options{})
		if res.CheckErr != nil {
			t.Fatal(res.CheckErr)
		}
		f := res.Files[0]
		path, cleanup, err := host.WriteFile(name, content)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.ToolDoc().INI.Sections {
			if s.Name == "options" || s.Name == "global" {
				continue
			}
			sections++
			stderr, status, err := host.Pmrep(ctx, path, ":"+s.Name)
			if err != nil {
				t.Fatal(err)
			}
			want := pmconfig.Outcome(f.ToolRun(), s.Name)
			if !sameOutcome(stderr, status, want, path, name) {
				differ++
				t.Errorf("%s [%s]: pmrep exits %d:\n%s\nwe say:\n%s", name, s.Name, status, stderr, strings.Join(want, "\n"))
			}
		}
		cleanup()
	}
	t.Logf("%d files (%d shipped), %d metricsets run, %d differ", len(files), len(paths), sections, differ)
}

// sameOutcome compares pmrep's stderr and status with the predicted
// lines: both clean, or the same last line; a formula's message whole.
func sameOutcome(stderr string, status int, want []string, path, name string) bool {
	stderr = strings.ReplaceAll(stderr, path, name)
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if status == 0 {
		return len(want) == 0
	}
	if len(want) == 0 {
		return false
	}
	if want[0] == "Failed to register derived metric:" {
		return strings.Join(lines, "\n") == strings.Join(want, "\n")
	}
	return lines[len(lines)-1] == want[len(want)-1]
}

var (
	compactLine = regexp.MustCompile(`(?m)^([a-z][a-z0-9_]*\.[a-z0-9_.]+)( *= *)([^,\n]*)(,.*)$`)
	formulaLine = regexp.MustCompile(`(?m)^(\w+\.formula *= *)(.*)$`)
	labelLine   = regexp.MustCompile(`(?m)^(\w+\.label *= *)(.*)$`)
)

// mutations are broken copies of a shipped config, each with one
// mistake in its first place that has room for it.
func mutations(b []byte) map[string][]byte {
	out := map[string][]byte{}
	s := string(b)
	if m := compactLine.FindStringSubmatchIndex(s); m != nil {
		out["wrongmetric"] = []byte(s[:m[3]] + "x" + s[m[3]:])
		out["reversed"] = []byte(s[:m[2]] + s[m[6]:m[7]] + s[m[4]:m[5]] + s[m[2]:m[3]] + s[m[7]:])
		line := s[m[0]:m[1]]
		out["dupkey"] = []byte(s[:m[1]] + "\n" + line + s[m[1]:])
	}
	if m := formulaLine.FindStringSubmatchIndex(s); m != nil {
		out["brokenformula"] = []byte(s[:m[5]] + " +" + s[m[5]:])
	}
	if m := labelLine.FindStringSubmatchIndex(s); m != nil {
		out["percent"] = []byte(s[:m[5]] + " 50%" + s[m[5]:])
	}
	return out
}
