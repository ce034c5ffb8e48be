package pmconfig

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestReadINI: configparser's rules as pmconfig sets them up, value by
// value, with the file offset every value starts at.
func TestReadINI(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      map[string]string // "section/key" → value
		codes     []string          // problems, in order
	}{
		{"delimiters", "[s]\na = 1\nb: 2\nc = x=y:z\n", map[string]string{"s/a": "1", "s/b": "2", "s/c": "x=y:z"}, nil},
		{"case kept", "[s]\nKey = 1\nkey = 2\n", map[string]string{"s/Key": "1", "s/key": "2"}, nil},
		{"no inline comments", "[s]\na = 8 # eight\n", map[string]string{"s/a": "8 # eight"}, nil},
		{"continuation", "[s]\na = one +\n    two\n\n  three\nb = 2\n", map[string]string{"s/a": "one +\ntwo\n\nthree", "s/b": "2"}, nil},
		{"comment inside a value", "[s]\na = x\n  # not part\n  y\n", map[string]string{"s/a": "x\ny"}, nil},
		{"value on the next line", "[s]\na =\n   x\n", map[string]string{"s/a": "\nx"}, nil},
		{"indented key swallowed", "[s]\nx = m\n  x.width = 8\n", map[string]string{"s/x": "m\nx.width = 8"}, nil},
		{"section name exact", "[ a ]\nk = v\n", map[string]string{" a /k": "v"}, nil},
		{"header to last bracket", "[a]b]\nk = v\n", map[string]string{"a]b/k": "v"}, nil},
		{"no header", "k = v\n[s]\n", nil, []string{"ini-syntax"}},
		{"bad line", "[s]\njunk\nk = v\n", map[string]string{"s/k": "v"}, []string{"ini-syntax"}},
		{"duplicate option", "[s]\nk = 1\nk = 2\n", map[string]string{"s/k": "1"}, []string{"ini-duplicate"}},
		{"duplicate section", "[s]\n[s]\n", nil, []string{"ini-duplicate"}},
		{"lone cr is a line break", "[s]\ra = 1\r\nb = 2\n", map[string]string{"s/a": "1", "s/b": "2"}, nil},
		{"not utf-8", "[s]\na = caf\xe9\n", map[string]string{"s/a": "caf\xe9"}, []string{"ini-encoding"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ReadINI("f.conf", []byte(tc.src))
			var codes []string
			for _, p := range f.Problems {
				codes = append(codes, p.Code)
			}
			if strings.Join(codes, " ") != strings.Join(tc.codes, " ") {
				t.Errorf("problems %v, want %v", codes, tc.codes)
			}
			for sk, want := range tc.want {
				sec, key, _ := strings.Cut(sk, "/")
				e := f.Section(sec).Get(key)
				if e == nil {
					t.Fatalf("no %s", sk)
				}
				if e.Value.Text != want {
					t.Errorf("%s = %q, want %q", sk, e.Value.Text, want)
				}
				if want != "" && want[0] != '\n' && tc.src[e.Value.Offset(0)] != want[0] {
					t.Errorf("%s starts at offset %d (%q), not at its first byte", sk, e.Value.Offset(0), tc.src[e.Value.Offset(0):])
				}
			}
		})
	}
}

// TestInterpolate: BasicInterpolation's answers and its errors.
func TestInterpolate(t *testing.T) {
	for _, tc := range []struct{ src, want, class string }{
		{"[s]\na = 50%%\n", "50%", ""},
		{"[s]\nb = x\na = %(b)s-%(b)s\n", "x-x", ""},
		{"[DEFAULT]\nb = d\n[s]\na = %(b)s\n", "d", ""},
		{"[s]\na = 50%\n", "", "InterpolationSyntaxError"},
		{"[s]\na = %(nope)s\n", "", "InterpolationMissingOptionError"},
		{"[s]\na = %(b\n", "", "InterpolationSyntaxError"},
		{"[s]\na = %(a)s\n", "", "InterpolationDepthError"},
	} {
		f := ReadINI("f.conf", []byte(tc.src))
		s := f.Section("s")
		v, err := f.Interpolate(s, s.Get("a"))
		switch {
		case tc.class != "" && (err == nil || err.Class != tc.class):
			t.Errorf("%q: error %v, want %s", tc.src, err, tc.class)
		case tc.class == "" && (err != nil || v.Text != tc.want):
			t.Errorf("%q: %q, %v; want %q", tc.src, v.Text, err, tc.want)
		}
	}
}

