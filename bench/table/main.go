// Command table turns the RESULT lines the bench scripts print into the
// one table `make bench` ends with (the measures: ours, the
// reference measured in the same run, the ratio, the goal, and MISSED
// where a goal is missed) and writes the same rows to a JSON file.
//
//	go run ./bench/table -json bench/results.json < results.txt
//
// A RESULT line is "RESULT key value unit"; other lines are ignored. A
// measure whose results are missing is shown as n/a.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// results are the values read, by key.
type results map[string]float64

func (r results) get(keys ...string) (float64, bool) {
	for _, k := range keys {
		if v, ok := r[k]; ok {
			return v, true
		}
	}
	return 0, false
}

// row is one line of the table, as written to JSON too.
type row struct {
	Measure   string   `json:"measure"`
	Ours      string   `json:"ours"`
	Reference string   `json:"reference"`
	Ratio     string   `json:"ratio"`
	Goal      string   `json:"goal"`
	Met       *bool    `json:"met"` // null when not measured
	OursValue *float64 `json:"ours_value,omitempty"`
	Unit      string   `json:"unit,omitempty"`
}

func main() {
	jsonPath := flag.String("json", "", "also write the rows to this JSON file")
	flag.Parse()
	r, notes, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench table:", err)
		os.Exit(2)
	}
	rows := build(r)
	print(os.Stdout, rows, notes)
	if *jsonPath != "" {
		out := struct {
			Date  string   `json:"date"`
			Rows  []row    `json:"rows"`
			Notes []string `json:"notes"`
			Raw   results  `json:"raw"`
		}{time.Now().UTC().Format(time.RFC3339), rows, notes, r}
		b, _ := json.MarshalIndent(out, "", "  ")
		if err := os.WriteFile(*jsonPath, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench table:", err)
			os.Exit(2)
		}
	}
}

// read collects RESULT lines (and NOTE lines, kept for the table's foot).
func read(in io.Reader) (results, []string, error) {
	r := results{}
	var notes []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if n, ok := strings.CutPrefix(line, "NOTE "); ok {
			notes = append(notes, n)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "RESULT" {
			continue
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			continue // "n/a" and the like: not measured
		}
		r[f[1]] = v
	}
	return r, notes, sc.Err()
}

// measure formats a value with its unit, or n/a.
func measure(v float64, ok bool, format, unit string) string {
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf(format, v) + " " + unit
}

func boolp(b bool) *bool { return &b }

// minFetchTie is the lowest end of the paired fetch ratio's 95% interval
// that still counts as a tie with libpcp when the interval reaches 1.
const minFetchTie = 0.98

// build makes the rows: each measure of the bench with its goal.
func build(r results) []row {
	var t table
	t.server(r)
	t.check(r)
	t.checkMillion(r)
	t.parse(r)
	t.fetch(r)
	t.archive(r)
	return t.rows
}

// table collects the rows.
type table struct{ rows []row }

func (t *table) add(name, ours, ref, ratio, goal string, met *bool) {
	t.rows = append(t.rows, row{Measure: name, Ours: ours, Reference: ref, Ratio: ratio, Goal: goal, Met: met})
}

// ratio is a/b as the table shows it, and its value, when both were
// measured.
func ratio(a, b float64, okA, okB bool) (string, float64, bool) {
	if !okA || !okB || b <= 0 || a < 0 {
		return "n/a", 0, false
	}
	return fmt.Sprintf("%.2f×", a/b), a / b, true
}

