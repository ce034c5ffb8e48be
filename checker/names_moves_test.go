package checker

import (
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// TestMetricNamesFollowShifts: after edits that move metrics to copies
// in their places and edits that add or remove metrics, the names find
// the metrics of the report's list (and not the earlier versions'), the
// versions before still answer as they did, and compacting keeps every
// answer.
func TestMetricNamesFollowShifts(t *testing.T) {
	at := func(name string, line int32) *Metric {
		rg := grammar.Range{Start: grammar.Pos{Line: line}, End: grammar.Pos{Line: line, Col: 9}}
		return &Metric{Def: &grammar.Definition{Name: name, Range: rg, NameRange: rg, Line: line, Registered: true}}
	}
	moved := func(m *Metric, dl int32) *Metric { return at(m.Def.Name, m.Def.Line+dl) }
	check := func(step string, x MetricNames, list []*Metric, gone ...string) {
		t.Helper()
		for _, m := range list {
			if got, ok := x.Lookup(m.Def.Name); !ok || got != m {
				t.Errorf("%s: %s is not its metric on line %d", step, m.Def.Name, m.Def.Line)
			}
		}
		for _, name := range gone {
			if _, ok := x.Lookup(name); ok {
				t.Errorf("%s: %s is still named", step, name)
			}
		}
		n := 0
		for name, m := range x.All() {
			if got, _ := x.Lookup(name); got != m {
				t.Errorf("%s: All yields another metric for %s", step, name)
			}
			n++
		}
		if n != len(list) || x.Len() != len(list) {
			t.Errorf("%s: %d names yielded, Len %d, want %d", step, n, x.Len(), len(list))
		}
	}

	// Version 1: a to e on lines 1 to 5, a whole check's map.
	v1 := []*Metric{at("a", 1), at("b", 2), at("c", 3), at("d", 4), at("e", 5)}
	x1 := newMetricNames()
	for k, m := range v1 {
		x1.set(m.Def.Name, k)
	}
	x1.listed(pvec.Of(v1))
	check("whole", x1, v1)

	// Version 2: an Enter before line 3 moves c, d and e a line down, to
	// copies in their places: no index shifts.
	v2 := []*Metric{v1[0], v1[1], moved(v1[2], 1), moved(v1[3], 1), moved(v1[4], 1)}
	x2 := x1.layered()
	x2.listed(pvec.Of(v2))
	check("enter", x2, v2)

	// Version 3: line 1 (a) deleted, the rest a line up, and f set on
	// line 7 after the shift.
	v3 := []*Metric{moved(v2[1], -1), moved(v2[2], -1), moved(v2[3], -1), moved(v2[4], -1), at("f", 7)}
	x3 := x2.layered()
	x3.remove("a")
	x3.shift(1, -1)
	x3.set("f", 4)
	x3.listed(pvec.Of(v3))
	check("delete", x3, v3, "a")
	check("enter, after the delete", x2, v2) // unchanged by it

	// Version 4: g and h inserted before c (index 1): c, d, e and f two
	// places on.
	v4 := []*Metric{v3[0], at("g", 2), at("h", 3), moved(v3[1], 2), moved(v3[2], 2), moved(v3[3], 2), moved(v3[4], 2)}
	x4 := x3.layered()
	x4.shift(1, 2)
	x4.set("g", 1)
	x4.set("h", 2)
	x4.listed(pvec.Of(v4))
	check("insert", x4, v4, "a")
	check("delete, after the insert", x3, v3, "a")

	// Past maxNameShifts shifts, compact makes one map of the list.
	x5 := x4.layered()
	for range maxNameShifts {
		x5.shift(100, 1) // past every metric
	}
	check("many shifts", x5, v4, "a")
	c := x5.compact()
	if len(c.shifts) != 0 || len(c.over) != 0 {
		t.Fatalf("compacted: %d shifts, %d names layered", len(c.shifts), len(c.over))
	}
	check("compacted", c, v4, "a")
}

// TestMetricNamesWrongShift: a shift that does not put a name's index
// where the report's list has its metric (Recheck never records one)
// answers "not found" for it, never the metric of another name that the
// index now falls on, and All yields no such pair.
func TestMetricNamesWrongShift(t *testing.T) {
	at := func(name string, line int32) *Metric {
		rg := grammar.Range{Start: grammar.Pos{Line: line}, End: grammar.Pos{Line: line, Col: 9}}
		return &Metric{Def: &grammar.Definition{Name: name, Range: rg, NameRange: rg, Line: line, Registered: true}}
	}
	v1 := []*Metric{at("a", 1), at("b", 2), at("c", 3)}
	x1 := newMetricNames()
	for k, m := range v1 {
		x1.set(m.Def.Name, k)
	}
	x1.listed(pvec.Of(v1))
	// x inserted before b, but the shift says two places: b's index
	// falls on c, c's past the list.
	v2 := []*Metric{v1[0], at("x", 2), v1[1], v1[2]}
	x2 := x1.layered()
	x2.shift(1, 2)
	x2.set("x", 1)
	x2.listed(pvec.Of(v2))
	for _, name := range []string{"b", "c"} {
		if got, ok := x2.Lookup(name); ok || (got != nil && got.Def.Name != name) {
			t.Errorf("%s: %+v, %t; want not found, never another name's metric", name, got, ok)
		}
	}
	if got, ok := x2.Lookup("a"); !ok || got != v1[0] {
		t.Errorf("a (before the shift): %+v, %t", got, ok)
	}
	if got, ok := x2.Lookup("x"); !ok || got != v2[1] {
		t.Errorf("x (set after the shift): %+v, %t", got, ok)
	}
	for name, m := range x2.All() {
		if m.Def.Name != name {
			t.Errorf("All yields %s for the metric %s", name, m.Def.Name)
		}
	}
}