// TestFormulaColumns: a formula's syntax error lands on its column in
// the INI file, on the continuation line it is on.
func TestFormulaColumns(t *testing.T) {
	src := "[a]\nm = mm.r\nm.formula = 1 +\n   2 + )\n"
	d := Read("f.conf", grammar.NewText([]byte(src)), Options{Tool: Pmrep, Version: pcpver.V6_0_3})
	var got []grammar.Diagnostic
	for _, x := range d.File.Diagnostics {
		if x.Code == "syntax" {
			got = append(got, x)
		}
	}
	if len(got) != 1 || got[0].Range.Start != (grammar.Pos{Line: 4, Col: 8, Col16: 7}) {
		t.Fatalf("syntax findings %+v, want one at 4:8", got)
	}
	want := []string{"Failed to register derived metric:", `Impossible value or scale conversion Error: pmRegisterDerivedMetric("mm.r", ...)`,
		"1 +", "2 + )", "        ^", "Arithmetic expression expected to follow PLUS", "."}
	if strings.Join(got[0].PCP, "\n") != strings.Join(want, "\n") {
		t.Errorf("pmrep prints\n%s\nwant\n%s", strings.Join(got[0].PCP, "\n"), strings.Join(want, "\n"))
	}
}

// TestHostileInput: big, repetitive, looping and non-INI inputs end with
// findings in bounded time, never a panic.
func TestHostileInput(t *testing.T) {
	var many strings.Builder
	many.WriteString("[s]\n")
	for i := range 100000 {
		many.WriteString("k")
		many.WriteString(strings.Repeat("x", i%7))
		many.WriteString(string(rune('a' + i%26)))
		many.WriteString(" = hinv.ncpu,,,,\n")
	}
	loop := "[s]\na = %(b)s%(b)s\nb = %(c)s%(c)s\nc = %(a)s%(a)s\n"
	doubling := "[s]\n" + "a0 = " + strings.Repeat("x", 4096) + "\n"
	for i := 1; i < 12; i++ {
		doubling += "a" + itoa(i) + " = %(a" + itoa(i-1) + ")s%(a" + itoa(i-1) + ")s\n"
	}
	for name, src := range map[string]string{
		"10 MB":        "[s]\n" + strings.Repeat("# "+strings.Repeat("c", 97)+"\n", 100000) + "m = x.y\nm.formula = " + strings.Repeat("1+", 128<<10) + "\n",
		"100,000 keys": many.String(),
		"loop":         loop,
		"doubling":     doubling,
		"binary":       "\x7fELF\x00\x01\x02[s]\x00=\n",
		"not INI":      strings.Repeat("m.a = hinv.ncpu * 2\n", 1000),
	} {
		start := time.Now()
		d := Read(name, grammar.NewText([]byte(src)), Options{Tool: Pmrep, Version: pcpver.V6_0_3})
		// A hang, not a slow machine: 3 s of CPU for all, on a
		// machine shared by many test runs.
		if time.Since(start) > 2*time.Minute {
			t.Errorf("%s: %v", name, time.Since(start))
		}
		if name != "100,000 keys" && len(d.File.Diagnostics) == 0 {
			t.Errorf("%s: no finding", name)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzRead: any input reads to findings without a panic, and every
// finding lies inside the file. Seeded with the configs this machine's
// pmrep and pcp-dstat ship, when present, and small hand-written ones.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"[s]\nm = a.b\nm.formula = 1 +\n  2\n", "[options]\nderived = x=1;./f\n[global]\na.b = l,\"x,y\",KB,raw,8,2,3\n", "[DEFAULT]\nk = %(k)s\n[s]\n", "k\n[", "[s]\n\tx: %%(y)s\n"} {
		f.Add([]byte(s), false)
	}
	for _, glob := range []string{"/etc/pcp/pmrep/*.conf", "/etc/pcp/dstat/*"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, strings.Contains(p, "dstat"))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, dstat bool) {
		tool := Pmrep
		if dstat {
			tool = Dstat
		}
		d := Read("f", grammar.NewText(src), Options{Tool: tool, Version: pcpver.Latest})
		end := d.pos.Pos(len(src))
		for _, x := range d.File.Diagnostics {
			if end.Before(x.Range.End) || x.Range.End.Before(x.Range.Start) {
				t.Fatalf("finding %+v outside the file (ends %v)", x, end)
			}
		}
	})
}
