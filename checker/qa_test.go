package checker

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/txtar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// qaCase is one case of testdata/qa.txtar.
type qaCase struct {
	name  string
	conf  string
	env   *string // $PCP_DERIVED_CONTROL, nil when unset
	since pcpver.Version
	until *pcpver.Version // the last release that behaves so; nil: all since
	want  string          // the .want section after its "since" line
}

// applies reports whether the case holds for release v.
func (c qaCase) applies(v pcpver.Version) bool {
	return !v.Less(c.since) && (c.until == nil || !c.until.Less(v))
}

// releasesLine is the .want section's first line.
func (c qaCase) releasesLine() string {
	if c.until != nil {
		return "since " + c.since.String() + " until " + c.until.String()
	}
	return "since " + c.since.String()
}

func readQACases(t *testing.T) (*txtar.Archive, []qaCase) {
	t.Helper()
	a, err := txtar.ReadFile("testdata/qa.txtar")
	if err != nil {
		t.Fatal(err)
	}
	m := a.Map()
	var cases []qaCase
	for _, f := range a.Files {
		name, ok := strings.CutSuffix(f.Name, ".conf")
		if !ok {
			continue
		}
		c := qaCase{name: name, conf: f.Data}
		if env, ok := m[name+".env"]; ok {
			env = strings.TrimSuffix(env, "\n")
			c.env = &env
		}
		first, rest, _ := strings.Cut(m[name+".want"], "\n")
		v, ok := strings.CutPrefix(first, "since ")
		v, until, hasUntil := strings.Cut(v, " until ")
		if c.since, err = pcpver.Parse(v); !ok || err != nil {
			t.Fatalf("%s.want: first line %q, want \"since RELEASE [until RELEASE]\"", name, first)
		}
		if hasUntil {
			u, err := pcpver.Parse(until)
			if err != nil {
				t.Fatalf("%s.want: %v", name, err)
			}
			c.until = &u
		}
		c.want = rest
		cases = append(cases, c)
	}
	return a, cases
}

// qaNames are the names a case's config defines, in order.
func qaNames(conf string) []string {
	var names []string
	for _, l := range strings.Split(conf, "\n") {
		if name, _, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") && !slices.Contains(names, strings.TrimSpace(name)) {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

// qaOutcome is a case's .want body: what loading the config printed,
// then what pminfo -d says of each name, the descriptor on one line.
func qaOutcome(stderr string, verdicts map[string]string, names []string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(&b, "! %s\n", l)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %s\n", n, strings.Join(strings.Fields(verdicts[n]), " "))
	}
	return b.String()
}

// ours is what our reading and checking of the case print and say.
func (c qaCase) ours(t *testing.T, v pcpver.Version, src pmclient.Source) string {
	t.Helper()
	f := grammar.ParseConfig(c.name+".conf", []byte(c.conf), grammar.Options{Version: v, DerivedControl: c.env})
	var stderr strings.Builder
	for _, d := range f.Diagnostics {
		for _, l := range d.PCP {
			stderr.WriteString(l + "\n")
		}
	}
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	names := qaNames(c.conf)
	verdicts := map[string]string{}
	for _, n := range names {
		verdicts[n] = "absent"
		if m := rep.ByName.Metric(n); m != nil {
			verdicts[n] = ourDescribe(m, v)
		}
	}
	return qaOutcome(stderr.String(), verdicts, names)
}

// libpcp is what release r's pminfo prints and says of the case.
func (c qaCase) libpcp(t *testing.T, r oracle.Release) string {
	t.Helper()
	if c.env != nil {
		r = r.With("PCP_DERIVED_CONTROL=" + *c.env)
	}
	stderr, err := r.ConfigMessages(context.Background(), c.name+".conf", []byte(c.conf))
	if err != nil {
		t.Fatal(err)
	}
	names := qaNames(c.conf)
	verdicts, _, err := r.Describe(context.Background(), c.conf, names)
	if err != nil {
		t.Fatal(err)
	}
	return qaOutcome(stderr, verdicts, names)
}

// TestQACases: the cases we wrote from reading PCP's QA tests for derived
// metrics (testdata/qa.txtar: configs, $PCP_DERIVED_CONTROL, what libpcp
// prints and does) hold for every release since each case's first, and
// for our model of each of those releases. -update writes the .want
// sections from the newest release each case applies to.
func TestQACases(t *testing.T) {
	src := livePmcd(t)
	a, cases := readQACases(t)
	releases := oracle.ReleasesFor(t)
	if golden.Update() {
		for _, c := range cases {
			var newest oracle.Release
			for _, r := range releases {
				if c.applies(r.Version) {
					newest = r
				}
			}
			got := c.releasesLine() + "\n" + c.libpcp(t, newest)
			for i := range a.Files {
				if a.Files[i].Name == c.name+".want" {
					a.Files[i].Data = got
				}
			}
		}
		if err := os.WriteFile("testdata/qa.txtar", []byte(a.Format()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, r := range releases {
		ran, differ := 0, 0
		for _, c := range cases {
			if !c.applies(r.Version) {
				continue
			}
			ran++
			if got := c.libpcp(t, r); got != c.want {
				differ++
				t.Errorf("%s, case %s: libpcp:\n%s\nthe table says:\n%s", r, c.name, got, c.want)
			}
			if got := c.ours(t, r.Version, src); got != c.want {
				differ++
				t.Errorf("%s, case %s: we:\n%s\nthe table says:\n%s", r, c.name, got, c.want)
			}
		}
		t.Logf("%s: %d of %d QA cases apply: %d differ", r, ran, len(cases), differ)
	}
}
