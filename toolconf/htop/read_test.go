package htop

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// summary renders what a file read gives, one item a line: each
// expression as "L:C NAME = TEXT" (C the column of its first byte, "skip"
// when htop never registers it) and each problem as "L:C CODE" ("!" when
// fatal).
func summary(f *File) string {
	var b strings.Builder
	for _, e := range f.Exprs {
		l, c := f.Position(e.Off)
		skip := ""
		if e.Skip {
			skip = " skip"
		}
		fmt.Fprintf(&b, "%d:%d %s = %s%s\n", l, c, e.Name, e.Text, skip)
	}
	for _, p := range f.Problems {
		l, c := f.Position(p.Off)
		bang := ""
		if p.Fatal {
			bang = "!"
		}
		fmt.Fprintf(&b, "%d:%d %s%s\n", l, c, p.Code, bang)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	v6, v7 := pcpver.V6_0_3, pcpver.V7_2_2
	tests := []struct {
		name string
		v    pcpver.Version
		kind Kind
		src  string
		want string
	}{
		{"meter", v7, Meter, "# c\n[load]\ncaption = Load\nl.metric = kernel.all.load\nl.color = red\nl.label = one\n",
			"4:12 htop.meter.load.l = kernel.all.load\n"},
		{"first = split", v7, Meter, "[t]\none.metric = a == 1 ? 2 : 3\n",
			"2:14 htop.meter.t.one = a == 1 ? 2 : 3\n"},
		{"every = split", v6, Meter, "[t]\none.metric = a == 1 ? 2 : 3\n",
			"2:14 htop.meter.t.one = a\n2:16 htop-value-cut\n"},
		{"empty piece", v6, Meter, "[t]\none.metric = =a\n",
			"2:14 htop.meter.t.one = \n2:14 htop-value-cut\n"},
		{"no value", v7, Meter, "[t]\none.metric = a\ntotal.color: blue\nx.label =\n",
			"2:14 htop.meter.t.one = a\n3:1 htop-no-value\n4:1 htop-no-value\n"},
		{"colour", v7, Meter, "[t]\none.metric = a\none.color = Red\n",
			"2:14 htop.meter.t.one = a\n3:13 htop-unknown-color\n"},
		{"unknown keys", v7, Meter, "[t]\none.metric = a\none.colour = red\nlabel = x\n",
			"2:14 htop.meter.t.one = a\n3:5 htop-unknown-key\n4:1 htop-unknown-key\n"},
		{"slot without metric", v7, Meter, "[t]\none.metric = a\ntwo.label = b\n",
			"2:14 htop.meter.t.one = a\n3:1 htop-no-metric\n"},
		{"meter without metrics", v7, Meter, "[t]\ncaption = T\n", "1:1 htop-no-metric\n"},
		{"duplicate metric", v7, Meter, "[t]\none.metric = a\none.metric = @\n",
			"2:14 htop.meter.t.one = a\n3:14 htop.meter.t.one = @ skip\n3:1 htop-duplicate-metric!\n"},
		{"bad names", v7, Meter, "[disk-io]\nr.metric = a\n[open\n[ok]\nr.metric = b\n",
			"5:12 htop.meter.ok.r = b\n1:6 htop-bad-name\n3:1 htop-bad-name\n"},
		{"duplicate section", v7, Meter, "[a]\nr.metric = x\n[a]\nr.metric = y\n",
			"2:12 htop.meter.a.r = x\n3:2 htop-duplicate-section\n"},
		{"outside", v7, Meter, "r.metric = x\n", "1:1 htop-no-sections\n1:1 htop-outside-section\n"},
		{"long name", v7, Meter, "[abcdefghijklmnopqrstuvwxyz0123456789]\nr.metric = x\n",
			"2:12 htop.meter.abcdefghijklmnopqrstuvwxyz01234.r = x\n1:2 htop-long-name\n"},
		{"long names clash", v7, Meter, "[abcdefghijklmnopqrstuvwxyz0123456789]\nr.metric = x\n[abcdefghijklmnopqrstuvwxyz01234XYZ]\nr.metric = y\n",
			"2:12 htop.meter.abcdefghijklmnopqrstuvwxyz01234.r = x\n4:12 htop.meter.abcdefghijklmnopqrstuvwxyz01234.r = y skip\n1:2 htop-long-name\n3:2 htop-long-name\n4:1 htop-duplicate-metric!\n"},
		{"empty name", v7, Meter, "[]\nr.metric = x\n", "2:12 htop.meter..r = x\n1:1 htop-empty-name\n"},
		{"inert", v7, Meter, "[t]\ntype=bar\nmaximum = 3\ntype = led\nr.metric = x\n",
			"5:12 htop.meter.t.r = x\n2:1 htop-inert-key\n3:1 htop-inert-key\n4:1 htop-duplicate-key\n4:8 htop-inert-key\n"},
		{"column", v7, Column, "[rss]\nheading = RSS\nwidth = -8\nmetric = proc.psinfo.rss\nformat = process\ninstances = true\ndefault = false\n",
			"4:10 htop.column.rss = proc.psinfo.rss\n"},
		{"column 6.0.3 keys", v6, Column, "[rss]\nmetric = m\nformat = process\nwidth = 40\n",
			"2:10 htop.column.rss = m\n3:1 htop-unknown-key\n4:9 htop-bad-width\n"},
		{"column values", v7, Column, "[rss]\nmetric = m\nformat = percentage\nwidth = 8px\ninstances = yes\nenabled = no\n",
			"2:10 htop.column.rss = m\n3:10 htop-bad-value\n4:9 htop-bad-width\n5:13 htop-bad-value\n6:11 htop-bad-value\n"},
		{"column without metric", v7, Column, "[c]\nheading = C\n", "1:1 htop-no-metric\n"},
		{"column reset 7.2", v7, Column, "[a]\nmetric = x\n[a]\nmetric = y\n",
			"2:10 htop.column.a = x\n3:2 htop-duplicate-section\n"},
		{"column leak 6.0", v6, Column, "[a]\nmetric = x\n[a]\nmetric = y\n",
			"2:10 htop.column.a = x\n4:10 htop.column.a = y skip\n3:2 htop-duplicate-section\n4:1 htop-duplicate-metric!\n"},
		{"column leak fills", v6, Column, "[a]\nheading = A\n[b-c]\nmetric = y\n",
			"4:10 htop.column.a = y\n3:3 htop-bad-name\n"},
		{"empty column name", v7, Column, "[]\nmetric = y\n", "1:1 htop-empty-name\n"},
		{"screen", v7, Screen, "[s]\nheading = S\ncaption = Screen\npid.metric = proc.psinfo.pid\npid.width = 7\nname.metric = proc.psinfo.cmd\nname.format = command\nname.heading = Name\n",
			"4:14 htop.screen.s.pid = proc.psinfo.pid\n6:15 htop.screen.s.name = proc.psinfo.cmd\n"},
		{"screen long column 7", v7, Screen, "[processes_by_state]\nthe_process_identifier.metric = p\n",
			"2:33 htop.screen.processes_by_state.the_process_identifier = p skip\n2:1 htop-screen-column-name\n1:1 htop-no-metric\n"},
		{"screen long column 6.3", pcpver.V6_3_8, Screen, "[processes_by_state]\nthe_process_identifier.metric = p\n",
			"2:33 htop.screen.processes_by_state.the_process_identifier = p skip\n2:1 htop-screen-column-name!\n1:1 htop-no-metric\n"},
		{"screen keys", v7, Screen, "[s]\nsortDirection = up\ndefault = yes\nsort = x\npid.metric = p\npid.heding = P\n",
			"5:14 htop.screen.s.pid = p\n2:17 htop-bad-value\n3:11 htop-bad-value\n4:1 htop-unknown-key\n6:5 htop-unknown-key\n"},
		{"screens not read", v6, Screen, "[s]\npid.metric = p\n", "1:1 htop-not-read\n"},
		{"nothing before 5.3.2", pcpver.V5_2_6, Meter, "[t]\na.metric = x\n", "1:1 htop-not-read\n"},
		{"crlf", v7, Meter, "[t]\r\na.metric = x\r\na.color = red\r\n",
			"2:12 htop.meter.t.a = x\r\n3:11 htop-unknown-color\n"},
		{"nul swallows a line", v7, Meter, "[m]\na.metric = x\x00zz\nb.metric = @\nc.metric = y\n",
			"2:12 htop.meter.m.a = x\n4:12 htop.meter.m.c = y\n2:13 htop-nul-byte\n"},
		{"lost last line", v7, Meter, "[m]\na.metric = x\n" + strings.Repeat("#", 1024), "2:12 htop.meter.m.a = x\n3:1 htop-lost-line\n"},
		{"long line kept", v7, Meter, "[m]\na.metric = x" + strings.Repeat(" ", 2000) + "+ 1\n", "2:12 htop.meter.m.a = x" + strings.Repeat(" ", 2000) + "+ 1\n"},
		{"header with =", v7, Meter, "[m] = x\na.metric = x\n", "2:12 htop.meter.m.a = x\n"},
		{"header cut at =", v7, Meter, "[m=1]\na.metric = x\n", "1:1 htop-bad-name\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Read(tc.v, tc.kind, "/x/"+tc.kind.Dir()+"/f", []byte(tc.src))
			if got := summary(f); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			for _, e := range f.Exprs {
				if got := string(f.Src[e.Offset(0):e.Offset(len(e.Text))]); got != e.Text {
					t.Errorf("%s: file bytes %q, text %q", e.Name, got, e.Text)
				}
			}
		})
	}
}

