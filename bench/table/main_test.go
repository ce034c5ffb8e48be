package main

import (
	"strings"
	"testing"
)

// The table marks a goal missed or met from the measures alone, and shows
// what was not measured as n/a.
func TestTableMarksGoals(t *testing.T) {
	in := strings.Join([]string{
		"some script chatter",
		"RESULT keystroke_1000_ms 3.0 ms",
		"RESULT keystroke_10000_ms 9.0 ms",
		"RESULT keystroke_100000_ms 77 ms",
		"RESULT fetch50_us n/a us",
		"NOTE pminfo -c at 100,000 definitions is extrapolated",
	}, "\n")
	r, notes, err := read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || len(r) != 3 {
		t.Fatalf("read %d results and %d notes from %q", len(r), len(notes), in)
	}
	rows := build(r)
	byMeasure := map[string]row{}
	for _, x := range rows {
		byMeasure[x.Measure] = x
	}
	want := map[string]*bool{
		"keystroke → publishDiagnostics, 1,000 lines":  boolp(true),  // 3 ms ≤ 10 ms
		"keystroke → publishDiagnostics, 10,000 lines": boolp(false), // 3× the 1,000-line figure
	}
	for measure, met := range want {
		x, ok := byMeasure[measure]
		if !ok {
			t.Fatalf("no row %q in %v", measure, rows)
		}
		if x.Met == nil || *x.Met != *met {
			t.Errorf("%s: met = %v, want %v", measure, x.Met, *met)
		}
	}
	var out strings.Builder
	print(&out, rows, notes)
	text := out.String()
	if !strings.Contains(text, "MISSED") || !strings.Contains(text, "n/a") || !strings.Contains(text, "extrapolated") {
		t.Errorf("the table lacks a MISSED mark, an n/a or the note:\n%s", text)
	}
}
