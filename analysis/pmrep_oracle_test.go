package analysis

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// TestPmrepAgrees runs the pmrep of every release we prove (this
// machine's 6.0.3, the chroots' 5.2.6, 6.3.8 and 7.2.2) on every
// metricset of every config the release ships, and of mutations of them
// (a wrong metric, a broken formula, a "%", a duplicate key, the compact
// form reversed, units that convert from the metric's or not ...), and compares what it does with what the analysis
// says it will do (pmconfig.Outcome): run clean, or stop with the same
// last line (and, for a formula, the same whole message).
func TestPmrepAgrees(t *testing.T) {
	releases := oracle.ReleasesFor(t) // fails, never skips, without the releases (skips only when asked)
	ctx := context.Background()
	src, err := choose.Open(ctx, choose.Spec{Host: "127.0.0.1"}, choose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range releases {
		if r.Suite == "upstream" {
			continue // the builds from ../shared/oracles have libpcp and pminfo, no python3-pcp or pmrep
		}
		t.Run(r.Version.String(), func(t *testing.T) { pmrepAgrees(t, ctx, r, src) })
	}
}

func pmrepAgrees(t *testing.T, ctx context.Context, host oracle.Release, src pmclient.Source) {
	paths, _ := filepath.Glob(filepath.Join("/", host.Root, "etc/pcp/pmrep/*.conf"))
	if len(paths) == 0 {
		t.Fatalf("no %s/etc/pcp/pmrep/*.conf: install pcp (make testenv)", host.Root)
	}
	type file struct {
		content []byte
		at      int // the mutation's offset; -1 for a shipped file
		global  bool
	}
	// pmrep loads the shipped derived configs on its own; the analysis
	// checks each file with the same.
	const autoDir = "/var/lib/pcp/config/derived"
	auto := AutoDerivedInputs(func(string) string { return "" }, func(string) (string, bool) { return filepath.Join("/", host.Root, autoDir), true })
	if len(auto) == 0 {
		t.Fatalf("no derived configs in %s", autoDir)
	}
	files := map[string]file{}
	for _, p := range paths {
		if filepath.Base(p) == "pmproxy.conf" {
			// Its metrics come and go with the pmproxy processes other
			// tests start: pmrep and the check would see different ones.
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(p), ".conf")
		files[base+".conf"] = file{b, -1, false}
		for name, m := range mutations(b) {
			files[base+"-"+name+".conf"] = file{m.content, m.at, name == "percent" || name == "reference"}
		}
	}
	var (
		mu               sync.Mutex
		sections, differ int
		outcomes         = map[string]int{}
		wg               sync.WaitGroup
		sem              = make(chan struct{}, 2)
	)
	for name, fl := range files {
		in := Input{Path: name, Src: fl.content, Kind: toolconf.Pmrep}
		res := Run(ctx, []Input{in}, Config{Version: VersionChoice{Version: host.Version}, Source: src, ToolDerived: auto}, Options{})
		if res.CheckErr != nil {
			t.Fatal(res.CheckErr)
		}
		f := res.Files[0]
		// A shipped file's every metricset; a mutation's own, and for a
		// "%" (every set interpolated) another one too.
		var names []string
		for _, s := range f.ToolDoc().INI.Sections {
			if s.Name == "options" || s.Name == "global" {
				continue
			}
			end := len(fl.content)
			if next := nextSection(f.ToolDoc().INI, s); next != nil {
				end = next.HeadOff
			}
			if fl.at < 0 || (fl.at >= s.HeadOff && fl.at < end) || (fl.global && len(names) == 0) {
				names = append(names, s.Name)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			path, cleanup, err := host.WriteFile(name, fl.content)
			if err != nil {
				t.Error(err)
				return
			}
			defer cleanup()
			runs, err := host.PmrepSections(ctx, autoDir, path, names)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, r := range runs {
				sections++
				want := pmconfig.Outcome(f.ToolRun(), r.Section)
				kind := "ok"
				if r.Status != 0 {
					kind = "fails"
				}
				outcomes[kind]++
				if !sameOutcome(r.Stderr, r.Status, want, path, name) {
					differ++
					t.Errorf("%s [%s]: pmrep exits %d:\n%s\nwe say:\n%s", name, r.Section, r.Status, r.Stderr, strings.Join(want, "\n"))
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d files (%d shipped), %d metricsets run (%d clean, %d stopped), %d differ", len(files), len(paths), sections, outcomes["ok"], outcomes["fails"], differ)
}

// nextSection is the section after s in the file, nil for the last.
func nextSection(ini *pmconfig.INI, s *pmconfig.Section) *pmconfig.Section {
	for i, x := range ini.Sections {
		if x == s && i+1 < len(ini.Sections) {
			return ini.Sections[i+1]
		}
	}
	return nil
}

// sameOutcome is pmconfig.SameOutcome of pmrep's stderr with the path it
// read the file from named as the file.
func sameOutcome(stderr string, status int, want []string, path, name string) bool {
	return pmconfig.SameOutcome(strings.ReplaceAll(stderr, path, name), status, want)
}

var (
	compactLine = regexp.MustCompile(`(?m)^([a-z][a-z0-9_]*\.[a-z0-9_.]+)( *= *)([^,\n]*)(,.*)$`)
	formulaLine = regexp.MustCompile(`(?m)^(\w+\.formula *= *)(.*)$`)
	labelLine   = regexp.MustCompile(`(?m)^(\w+)(\.label *= *)(.*)$`)
	declLine    = regexp.MustCompile(`(?m)^(\w+)( *= *)([a-z][a-z0-9_]*\.[a-z0-9_.]+)\s*$`)
	indomMetric = regexp.MustCompile(`(?m)^((?:kernel\.percpu|disk\.dev|network\.interface)\.[a-z0-9_.]+)( *= *)([^,\n]*),[^,\n]*(,.*)$`)
)

// mutation is a broken copy of a config and where it is broken.
type mutation struct {
	content []byte
	at      int
}

// mutations are broken copies of a shipped config, each with one
// mistake in its first place that has room for it.
func mutations(b []byte) map[string]mutation {
	out := map[string]mutation{}
	s := string(b)
	at := func(name string, from, to int, text string) {
		out[name] = mutation{[]byte(s[:from] + text + s[to:]), from}
	}
	if m := compactLine.FindStringSubmatchIndex(s); m != nil {
		at("wrongmetric", m[3], m[3], "x")
		out["reversed"] = mutation{[]byte(s[:m[2]] + s[m[6]:m[7]] + s[m[4]:m[5]] + s[m[2]:m[3]] + s[m[7]:]), m[2]}
		at("dupkey", m[1], m[1], "\n"+s[m[0]:m[1]])
		at("badunit", m[7], m[7], ",,furlongs,,")
		// Units libpcp parses, which convert from some metrics' units
		// (as they are, or per second for a counter) and not others'.
		at("unitsec", m[7], m[7], ",,sec,,")
		at("unitcount", m[7], m[7], ",,count,,")
		at("unitperminute", m[7], m[7], ",,Kbyte / min,,")
		at("badwidth", m[7], m[1], ",,,,wide")
		at("emptyvalue", m[4], m[1], " =")
	}
	if m := formulaLine.FindStringSubmatchIndex(s); m != nil {
		at("brokenformula", m[5], m[5], " +")
		at("unknownoperand", m[4], m[5], "no.such.metric + 1")
		at("semantic", m[4], m[5], "hinv.ncpu + kernel.uname.release")
		at("continued", m[5], m[5], "\n    * (2 +)")
		at("formulacomment", m[5], m[5], " # comment")
	}
	if m := labelLine.FindStringSubmatchIndex(s); m != nil {
		at("percent", m[7], m[7], " 50%")
		at("misspelt", m[4], m[5], ".lable = ")
		at("undeclared", m[2], m[3], "undeclared")
		at("twodots", m[4], m[5], ".label.x = ")
		at("reference", m[7], m[7], " %(nosuch)s")
	}
	if m := declLine.FindStringSubmatchIndex(s); m != nil {
		at("instcomma", m[1], m[1], "\n"+s[m[2]:m[3]]+".instances = a,b")
		at("badregex", m[1], m[1], "\n"+s[m[2]:m[3]]+".instances = (x")
		at("noinst", m[1], m[1], "\n"+s[m[2]:m[3]]+".instances = nosuchinstance")
		at("brokenreal", m[1], m[1], "\nrealname = hinv.ncpu\nrealname.formula = 1 +")
		at("verboseunit", m[1], m[1], "\n"+s[m[2]:m[3]]+".unit = MB")
		at("verboserawunit", m[1], m[1], "\n"+s[m[2]:m[3]]+".unit = millisec\n"+s[m[2]:m[3]]+".type = raw")
	}
	if m := indomMetric.FindStringSubmatchIndex(s); m != nil {
		at("nomatch", m[6], m[7], s[m[6]:m[7]]+",nosuchinstance")
	}
	return out
}