// server adds the language server's rows: keystrokes, opening, memory
// and the features asked on every view.
func (t *table) server(r results) {
	k1, ok1 := r.get("keystroke_1000_ms")
	k10, ok10 := r.get("keystroke_10000_ms")
	k100, ok100 := r.get("keystroke_100000_ms")
	var met *bool
	if ok1 {
		met = boolp(k1 <= 10)
	}
	t.add("keystroke → publishDiagnostics, 1,000 lines", measure(k1, ok1, "%.2f", "ms"), "—", "—", "≤ 10 ms", met)
	met = nil
	rat, x, okr := ratio(k10, k1, ok10, ok1)
	if okr {
		met = boolp(x <= 2)
	}
	t.add("keystroke → publishDiagnostics, 10,000 lines", measure(k10, ok10, "%.2f", "ms"), "—", rat+" the 1,000-line figure", "flat (≤ 2× the 1,000-line figure)", met)
	met = nil
	rat, x, okr = ratio(k100, k1, ok100, ok1)
	if okr {
		met = boolp(x <= 2 && k100 <= 20)
	}
	t.add("keystroke → publishDiagnostics, 100,000 lines", measure(k100, ok100, "%.2f", "ms"), "—", rat+" the 1,000-line figure", "≤ 2× the 1,000-line figure, ≤ 20 ms", met)
	// Past the findings cap (12,500 of one code): a keystroke must still
	// not read and check the whole document again.
	if kc, okc := r.get("keystroke_100000_overcap_ms"); okc {
		t.add("… with 12,500 findings of one code (over the cap of 1,000)", measure(kc, okc, "%.1f", "ms"), "—", "—", "≤ 20 ms", boolp(kc <= 20))
	}
	t.keystrokeErrors(r)
	o100, okO100 := r.get("open_first_100000_ms")
	met = nil
	if okO100 {
		met = boolp(o100 <= 300)
	}
	oc, okOC := r.get("open_complete_100000_ms")
	t.add("didOpen → first diagnostics, 100,000 lines", measure(o100, okO100, "%.0f", "ms"), "—", "complete: "+measure(oc, okOC, "%.0f", "ms"), "≤ 300 ms", met)
	drss, okDR := r.get("documents_1000_rss_mb")
	dtext, okDT := r.get("documents_1000_text_mb")
	met = nil
	if okDR && okDT {
		met = boolp(drss <= 20*dtext+40)
	}
	t.add("server RSS, 1,000 open documents of 4 KB", measure(drss, okDR, "%.0f", "MB"), "—", fmt.Sprintf("%s the text (%s)", perDoc(drss, dtext, okDR && okDT), measure(dtext, okDT, "%.1f", "MB")), "≤ 20× the text + 40 MB", met)
	rss, okRSS := r.get("server_rss_100000_mb")
	doc, okDoc := r.get("document_100000_mb")
	if !okDoc {
		doc, okDoc = 3.4, true // the 100,000-line benchmark document, when the run does not say
	}
	met = nil
	if okRSS {
		met = boolp(rss <= 20*doc+40)
	}
	t.add("server peak RSS, 100,000 lines", measure(rss, okRSS, "%.0f", "MB"), "—", fmt.Sprintf("%s the document (%.1f MB)", perDoc(rss, doc, okRSS && okDoc), doc), "≤ 20× the document + 40 MB", met)
	f1, okF1 := r.get("features_1000_ms")
	f100, okF100 := r.get("features_100000_ms")
	met = nil
	rat, x, okr = ratio(f100, f1, okF100, okF1)
	if okr {
		met = boolp(x <= 2)
	}
	t.add("hover + completion + inlay hints + code lenses, 100,000 lines", measure(f100, okF100, "%.2f", "ms"), "—", rat+fmt.Sprintf(" the 1,000-line figure (%s)", measure(f1, okF1, "%.2f", "ms")), "as fast as at 1,000 lines (≤ 2×)", met)

	// Issue 39's features at 100,000 lines against 1,000. links and
	// pullfull answer with every function call and every finding: their
	// bytes grow with the document, and so their time.
	for _, f := range []string{"highlight", "selection", "callhierarchy", "links", "linksafteredit", "rangeformat", "pull", "pullfull", "wspull", "afteredit"} {
		x, ok := r.get("newfeatures_" + f + "_ratio")
		if f == "afteredit" {
			// Two keystrokes and the features after them: the features
			// are what it takes over the same keystrokes alone
			// (editsonly), which the keystroke rows judge.
			// Shown, not judged: the two are near 0.1 ms each, within
			// the noise of the figures they are the difference of.
			if fx, okF := r.get("newfeatures_afteredit_features_ratio"); okF || ok {
				t.add("issue 39's features after an edit, 100,000 lines", "—", "—", fmt.Sprintf("%s the 1,000-line figure less the edits' (with them: %s)", measure(fx, okF, "%.1f", "×"), measure(x, ok, "%.1f", "×")), "—", nil)
				continue
			}
		}
		if ok {
			t.add("issue 39's "+f+", 100,000 lines", "—", "—", fmt.Sprintf("%.1f× the 1,000-line figure", x), "≤ 2× the 1,000-line figure", boolp(x <= 2))
		}
		// A reply the document sizes: a stand-in sending the same JSON
		// and nothing else grows as much, and the server's time is near it.
		if x, ok := r.get("newfeatures_" + f + "_floor_ratio"); ok {
			over, okO := r.get("newfeatures_" + f + "_over_floor_100000")
			t.add("… a stand-in sending the same "+f+" reply", "—", "—", fmt.Sprintf("%.1f× its 1,000-line figure; the server %s its time", x, measure(over, okO, "%.2f", "×")), "—", nil)
		}
	}
}

