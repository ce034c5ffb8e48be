package pmconfig_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// TestDstatAgrees runs the pcp-dstat of every release from 6.0.3 (this
// machine's 6.0.3, the chroots' 6.3.8 and 7.2.2) on every
// plugin of every dstat file the release ships, and the plugin of each
// mutation of them (an unknown metric, a broken formula, an unknown operand, a semantic
// error, a misspelt or doubled spec word, a duplicate column, a plugin
// width that is no number), each file alone in a ~/.pcp/dstat, and
// compares whether it runs or stops, and with which last line (a
// formula's whole message), with what the analysis predicts
// (pmconfig.Outcome of the file's run).
func TestDstatAgrees(t *testing.T) {
	releases := oracle.ReleasesFor(t) // fails, never skips, without the releases (skips only when asked)
	ctx := context.Background()
	src, err := choose.Open(ctx, choose.Spec{Host: "127.0.0.1"}, choose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range releases {
		switch {
		case r.Suite == "upstream":
			continue // the builds from ../shared/oracles have libpcp and pminfo, no python3-pcp or pcp-dstat
		case r.Version.Less(pcpver.V6_0_3):
			// 5.2's pcp-dstat crashes while it draws the header of a
			// plugin of grouped instances whose metrics have none here
			// (TypeError in title(), fixed in 6.0): a display bug the
			// reader does not model (docs/tool-configs.md).
			continue
		}
		t.Run(r.Version.String(), func(t *testing.T) { dstatAgrees(t, ctx, r, src) })
	}
}

func dstatAgrees(t *testing.T, ctx context.Context, host oracle.Release, src pmclient.Source) {
	if _, err := os.Stat(filepath.Join("/", host.Root, oracle.DstatBinary)); err != nil {
		t.Fatalf("%s: %v: run make testenv (scripts/pcp-releases.sh installs pcp-dstat)", host, err)
	}
	paths, _ := filepath.Glob(filepath.Join("/", host.Root, "etc/pcp/dstat/*"))
	if len(paths) == 0 {
		t.Fatalf("no %s/etc/pcp/dstat/*", host.Root)
	}
	const autoDir = "/var/lib/pcp/config/derived"
	auto := analysis.AutoDerivedInputs(func(string) string { return "" }, func(string) (string, bool) { return filepath.Join("/", host.Root, autoDir), true })
	files := map[string]dstatMutation{} // a shipped file's at is -1
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(p)
		files[base] = dstatMutation{b, -1}
		for name, m := range dstatMutations(b) {
			files[base+"-"+name] = m
		}
	}
	var (
		mu                       sync.Mutex
		plugins, stopped, differ int
		wg                       sync.WaitGroup
		sem                      = make(chan struct{}, 2)
	)
	for name, fl := range files {
		content := fl.content
		in := analysis.Input{Path: name, Src: content, Kind: toolconf.Dstat}
		res := analysis.Run(ctx, []analysis.Input{in}, analysis.Config{Version: analysis.VersionChoice{Version: host.Version}, Source: src, ToolDerived: auto}, analysis.Options{})
		if res.CheckErr != nil {
			t.Fatal(res.CheckErr)
		}
		f := res.Files[0]
		// A shipped file's every plugin; a mutation's own.
		var sections []string
		for _, s := range f.ToolDoc().INI.Sections {
			sections = append(sections, s.Name)
		}
		if fl.at >= 0 {
			sections = nil
			if s := f.ToolDoc().INI.Containing(fl.at); s != nil {
				sections = []string{s.Name}
			}
		}
		if len(sections) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runs, err := host.DstatPlugins(ctx, autoDir, name, content, sections)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, r := range runs {
				plugins++
				if r.Status != 0 {
					stopped++
				}
				want := pmconfig.Outcome(f.ToolRun(), r.Section)
				if !pmconfig.SameOutcome(r.Stderr, r.Status, want) {
					differ++
					t.Errorf("%s [%s]: pcp-dstat exits %d:\n%s\nwe say:\n%s", name, r.Section, r.Status, r.Stderr, strings.Join(want, "\n"))
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d files (%d shipped), %d plugins run (%d stopped), %d differ", len(files), len(paths), plugins, stopped, differ)
}

var (
	dstatColumn = regexp.MustCompile(`(?m)^([a-z][a-z0-9_]*)( *= *)([a-z][a-z0-9_]*\.[a-z0-9_.]+)\s*$`)
	dstatWidth  = regexp.MustCompile(`(?m)^width( *= *)([0-9]+)\s*$`)
	dstatLabel  = regexp.MustCompile(`(?m)^([a-z][a-z0-9_]*)(\.label *= *)(.*)$`)
)

// dstatMutation is a broken copy of a dstat file and where it is broken.
type dstatMutation struct {
	content []byte
	at      int
}

// dstatMutations are broken copies of a shipped dstat file, each with one
// mistake in its first place that has room for it.
func dstatMutations(b []byte) map[string]dstatMutation {
	out := map[string]dstatMutation{}
	s := string(b)
	at := func(name string, from, to int, text string) {
		out[name] = dstatMutation{[]byte(s[:from] + text + s[to:]), from}
	}
	if m := dstatColumn.FindStringSubmatchIndex(s); m != nil {
		at("wrongmetric", m[7], m[7], "x")
		at("brokenformula", m[7], m[7], " +")
		at("unknownoperand", m[6], m[7], "no.such.metric + 1")
		at("semantic", m[6], m[7], "hinv.ncpu + kernel.uname.release")
		at("dupcolumn", m[1], m[1], "\n"+s[m[0]:m[1]])
		at("twodots", m[3], m[3], ".label.x")
	}
	if m := dstatLabel.FindStringSubmatchIndex(s); m != nil {
		at("misspelt", m[4], m[5], ".lable = ")
	}
	if m := dstatWidth.FindStringSubmatchIndex(s); m != nil {
		at("badwidth", m[4], m[5], "wide")
	}
	return out
}