// TestReaderOrder: across files the first section of a name wins, and a
// metric registered again in a later file is fatal there.
func TestReaderOrder(t *testing.T) {
	r := NewReader(pcpver.V6_3_8)
	user := r.Read(Column, "/home/u/.config/htop/columns/mine", []byte("[vmstack]\nmetric = 1\n"))
	shipped := r.Read(Column, "/usr/share/pcp/htop/columns/memory", []byte("[vmdata]\nmetric = proc.memory.vmdata\n[vmstack]\nmetric = proc.memory.vmstack\n"))
	if got := summary(user); got != "2:10 htop.column.vmstack = 1\n" {
		t.Errorf("user file:\n%s", got)
	}
	want := "2:10 htop.column.vmdata = proc.memory.vmdata\n4:10 htop.column.vmdata = proc.memory.vmstack skip\n3:2 htop-duplicate-section\n4:1 htop-duplicate-metric!\n"
	if got := summary(shipped); got != want {
		t.Errorf("shipped file:\n%s\nwant\n%s", got, want)
	}
	fatal := shipped.Problems[1].Htop
	wantFatal := []string{
		"pcp-htop: failed to parse expression in /usr/share/pcp/htop/columns/memory at line 4",
		`Error: pmRegisterDerivedMetric("htop.column.vmdata", ...)`, "proc.memory.vmstack", "^",
		"Duplicate global derived metric name", "", ": Invalid argument",
	}
	if !slices.Equal(fatal, wantFatal) {
		t.Errorf("htop's words:\n%q\nwant\n%q", fatal, wantFatal)
	}
}