// keystrokeErrors adds the rows of a keystroke at 100,000 lines with 2%
// of them in error, and of the stand-in that only sends the same
// publications.
func (t *table) keystrokeErrors(r results) {
	// With 2% of the lines in error: a keystroke's work must
	// not follow the number of findings.
	e1, okE1 := r.get("keystroke_errors_1000_ms")
	e100, okE100 := r.get("keystroke_errors_100000_ms")
	var met *bool
	rat, x, okr := ratio(e100, e1, okE100, okE1)
	if okr {
		met = boolp(x <= 2 && e100 <= 20)
	}
	t.add("keystroke → publishDiagnostics, 100,000 lines, 2% in error", measure(e100, okE100, "%.2f", "ms"), "—", rat+fmt.Sprintf(" the 1,000-line figure (%s)", measure(e1, okE1, "%.2f", "ms")), "≤ 2× the 1,000-line figure, ≤ 20 ms", met)
	// The floor under it: a stand-in that does nothing but send the same
	// publications (every finding, as the protocol sends them), and what
	// this server adds to it, at either size.
	if fl, okFl := r.get("keystroke_errors_floor_100000_ms"); okFl {
		fl1, okFl1 := r.get("keystroke_errors_floor_1000_ms")
		rat, _, _ = ratio(fl, fl1, okFl, okFl1)
		t.add("… a stand-in doing nothing but send the same publications", measure(fl, okFl, "%.2f", "ms"), "—", rat+fmt.Sprintf(" its 1,000-line figure (%s)", measure(fl1, okFl1, "%.2f", "ms")), "—", nil)
		// What the server adds to the stand-in, at either size: shown,
		// not judged (the issue judges the whole keystroke, above).
		sh1, okS1 := r.get("keystroke_errors_share_1000_ms")
		sh100, okS100 := r.get("keystroke_errors_share_100000_ms")
		rat, _, _ = ratio(sh100, sh1, okS100, okS1)
		t.add("… this server's share above the stand-in", measure(sh100, okS100, "%.2f", "ms"), "—", rat+fmt.Sprintf(" its 1,000-line figure (%s)", measure(sh1, okS1, "%.2f", "ms")), "—", nil)
	}
}

