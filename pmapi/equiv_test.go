package pmapi

import (
	"fmt"
	"strings"
	"testing"
)

func indom(d, s uint32) InDom { return InDom(d<<22 | s) }

func TestParseIndomConfig(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		equiv      [][2]InDom // pairs that must be equivalent
		not        [][2]InDom // pairs that must not
		sets       int
		problems   []string // "LINE:warning|error:substring"
	}{
		{name: "empty", text: "", sets: 0},
		{name: "one set", text: "60.1 60.2 60.3\n", sets: 1,
			equiv: [][2]InDom{{indom(60, 1), indom(60, 3)}, {indom(60, 2), indom(60, 1)}},
			not:   [][2]InDom{{indom(60, 1), indom(60, 4)}}},
		{name: "comments and blank lines", text: "# disks\n\n  60.1\t60.2\n# nets\n60.3 60.4\n", sets: 2,
			equiv: [][2]InDom{{indom(60, 3), indom(60, 4)}}, not: [][2]InDom{{indom(60, 1), indom(60, 3)}}},
		{name: "wildcard", text: "60.* 29.2\n", sets: 1,
			equiv: [][2]InDom{{indom(60, 7), indom(29, 2)}, {indom(60, 7), indom(60, 9)}}, not: [][2]InDom{{indom(29, 2), indom(29, 3)}}},
		{name: "trailing blank runs on", text: "60.1 60.2 \n60.3\n", sets: 1,
			equiv: [][2]InDom{{indom(60, 1), indom(60, 3)}}, problems: []string{"1:warning:runs on"}},
		{name: "trailing comment runs on", text: "60.1 # disks\n60.3\n", sets: 1,
			equiv: [][2]InDom{{indom(60, 1), indom(60, 3)}}, problems: []string{"1:warning:runs on"}},
		{name: "no final newline", text: "60.1 60.2\n60.3 60.4", sets: 1,
			not: [][2]InDom{{indom(60, 3), indom(60, 4)}}, problems: []string{"2:warning:not ended"}},
		{name: "bad character voids everything", text: "60.1 60.2\nx.1\n", sets: 0,
			not: [][2]InDom{{indom(60, 1), indom(60, 2)}}, problems: []string{"2:error:<domain> expected, found 'x'"}},
		{name: "domain too big", text: "512.1 60.1\n", sets: 0, problems: []string{"1:error:<domain> 512 too big"}},
		{name: "domain too long", text: "0600.1\n", sets: 0, problems: []string{"1:error:too long"}},
		{name: "serial too big", text: "60.4194304 60.1\n", sets: 0, problems: []string{"1:error:<serial> 4194304 too big"}},
		{name: "serial too long", text: "60.12345678\n", sets: 0, problems: []string{"1:error:<serial> 1234567"}},
		{name: "missing dot", text: "60 61\n", sets: 0, problems: []string{"1:error:'.' expected after <domain> 60"}},
		{name: "missing serial", text: "60. 61.1\n", sets: 0, problems: []string{"1:error:digit or '*' expected"}},
		{name: "junk after serial", text: "60.1x\n", sets: 0, problems: []string{"1:error:newline or whitespace expected"}},
		{name: "junk after wildcard", text: "60.*1\n", sets: 0, problems: []string{"1:error:newline or whitespace expected"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, problems := ParseIndomConfig(strings.NewReader(tc.text), "indom.conf")
			if e.Len() != tc.sets {
				t.Errorf("%d sets, want %d", e.Len(), tc.sets)
			}
			for _, p := range tc.equiv {
				if !e.Equivalent(p[0], p[1]) {
					t.Errorf("%v and %v not equivalent", p[0], p[1])
				}
			}
			for _, p := range tc.not {
				if e.Equivalent(p[0], p[1]) {
					t.Errorf("%v and %v equivalent", p[0], p[1])
				}
			}
			var got []string
			for _, p := range problems {
				kind := "error"
				if p.Warning {
					kind = "warning"
				}
				got = append(got, fmt.Sprintf("%d:%s:%s", p.Line, kind, p.Msg))
			}
			if len(got) != len(tc.problems) {
				t.Fatalf("problems %q, want %q", got, tc.problems)
			}
			for i, want := range tc.problems {
				parts := strings.SplitN(want, ":", 3)
				if !strings.HasPrefix(got[i], parts[0]+":"+parts[1]+":") || !strings.Contains(got[i], parts[2]) {
					t.Errorf("problem %q, want %q", got[i], want)
				}
			}
		})
	}
	var none *InDomEquivalence
	if none.Equivalent(indom(1, 1), indom(1, 1)) {
		t.Error("nil equivalence says equivalent")
	}
}

func FuzzParseIndomConfig(f *testing.F) {
	for _, s := range []string{"60.1 60.2\n", "60.* 29.2\n# c\n", "512.1\n", "60.1 #x\n60.2\n", "60.12345678\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, _ := ParseIndomConfig(strings.NewReader(s), "fuzz")
		e.Equivalent(indom(60, 1), indom(60, 2))
	})
}
