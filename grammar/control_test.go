package grammar

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// derivedControlCases are $PCP_DERIVED_CONTROL values: accepted ones,
// each way libpcp refuses an item, and several items.
var derivedControlCases = []string{
	"option_novalue=1",
	"OPTION_NOV=1",
	"option_novalue=0",
	"badoption=1",
	"option_novalue",
	"option_novalue=",
	"option_novalue=2",
	"option_novalue=1 ",
	"option_novalue=1x",
	"context_limit=5",
	"context_limit=0",
	"global_limit=0",
	"global_limit=50,debug_eval=3,option_novalue=1",
	"option_novalue=1,bad=1,x",
	"bad=1,option_novalue=1",
	",option_novalue=1",
	"=1",
	"",
}

// controlConfigs are configs whose #control lines meet what the
// environment set: the same value, another, and controls it left alone.
var controlConfigs = []string{
	"#control option_novalue=0\nx = no.such.metric + 1\n",
	"#control option_novalue=1\nx = sample.long.one\n",
	"#control global_limit=7,option_novalue=0,debug_eval=0\nx = 1\n",
	"#control global_limit=50\n#control debug_eval=0\nx = 1\n",
	"x = 1\n",
}

// TestDerivedControlAcrossReleases: with $PCP_DERIVED_CONTROL set, every
// release prints what we print loading each config: 7.1.1 and later warn
// about the variable's items first, and a #control line that would change
// what it set is refused; older releases ignore it.
func TestDerivedControlAcrossReleases(t *testing.T) {
	for _, r := range oracle.ReleasesFor(t) {
		n := 0
		for _, env := range derivedControlCases {
			re := r.With("PCP_DERIVED_CONTROL=" + env)
			for i, conf := range controlConfigs {
				name := fmt.Sprintf("env%d.conf", i)
				want, err := re.ConfigMessages(t.Context(), name, []byte(conf))
				if err != nil {
					t.Fatal(err)
				}
				got := pcpLines(ParseConfig(name, []byte(conf), Options{Version: r.Version, DerivedControl: &env}))
				if got != want {
					t.Errorf("%s, PCP_DERIVED_CONTROL=%q, %q:\nlibpcp prints:\n%s\nwe print:\n%s", r, env, conf, want, got)
				}
				n++
			}
		}
		t.Logf("%s: %d environments × configs: compared", r, n)
	}
}

// TestDerivedControlSetsNovalue: what the environment sets is the file's
// option_novalue, whatever its #control lines say, and its findings name
// the variable; a release without controls ignores it.
func TestDerivedControlSetsNovalue(t *testing.T) {
	on := "option_novalue=1,bad=2"
	for _, tc := range []struct {
		v       pcpver.Version
		conf    string
		novalue string // "" for nil
		msgs    []string
	}{
		{pcpver.V7_2_2, "x = 1\n", "true", []string{`$PCP_DERIVED_CONTROL: unknown derived metric control "bad"`}},
		{pcpver.V7_2_2, "#control option_novalue=0\nx = 1\n", "true", []string{`$PCP_DERIVED_CONTROL: unknown`, "libpcp cannot set option_novalue=0: Try again"}},
		{pcpver.V7_0_2, "x = 1\n", "", nil},
	} {
		f := ParseConfig("c.conf", []byte(tc.conf), Options{Version: tc.v, DerivedControl: &on})
		got := ""
		if f.OptionNovalue != nil {
			got = fmt.Sprint(*f.OptionNovalue)
		}
		if got != tc.novalue {
			t.Errorf("%s, %q: option_novalue %q, want %q", tc.v, tc.conf, got, tc.novalue)
		}
		if len(f.Diagnostics) != len(tc.msgs) {
			t.Fatalf("%s, %q: %d findings, want %d: %+v", tc.v, tc.conf, len(f.Diagnostics), len(tc.msgs), f.Diagnostics)
		}
		for i, d := range f.Diagnostics {
			if !strings.HasPrefix(d.Message, tc.msgs[i]) {
				t.Errorf("%s, %q: finding %d is %q, want it to start %q", tc.v, tc.conf, i, d.Message, tc.msgs[i])
			}
		}
	}
	// A path of two files: the environment is read once, before the first.
	files := ParseConfigsWith([]Source{{Path: "a.conf", Src: []byte("x = 1\n")}, {Path: "b.conf", Src: []byte("#control option_novalue=0\ny = 1\n")}},
		Options{Version: pcpver.V7_2_2, DerivedControl: &on})
	if len(files[0].Diagnostics) != 1 || len(files[1].Diagnostics) != 1 || !strings.Contains(files[1].Diagnostics[0].Message, "Try again") {
		t.Errorf("path: %+v / %+v, want the variable's warning on the first file and the refusal on the second", files[0].Diagnostics, files[1].Diagnostics)
	}
}