func TestBadNameWords(t *testing.T) {
	f := Read(pcpver.V7_2_2, Meter, "/p/meters/m", []byte("\n[disk-io]\n[nope\n"))
	want := [][]string{
		{"pcp-htop: invalid meter name at /p/meters/m line 2", `"disk-io"`},
		{"pcp-htop: no closing brace on meter name at /p/meters/m line 3", `"nope"`},
	}
	for i, p := range f.Problems {
		if !slices.Equal(p.Htop, want[i]) {
			t.Errorf("problem %d: %q, want %q", i, p.Htop, want[i])
		}
	}
}

// TestCodesRegistered: every code the reader emits has a registry entry,
// and every entry is a code the reader emits.
func TestCodesRegistered(t *testing.T) {
	emitted := []string{codes.HtopNotRead, codes.HtopNoSections, codes.HtopOutsideSection, codes.HtopBadName, codes.HtopDuplicateSection, codes.HtopLongName, codes.HtopEmptyName,
		codes.HtopNoValue, codes.HtopValueCut, codes.HtopUnknownKey, codes.HtopUnknownColor, codes.HtopBadWidth, codes.HtopBadValue, codes.HtopInertKey, codes.HtopDuplicateKey,
		codes.HtopDuplicateMetric, codes.HtopNoMetric, codes.HtopScreenColumnName, codes.HtopNulByte, codes.HtopLostLine}
	var registered []string
	for _, c := range htopCodes() {
		registered = append(registered, c.Code)
		if c.Summary == "" || c.Behaviour == "" || c.FixNote == "" || (c.Example == "" && c.NoExample == "") {
			t.Errorf("%s: incomplete entry", c.Code)
		}
	}
	slices.Sort(emitted)
	slices.Sort(registered)
	if !slices.Equal(emitted, registered) {
		t.Errorf("emitted %v\nregistered %v", emitted, registered)
	}
}

