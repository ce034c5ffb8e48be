package grammar

import (
	"slices"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

func TestParseConfigsCarriesState(t *testing.T) {
	files := ParseConfigs([]Source{
		{Path: "a.conf", Src: []byte("m.x = 1\nm.y = matchinst(/a/, x\n")},
		{Path: "b.conf", Src: []byte("m.x = 2\nm.z = 4 / 2\n")},
	}, pcpver.V6_0_3)
	var codes []string
	for _, d := range files[1].Diagnostics {
		codes = append(codes, d.Code+": "+d.PCP[len(d.PCP)-1])
	}
	want := []string{"duplicate-name: Duplicate global derived metric name", "syntax: unterminated pattern"}
	if !slices.Equal(codes, want) {
		t.Errorf("second file: %q, want %q", codes, want)
	}
}

func TestSplitConfigPath(t *testing.T) {
	if got := SplitConfigPath("a::b:/c/d:"); !slices.Equal(got, []string{"a", "b", "/c/d"}) {
		t.Errorf("got %q", got)
	}
}
