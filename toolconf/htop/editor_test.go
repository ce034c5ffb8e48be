package htop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestEditorWords: every key and attribute Rules.Keys offers for a kind
// is one the reader accepts in that release, every MeterColors value a
// colour it accepts, and a word outside them is reported: what the
// editor completes is what pcp-htop reads.
func TestEditorWords(t *testing.T) {
	for _, v := range []pcpver.Version{{Major: 6, Minor: 0, Patch: 3}, {Major: 6, Minor: 3, Patch: 8}, {Major: 7, Minor: 2, Patch: 2}} {
		r := RulesFor(v)
		for _, kind := range []Kind{Meter, Column, Screen} {
			if !r.Reads(kind) {
				continue
			}
			keys, attrs := r.Keys(kind)
			var lines []string
			for _, k := range keys {
				lines = append(lines, k+" = 1")
			}
			for i, a := range attrs {
				value := "1"
				if a == "color" {
					value = "red"
				}
				lines = append(lines, fmt.Sprintf("x%d.%s = %s", i, a, value))
			}
			if kind == Meter {
				for i, c := range MeterColors {
					lines = append(lines, fmt.Sprintf("c%d.color = %s", i, c))
				}
			}
			good := "[s]\n" + strings.Join(lines, "\n") + "\n"
			for _, p := range Read(v, kind, "f", []byte(good)).Problems {
				if p.Code == codes.HtopUnknownKey || p.Code == codes.HtopUnknownColor {
					t.Errorf("%s %s: the editor offers what the reader refuses: %s", v, kind, p.Message)
				}
			}
			bad := "[s]\nnosuchkey = 1\n"
			if attrs != nil {
				bad += "x.nosuchattr = 1\n"
			}
			found := 0
			for _, p := range Read(v, kind, "f", []byte(bad)).Problems {
				if p.Code == codes.HtopUnknownKey {
					found++
				}
			}
			if want := strings.Count(bad, "nosuch"); found != want {
				t.Errorf("%s %s: %d unknown-key findings for %q, want %d", v, kind, found, bad, want)
			}
		}
	}
}