// check adds the CI check's rows, against pminfo -c.
func (t *table) check(r results) {
	for _, n := range []struct {
		key, name string
		goal      float64
	}{{"10000", "10,000", 30}, {"100000", "100,000", 100}} {
		ours, okO := r.get("check_" + n.key + "_s")
		ref, okR := r.get("pminfo_c_" + n.key + "_s")
		oursRSS, okOR := r.get("check_" + n.key + "_rss_mb")
		refRSS, okRR := r.get("pminfo_c_" + n.key + "_rss_mb")
		file, okF := r.get("config_" + n.key + "_mb")
		rat, x, okr := ratio(ref, ours, okR, okO)
		var met *bool
		goal := fmt.Sprintf("≥ %.0f×", n.goal)
		if okr {
			ok := x >= n.goal
			if n.key == "100000" {
				goal += ", memory ≤ 20× the file + 40 MB"
				if okOR && okF {
					ok = ok && oursRSS <= 20*file+40
				}
			}
			met = boolp(ok)
		}
		refText := "pminfo -c " + measure(ref, okR, "%.2f", "s")
		if okRR {
			refText += ", " + measure(refRSS, true, "%.0f", "MB")
		}
		if r["pminfo_c_"+n.key+"_extrapolated"] == 1 {
			refText += " (extrapolated)"
		}
		oursText := measure(ours, okO, "%.2f", "s") + ", " + measure(oursRSS, okOR, "%.0f", "MB")
		if r["check_"+n.key+"_stopped"] == 1 {
			oursText, rat, met = "> "+oursText+" (stopped)", "< "+rat, boolp(false)
		}
		t.add("check --host, "+n.name+" definitions", oursText, refText, rat, goal, met)
	}
}

// checkMillion adds the row of a million definitions, against our own
// time for 100,000: the check must grow no faster than its input.
func (t *table) checkMillion(r results) {
	c1m, ok1m := r.get("check_1000000_s")
	c1mRSS, ok1mR := r.get("check_1000000_rss_mb")
	c100k, ok100k := r.get("check_100000_s")
	rat, x, okr := ratio(c1m, c100k, ok1m, ok100k)
	var met *bool
	if okr && ok1mR {
		met = boolp(x <= 10 && c1mRSS <= 1200)
	}
	ours1m := measure(c1m, ok1m, "%.1f", "s") + ", " + measure(c1mRSS, ok1mR, "%.0f", "MB")
	if r["check_1000000_stopped"] == 1 {
		ours1m = "> " + ours1m + " (stopped)"
		rat, met = "> "+rat, boolp(false)
	}
	t.add("check --host, 1,000,000 definitions", ours1m, "—", rat+" the 100k time", "≤ 10× the 100k time, ≤ 1.2 GB", met)
}

// parse adds the parser's rows, against pmLoadDerivedConfig.
func (t *table) parse(r results) {
	p, okP := r.get("parse_10000_ms")
	pt, okPT := r.get("parse_trees_10000_ms")
	lib, okL := r.get("pmloadderivedconfig_10000_ms")
	rat, x, okr := ratio(lib, p, okL, okP)
	var met *bool
	if okr {
		met = boolp(x >= 3)
	}
	t.add("parse + syntax, 10,000 definitions", measure(p, okP, "%.1f", "ms"), "pmLoadDerivedConfig "+measure(lib, okL, "%.1f", "ms"), rat, "≥ 3×", met)
	rat, x, okr = ratio(lib, pt, okL, okPT)
	met = nil
	if okr {
		met = boolp(x >= 1)
	}
	t.add("… with every syntax tree", measure(pt, okPT, "%.1f", "ms"), "pmLoadDerivedConfig "+measure(lib, okL, "%.1f", "ms"), rat, "≥ 1×", met)
}

