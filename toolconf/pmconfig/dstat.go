package pmconfig

import (
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"slices"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// dstatSpecWords extend pmconfig's spec words as pcp-dstat does (its
// dspec): a key equal to one of them sets the plugin's default.
var dstatSpecWords = append(append([]string(nil), SpecWords...), "printtype", "colorstep", "grouptype", "cullinsts", "plugin", "valuesets")

// DstatSpecWords are the spec words release v's pcp-dstat knows: a
// plugin's defaults and a column's specs (filtertype since 7.0).
func DstatSpecWords(v pcpver.Version) []string {
	words := append([]string(nil), dstatSpecWords...)
	if v.AtLeast(pcpver.Version{Major: 7}) {
		words = append(words, "filtertype")
	}
	return words
}

func isDstatWord(w string, v pcpver.Version) bool {
	if w == "filtertype" {
		return v.AtLeast(pcpver.Version{Major: 7})
	}
	return slices.Contains(dstatSpecWords, w)
}

// readDstat reads the sections as pcp-dstat's plugins: a key that is a
// spec word sets the plugin's default; any other key without a dot is a
// column, registered as the derived metric dstat.PLUGIN.KEY, whatever
// its value; KEY.SPEC sets a column's spec. Values are not interpolated.
func (d *Doc) readDstat() []pendingReg {
	var regs []pendingReg
	for _, s := range d.INI.Sections {
		columns := map[string]bool{}
		for _, e := range d.entries(s) {
			v := e.Value
			fail := func(off, end int, code, msg, python string) {
				f := d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityError, Code: code, Message: msg},
					Section: s.Name, Phase: PhaseMetrics, Fatal: true, Order: e.Line,
					Tool: []string{"Traceback (most recent call last):", python}}, off, end)
				f.PCP = f.Tool
			}
			if isDstatWord(e.Key, d.Version) {
				d.dstatPluginValue(s, e, fail)
				continue
			}
			key, spec, dotted := strings.Cut(e.Key, ".")
			switch {
			case dotted && strings.Contains(spec, "."):
				fail(e.KeyOff, e.KeyEnd, codes.SpecKey, fmt.Sprintf("%s has more than one dot: pcp-dstat cannot split it into column and spec, and fails", e.Key),
					"ValueError: "+unpackError(d.Version, strings.Count(e.Key, ".")+1))
				continue
			case dotted && !isDstatWord(spec, d.Version):
				fail(e.KeyOff+len(key)+1, e.KeyEnd, codes.SpecKey, fmt.Sprintf("%q is not a pcp-dstat spec word (%s): pcp-dstat fails", spec, strings.Join(dstatSpecWords, " ")),
					"ValueError: tuple.index(x): x not in tuple")
				continue
			case dotted && spec != "formula":
				if g := s.Get("grouptype"); (spec == "printtype" || spec == "colorstep") && (g == nil || strings.TrimSpace(g.Value.Text) != "4") {
					d.add(Finding{Diagnostic: grammar.Diagnostic{Severity: grammar.SeverityWarning, Code: codes.SpecValue,
						Message: fmt.Sprintf("a column's %s lands one slot off in pcp-dstat (a %s lands where %s is read): it breaks the plugin unless its grouptype is 4 (top)", spec, spec, map[string]string{"printtype": "colorstep", "colorstep": "grouptype"}[spec])},
						Section: s.Name}, e.KeyOff+len(key)+1, e.KeyEnd)
				}
				continue
			}
			if columns[key] {
				continue
			}
			columns[key] = true
			name := "dstat." + s.Name + "." + key
			text := v.Text
			fv := v
			if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
				fv = sub(v, 1, len(v.Text)-1)
			}
			a, b := strip([]byte(fv.Text), 0, len(fv.Text))
			reg := grammar.Registration{Name: name, NameRange: d.Range(e.KeyOff, e.KeyEnd), Expr: fv.Text[a:b], Runs: runsOf(fv, a, b),
				Range: d.Range(e.Start, v.End), Line: e.Line}
			regs = append(regs, pendingReg{reg: reg, scope: s.Name})
		}
	}
	return regs
}

// dstatPluginValue checks a plugin-level value as pcp-dstat converts it.
func (d *Doc) dstatPluginValue(s *Section, e *Entry, fail func(off, end int, code, msg, python string)) {
	v := e.Value
	switch e.Key {
	case "width", "precision", "limit", "grouptype":
		if _, ok := pyInt(v.Text); !ok {
			fail(v.Offset(0), v.End, codes.SpecValue, fmt.Sprintf("%s %q is not a whole number: pcp-dstat fails", e.Key, v.Text),
				fmt.Sprintf("ValueError: invalid literal for int() with base 10: %s", PyRepr(v.Text)))
		}
	case "colorstep":
		if _, err := strconv.ParseFloat(strings.TrimSpace(v.Text), 64); err != nil {
			fail(v.Offset(0), v.End, codes.SpecValue, fmt.Sprintf("colorstep %q is not a number: pcp-dstat fails", v.Text),
				fmt.Sprintf("ValueError: could not convert string to float: %s", PyRepr(v.Text)))
		}
	case "printtype":
		if v.Text == "" || !strings.ContainsRune("bdpfst", rune(v.Text[0])) {
			fail(v.Offset(0), v.End, codes.SpecValue, fmt.Sprintf("printtype %q: pcp-dstat knows b d p f s t (the first character counts) and fails when it prints", v.Text),
				fmt.Sprintf("Exception: printtype %s not known to pcp-dstat.", v.Text))
		}
	}
}
