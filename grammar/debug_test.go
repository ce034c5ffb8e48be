package grammar

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// loadPhase is what libpcp printed under PCP_DEBUG=derive before pminfo
// began to look up the names it was asked for: the lines of loading the
// config (DeriveDebug's).
func loadPhase(stderr string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "__dm") || strings.HasPrefix(l, "bind_expr") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// TestDeriveDebugAcrossReleases: DeriveDebug prints what each release's
// libpcp prints with PCP_DEBUG=derive while it loads a config: the
// configs under testdata/config, configs with #control lines (and
// $PCP_DERIVED_CONTROL set), and 20 generated sequences of definitions.
func TestDeriveDebugAcrossReleases(t *testing.T) {
	type tc struct {
		name, env string
		src       []byte
	}
	var cases []tc
	paths, err := filepath.Glob("testdata/config/*.conf")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test configs: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{name: filepath.Base(p), src: src})
	}
	for i, conf := range controlConfigs {
		cases = append(cases, tc{name: fmt.Sprintf("ctl%d.conf", i), src: []byte(conf)})
		cases = append(cases, tc{name: fmt.Sprintf("ctlenv%d.conf", i), env: "option_novalue=1,bad=2,global_limit=100", src: []byte(conf)})
	}
	rng := rand.New(rand.NewPCG(20261129, 9))
	for i := range 20 {
		cases = append(cases, tc{name: fmt.Sprintf("seq%d.conf", i), src: []byte(staleSequence(rng, 8))})
	}
	for _, r := range oracle.ReleasesFor(t) {
		lines := 0
		for _, c := range cases {
			re := r.With("PCP_DEBUG=derive")
			opts := Options{Version: r.Version}
			if c.env != "" {
				re = re.With("PCP_DERIVED_CONTROL=" + c.env)
				opts.DerivedControl = &c.env
			}
			stderr, err := re.ConfigMessages(t.Context(), c.name, c.src)
			if err != nil {
				t.Fatal(err)
			}
			want := loadPhase(stderr)
			got := strings.Join(DeriveDebug([]*File{ParseConfig(c.name, c.src, opts)}), "\n") + "\n"
			if got != want {
				t.Errorf("%s, %s (PCP_DERIVED_CONTROL=%q):\nlibpcp prints:\n%s\nwe print:\n%s", r, c.name, c.env, want, got)
			}
			lines += strings.Count(want, "\n")
		}
		t.Logf("%s: %d configs, %d lines: compared", r, len(cases), lines)
	}
}