// TestCodeExamples: each example gets its code (for its release) and
// each fix does not.
func TestCodeExamples(t *testing.T) {
	for _, c := range htopCodes() {
		if c.Example == "" {
			continue
		}
		v := pcpver.Latest
		if c.Release != "" {
			var err error
			if v, err = pcpver.Parse(c.Release); err != nil {
				t.Fatal(err)
			}
		}
		kind := ExampleKind(c.Code)
		has := func(src string) bool {
			for _, p := range Read(v, kind, "/x/f", []byte(src)).Problems {
				if p.Code == c.Code {
					return true
				}
			}
			return false
		}
		if !has(c.Example) {
			t.Errorf("%s: the example does not get it", c.Code)
		}
		if c.Fix != "" && has(c.Fix) {
			t.Errorf("%s: the fix still gets it", c.Code)
		}
	}
}

// TestFixes: the findings with one right edit carry it, and the edit
// makes the finding go away.
func TestFixes(t *testing.T) {
	tests := []struct {
		kind      Kind
		src, want string
	}{
		{Meter, "[t]\none.metric = a\none.color = Red\n", "[t]\none.metric = a\none.color = red\n"},
		{Meter, "[t]\none.metric = a\none.colour = red\n", "[t]\none.metric = a\none.color = red\n"},
		{Meter, "[t]\none.metric = a\none.color: red\n", "[t]\none.metric = a\none.color = red\n"},
		{Column, "[c]\nmetric = a\nheadng = A\n", "[c]\nmetric = a\nheading = A\n"},
		{Column, "[c]\nmetric = a\nformat = Percent\n", "[c]\nmetric = a\nformat = percent\n"},
		{Screen, "[s]\npid.metric = a\npid.heding = P\n", "[s]\npid.metric = a\npid.heading = P\n"},
	}
	for _, tc := range tests {
		f := Read(pcpver.V7_2_2, tc.kind, "/x/f", []byte(tc.src))
		var fixes []*Fix
		for _, p := range f.Problems {
			if p.Fix != nil {
				fixes = append(fixes, p.Fix)
			}
		}
		if len(fixes) != 1 {
			t.Errorf("%q: %d fixes, want 1", tc.src, len(fixes))
			continue
		}
		fx := fixes[0]
		got := tc.src[:fx.Off] + fx.Text + tc.src[fx.End:]
		if got != tc.want {
			t.Errorf("%q fixed: %q, want %q", tc.src, got, tc.want)
		}
		if after := Read(pcpver.V7_2_2, tc.kind, "/x/f", []byte(got)); len(after.Problems) != 0 {
			t.Errorf("%q still has %s", got, summary(after))
		}
	}
}

// htopCodes are the registry's entries of the reader's codes.
func htopCodes() []codes.Info {
	var out []codes.Info
	for _, c := range codes.ByKind(codes.Tools) {
		if strings.HasPrefix(c.Code, "htop-") {
			out = append(out, c)
		}
	}
	return out
}
