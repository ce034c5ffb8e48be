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
		"RESULT keystroke_errors_1000_ms 0.5 ms",
		"RESULT keystroke_errors_100000_ms 0.9 ms",
		"RESULT keystroke_errors_floor_1000_ms 0.1 ms",
		"RESULT keystroke_errors_floor_100000_ms 0.55 ms",
		"RESULT keystroke_errors_share_1000_ms 0.4 ms",
		"RESULT keystroke_errors_share_100000_ms 0.35 ms",
		"RESULT open_first_100000_ms 450 ms",
		"RESULT documents_1000_rss_mb 100 MB",
		"RESULT documents_1000_text_mb 4.1 MB",
		"RESULT fetch50_us n/a us",
		"RESULT newfeatures_highlight_ratio 1.3 x",
		"RESULT newfeatures_links_ratio 95 x",
		"RESULT newfeatures_links_floor_ratio 86 x",
		"RESULT newfeatures_afteredit_ratio 2.4 x",
		"RESULT newfeatures_afteredit_features_ratio 1.1 x",
		"RESULT newfeatures_links_over_floor_100000 1.08 x",
		"NOTE pminfo -c at 100,000 definitions is extrapolated",
	}, "\n")
	r, notes, err := read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || len(r) != 18 {
		t.Fatalf("read %d results and %d notes from %q", len(r), len(notes), in)
	}
	rows := build(r)
	byMeasure := map[string]row{}
	for _, x := range rows {
		byMeasure[x.Measure] = x
	}
	want := map[string]*bool{
		"keystroke → publishDiagnostics, 1,000 lines":                boolp(true),  // 3 ms ≤ 10 ms
		"keystroke → publishDiagnostics, 10,000 lines":               boolp(false), // 3× the 1,000-line figure
		"keystroke → publishDiagnostics, 100,000 lines, 2% in error": boolp(true),  // 1.8×, ≤ 20 ms
		"didOpen → first diagnostics, 100,000 lines":                 boolp(false), // over 300 ms
		"server RSS, 1,000 open documents of 4 KB":                   boolp(true),  // ≤ 122 MB
		"issue 39's highlight, 100,000 lines":                        boolp(true),  // 1.3×
		"issue 39's links, 100,000 lines":                            boolp(false), // 95×
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
	// Rows shown, not judged.
	if x := byMeasure["… a stand-in sending the same links reply"]; !strings.Contains(x.Ratio, "86.0×") || !strings.Contains(x.Ratio, "1.08 ×") || x.Met != nil {
		t.Errorf("the links stand-in's row: %+v", x)
	}
	if x := byMeasure["… this server's share above the stand-in"]; x.Ratio != "0.87× its 1,000-line figure (0.40 ms)" || x.Met != nil {
		t.Errorf("the share's row: %+v", x)
	}
	if x := byMeasure["issue 39's features after an edit, 100,000 lines"]; !strings.Contains(x.Ratio, "1.1 ×") || !strings.Contains(x.Ratio, "2.4 ×") || x.Met != nil {
		t.Errorf("the features after an edit: %+v", x)
	}
	var out strings.Builder
	print(&out, rows, notes)
	text := out.String()
	if !strings.Contains(text, "MISSED") || !strings.Contains(text, "n/a") || !strings.Contains(text, "extrapolated") {
		t.Errorf("the table lacks a MISSED mark, an n/a or the note:\n%s", text)
	}
}

// The fetch row goes by the paired ratio when bench/fetchpair gives one,
// and shows the ratio of the two medians beside it; with the paired
// ratio's 95% interval, the goal is also met when the interval reaches 1
// and its lower end is at least minFetchTie.
func TestFetchGoesByThePairedRatio(t *testing.T) {
	for _, tc := range []struct {
		paired, lo, hi string
		met            bool
	}{
		{met: false},
		{paired: "1.040", met: true},
		{paired: "0.970", met: false},
		{paired: "0.995", lo: "0.986", hi: "1.004", met: true},
		{paired: "1.012", lo: "1.003", hi: "1.020", met: true},
		{paired: "0.985", lo: "0.977", hi: "0.993", met: false},
		// A noisy run: its interval reaches 1 but could hide a 13% loss.
		{paired: "0.982", lo: "0.868", hi: "1.179", met: false},
		{paired: "0.991", lo: "0.980", hi: "1.000", met: true},
	} {
		lines := []string{"RESULT fetch50_us 460 us", "RESULT libpcp_fetch50_us 451 us"}
		if tc.paired != "" {
			lines = append(lines, "RESULT fetch50_paired_ratio "+tc.paired+" x")
		}
		if tc.lo != "" {
			lines = append(lines, "RESULT fetch50_paired_lo "+tc.lo+" x", "RESULT fetch50_paired_hi "+tc.hi+" x")
		}
		r, _, err := read(strings.NewReader(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range build(r) {
			if x.Measure != "fetch of 50 metrics" {
				continue
			}
			if x.Met == nil || *x.Met != tc.met {
				t.Errorf("paired %q: met = %v, want %v (row %+v)", tc.paired, x.Met, tc.met, x)
			}
			if tc.paired != "" && (!strings.Contains(x.Ratio, tc.paired+"×") || !strings.Contains(x.Ratio, "0.98×")) {
				t.Errorf("paired %q: ratio %q lacks the paired ratio or the medians' 0.98×", tc.paired, x.Ratio)
			}
			if tc.lo != "" && !strings.Contains(x.Ratio, tc.lo+"–"+tc.hi) {
				t.Errorf("paired %q: ratio %q lacks the interval %s–%s", tc.paired, x.Ratio, tc.lo, tc.hi)
			}
		}
	}
}

// The fetch row shows each client's CPU a fetch beside its wall time,
// when bench/fetchpair measured them.
func TestFetchShowsEachClientsCPU(t *testing.T) {
	for _, tc := range []struct {
		lines        []string
		ours, theirs string
	}{
		{nil, "460 µs", "libpcp pmFetch 451 µs"},
		{[]string{"RESULT fetch50_cpu_us 33.4 us", "RESULT libpcp_fetch50_cpu_us 35.0 us"}, "460 µs, 33.4 µs CPU", "libpcp pmFetch 451 µs, 35.0 µs CPU"},
	} {
		lines := append([]string{"RESULT fetch50_us 460 us", "RESULT libpcp_fetch50_us 451 us"}, tc.lines...)
		r, _, err := read(strings.NewReader(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range build(r) {
			if x.Measure == "fetch of 50 metrics" && (x.Ours != tc.ours || x.Reference != tc.theirs) {
				t.Errorf("%q: ours %q, reference %q; want %q, %q", tc.lines, x.Ours, x.Reference, tc.ours, tc.theirs)
			}
		}
	}
}

// A ratio of a figure that is not positive is not a ratio: a share
// below zero (the stand-in slower than the server in that round) says
// n/a, not a goal met.
func TestRatioOfNothing(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		ok   bool
	}{{0.5, 0.25, true}, {0, 0.25, true}, {0.5, 0, false}, {0.5, -0.02, false}, {-0.1, 0.25, false}} {
		text, _, ok := ratio(tc.a, tc.b, true, true)
		if ok != tc.ok || (!ok && text != "n/a") {
			t.Errorf("ratio(%v, %v) = %q, %v; want ok %v", tc.a, tc.b, text, ok, tc.ok)
		}
	}
}
