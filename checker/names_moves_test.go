package checker

import (
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// TestMetricNamesFollowMoves: after edits that add or remove lines, the
// names find the moved copies of their metrics in the report's list (and
// not the earlier versions' metrics), the versions before still answer as
// they did, and compacting keeps every answer.
func TestMetricNamesFollowMoves(t *testing.T) {
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
	for _, m := range v1 {
		x1.set(m.Def.Name, m)
	}
	check("whole", x1, v1)

	// Version 2: an Enter before line 3 moves c, d and e a line down.
	v2 := []*Metric{v1[0], v1[1], moved(v1[2], 1), moved(v1[3], 1), moved(v1[4], 1)}
	x2 := x1.layered()
	x2.move(3, 1)
	x2.listed(pvec.Of(v2))
	check("enter", x2, v2)

	// Version 3: line 1 (a) deleted, the rest a line up, and f set on
	// line 7 after the move.
	v3 := []*Metric{moved(v2[1], -1), moved(v2[2], -1), moved(v2[3], -1), moved(v2[4], -1), at("f", 7)}
	x3 := x2.layered()
	x3.move(2, -1)
	x3.remove("a")
	x3.set("f", v3[4])
	x3.listed(pvec.Of(v3))
	check("delete", x3, v3, "a")
	check("enter, after the delete", x2, v2) // unchanged by it

	// Past maxNameMoves moves, compact makes one map of the list.
	x4 := x3.layered()
	for range maxNameMoves {
		x4.move(100, 1) // past every metric
	}
	check("many moves", x4, v3, "a")
	c := x4.compact()
	if len(c.moves) != 0 || len(c.over) != 0 {
		t.Fatalf("compacted: %d moves, %d names layered", len(c.moves), len(c.over))
	}
	check("compacted", c, v3, "a")
}

// TestMetricNamesWrongMove: a move that does not put a name's metric
// where the report's list has its copy (Recheck never records one: see
// MetricNames.current) still finds the copy, by name, and a name whose
// metric the list no longer holds is not found: never the metric as it
// was set, on lines it has left.
func TestMetricNamesWrongMove(t *testing.T) {
	at := func(name string, line int32) *Metric {
		rg := grammar.Range{Start: grammar.Pos{Line: line}, End: grammar.Pos{Line: line, Col: 9}}
		return &Metric{Def: &grammar.Definition{Name: name, Range: rg, NameRange: rg, Line: line, Registered: true}}
	}
	v1 := []*Metric{at("a", 1), at("b", 2), at("c", 3)}
	x1 := newMetricNames()
	for _, m := range v1 {
		x1.set(m.Def.Name, m)
	}
	// b and c moved a line down, but the move says two; c's copy is gone.
	v2 := []*Metric{v1[0], at("b", 3)}
	x2 := x1.layered()
	x2.move(2, 2)
	x2.listed(pvec.Of(v2))
	if got, ok := x2.Lookup("b"); !ok || got != v2[1] {
		t.Errorf("b: %+v, %t; want its copy on line 3", got, ok)
	}
	if got, ok := x2.Lookup("c"); ok {
		t.Errorf("c: %+v on line %d, want none (the list does not hold it)", got, got.Def.Line)
	}
	if got, ok := x2.Lookup("a"); !ok || got != v1[0] {
		t.Errorf("a (not moved): %+v, %t", got, ok)
	}
	n := 0
	for name, m := range x2.All() {
		if name == "c" || m.Def.Line == 2 {
			t.Errorf("All yields %s on line %d", name, m.Def.Line)
		}
		n++
	}
	if n != 2 {
		t.Errorf("All yields %d names, want a and b", n)
	}
}