// fetch adds the pmcd client's row, against libpcp's pmFetch.
func (t *table) fetch(r results) {
	f, okF := r.get("fetch50_us")
	fl, okFL := r.get("libpcp_fetch50_us")
	rat, x, okr := ratio(fl, f, okFL, okF)
	goal := "≤ libpcp (≥ 1×)"
	if p, okP := r.get("fetch50_paired_ratio"); okP {
		// The median of the rounds' own ratios (bench/fetchpair): each
		// pairs two bursts next to each other in time.
		medians := rat
		rat, x, okr = fmt.Sprintf("%.3f× (paired; %s of the medians)", p, medians), p, true
		lo, okLo := r.get("fetch50_paired_lo")
		hi, okHi := r.get("fetch50_paired_hi")
		if okLo && okHi {
			// Both clients are a tenth of a fetch whose rest pmcd and its
			// agents spend: "no slower" is also met when the median's 95%
			// interval reaches 1, no difference being measured, provided
			// the interval is narrow enough to see a 2% one: a noisy run
			// (a wide interval) must not pass for a tie.
			rat = fmt.Sprintf("%.3f× (paired, 95%% interval %.3f–%.3f; %s of the medians)", p, lo, hi, medians)
			if hi >= 1 && lo >= minFetchTie {
				x = 1
			}
			goal = fmt.Sprintf("≤ libpcp (paired ≥ 1×, or 1× within its 95%% interval and the interval above %.2f×)", minFetchTie)
		}
	}
	var met *bool
	if okr {
		met = boolp(x >= 1)
	}
	ours, theirs := measure(f, okF, "%.0f", "µs"), "libpcp pmFetch "+measure(fl, okFL, "%.0f", "µs")
	if c, okC := r.get("fetch50_cpu_us"); okC {
		// The clients' own work, beside the wall time pmcd and its
		// agents take most of.
		ours += fmt.Sprintf(", %.1f µs CPU", c)
	}
	if c, okC := r.get("libpcp_fetch50_cpu_us"); okC {
		theirs += fmt.Sprintf(", %.1f µs CPU", c)
	}
	t.add("fetch of 50 metrics", ours, theirs, rat, goal, met)
}

// archive adds the archive reader's and the evaluator's rows.
func (t *table) archive(r results) {
	s, okS := r.get("scan_ms")
	sa, okSA := r.get("scan_alloc_mb")
	sb, okSB := r.get("scan_bytes_mb")
	sd, okSD := r.get("pmdumplog_a_ms")
	rat, x, okr := ratio(sd, s, okSD, okS)
	var met *bool
	if okr && okSA && okSB {
		met = boolp(x >= 10 && sa <= sb)
	}
	name := "archive scan"
	if okSB {
		name = fmt.Sprintf("archive scan, %.0f MB", sb)
	}
	t.add(name, measure(s, okS, "%.0f", "ms")+", "+measure(sa, okSA, "%.1f", "MB allocated"), "pmdumplog -a "+measure(sd, okSD, "%.0f", "ms"), rat, "≥ 10×, allocation ≤ bytes read", met)
	e, okE := r.get("eval_s")
	el, okEL := r.get("libpcp_eval_s")
	bv, okBV := r.get("eval_bytes_per_value")
	rat, x, okr = ratio(el, e, okEL, okE)
	met = nil
	if okr && okBV {
		met = boolp(x >= 10 && bv <= 32)
	}
	t.add("eval, 1,000 definitions × 10,500 records", measure(e, okE, "%.2f", "s")+", "+measure(bv, okBV, "%.1f", "B a value"), "libpcp replay "+measure(el, okEL, "%.2f", "s"), rat, "≥ 10×, ≤ 32 B a value", met)
}

// perDoc is rss as a multiple of the document's size.
func perDoc(rss, doc float64, ok bool) string {
	if !ok || doc == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f×", rss/doc)
}

// print writes the table, a MISSED mark on each missed goal, and the notes.
func print(w io.Writer, rows []row, notes []string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "== issue #18: ours against the reference measured in this run")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tours\treference (same run)\tratio\tgoal\t")
	missed, unmeasured := 0, 0
	for _, r := range rows {
		mark := "ok"
		switch {
		case r.Met == nil:
			mark = "n/a"
			unmeasured++
		case !*r.Met:
			mark = "MISSED"
			missed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Measure, r.Ours, r.Reference, r.Ratio, r.Goal, mark)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d goals met, %d missed, %d not measured\n", len(rows)-missed-unmeasured, len(rows), missed, unmeasured)
	for _, n := range notes {
		fmt.Fprintln(w, "note:", n)
	}
}
