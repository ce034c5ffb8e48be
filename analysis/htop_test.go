package analysis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

// TestHtop checks pcp-htop files through the one pipeline: each input is
// a path and its text, in the order given (as check gets them from a
// directory); want lists every finding of every file as
// "FILE L:C CODE", with "!" after the code when the finding carries
// pcp-htop's words (--format pcp), and "fix=TEXT" when it has a fix.
func TestHtop(t *testing.T) {
	const (
		meter  = "/etc/pcp/htop/meters/load"
		meter2 = "/etc/pcp/htop/meters/more"
		column = "/etc/pcp/htop/columns/rss"
	)
	tests := []struct {
		name    string
		version pcpver.Version
		inputs  []string // path, text, path, text, ...
		want    []string
	}{
		{"broken expression at its column, misspelt colour with its fix", pcpver.V6_0_3,
			[]string{meter, "[load]\ncaption = Load\nl.metric = kernel.all.load +\nl.color = Red\n"},
			[]string{meter + " 3:28 syntax !", meter + " 4:11 htop-unknown-color fix=red"}},
		{"a checker finding lands on the value's column", pcpver.V6_0_3,
			[]string{meter, "[load]\n  l.metric =   2 * kernel.all.lod\n"},
			[]string{meter + " 2:20 unknown-metric fix=kernel.all.load fix=kernel.all.hz"}},
		{"an unknown operand is novalue() from 7.1.1 (PCP_DERIVED_OPTION_NOVALUE)", pcpver.V7_2_2,
			[]string{meter, "[load]\nl.metric = 2 * kernel.all.lod\n"},
			nil},
		{"one run across files: the first meter of a name wins", pcpver.V7_2_2,
			[]string{meter, "[load]\nl.metric = kernel.all.load\n", meter2, "[load]\nl.metric = hinv.ncpu +\n"},
			[]string{meter2 + " 1:2 htop-duplicate-section"}},
		{"pcp-htop reads meters first and stops at the first fatal", pcpver.V7_2_2,
			[]string{column, "[rss]\nmetric = proc.psinfo.rss *\n", meter, "[load]\nl.metric = kernel.all.load +\n"},
			[]string{column + " 2:26 syntax", meter + " 2:28 syntax !"}},
		{"a NUL byte is the reader's, not a binary derived config", pcpver.V7_2_2,
			[]string{meter, "[load]\nl.metric = kernel.all.load\x00\nl.color = red\n"},
			[]string{meter + " 2:27 htop-nul-byte"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := embeddedConfig(t)
			cfg.Version = VersionChoice{Version: tc.version}
			var inputs []Input
			for i := 0; i < len(tc.inputs); i += 2 {
				inputs = append(inputs, Buffer(tc.inputs[i], []byte(tc.inputs[i+1])))
			}
			res := Run(context.Background(), inputs, cfg, Options{})
			var got []string
			for _, f := range res.Files {
				if f.HtopFile() == nil || !f.ToolFile() {
					t.Errorf("%s: not read as a pcp-htop file", f.File.Path)
				}
				for _, d := range f.Findings.Slice() {
					s := fmt.Sprintf("%s %d:%d %s", f.File.Path, d.Range.Start.Line, d.Range.Start.Col, d.Code)
					if len(d.PCP) > 0 {
						s += " !"
					}
					for _, fix := range d.Fixes {
						s += " fix=" + fix.Edits[0].NewText
					}
					got = append(got, s)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestHtopFatalText: the expression pcp-htop cannot register gets
// pcp-htop's own fatal text around libpcp's error, as --format pcp
// prints it.
func TestHtopFatalText(t *testing.T) {
	cfg := embeddedConfig(t)
	cfg.Version = VersionChoice{Version: pcpver.V6_0_3}
	in := Buffer("/x/mymeter", []byte("[load]\nl.metric = kernel.all.load +\n"))
	in.Kind = toolconf.Htop // check --kind htop: a file outside htop's directories is a meter
	res := Run(context.Background(), []Input{in}, cfg, Options{})
	want := []string{
		"pcp-htop: failed to parse expression in /x/mymeter at line 2",
		`Error: pmRegisterDerivedMetric("htop.meter.load.l", ...)`,
		"kernel.all.load +",
		"                ^",
		"Arithmetic expression expected to follow PLUS",
		"",
		"pcp-htop: Invalid argument",
	}
	got := res.Files[0].Findings.Slice()
	if len(got) != 1 || !slices.Equal(got[0].PCP, want) {
		t.Fatalf("got %+v", got)
	}
}

// TestHtopAutoDerived: an htop expression may name a metric of the
// derived configs libpcp loads on its own (Config.ToolDerived), as
// pcp-htop's libpcp does (alone: 6.2.2+ refuses one inside another).
func TestHtopAutoDerived(t *testing.T) {
	cfg := embeddedConfig(t)
	cfg.Version = VersionChoice{Version: pcpver.V6_3_8} // nested derived metrics work, no novalue option yet
	meter := Buffer("/etc/pcp/htop/meters/m", []byte("[m]\nx.metric = my.site.cpus\n"))
	if got := Run(context.Background(), []Input{meter}, cfg, Options{}).Files[0].Findings.Slice(); len(got) != 1 || got[0].Code != "unknown-metric" {
		t.Fatalf("without the derived config: %s", findingLines(got))
	}
	cfg.ToolDerived = []Input{Buffer("/var/lib/pcp/config/derived/site.conf", []byte("my.site.cpus = hinv.ncpu\n"))}
	if got := Run(context.Background(), []Input{meter}, cfg, Options{}).Files[0].Findings.Slice(); len(got) != 0 {
		t.Fatalf("with the derived config: %s", findingLines(got))
	}
}
