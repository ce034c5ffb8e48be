package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolSpecsConfig is a pmrep file with a spec of each kind describe
// tells apart: a metric shown in the [options] default scale, a counter
// in its spec's unit, a raw counter, a metric without units, a valid and
// a refused formula, an unknown metric and a compact spec.
const toolSpecsConfig = `[options]
space_scale = MB

[s]
free = mem.util.free
cpu = kernel.all.cpu.user
cpu.unit = ms/s
raw = kernel.all.cpu.sys
raw.type = raw
raw.unit = s
ncpu = hinv.ncpu
twice = s.twice
twice.formula = 2 * hinv.ncpu
bad = s.bad
bad.formula = hinv.ncpu + kernel.uname.release
nosuch = no.such.metric
kernel.all.load = load,"1 minute",,,
`

// TestDescribeToolSpecs: describe of a pmrep file lists each spec of
// each section with its metric's metadata and the unit pmrep shows it
// in (the header units pmrep 6.0.3 prints for this file: MB, ms/s, s,
// no unit), or why the metric will not exist; the same in JSON.
func TestDescribeToolSpecs(t *testing.T) {
	args := []string{"describe", "--metadata", "embedded", "--pcp-version", "6.0.3", "--kind", "pmrep"}
	stdout, stderr, status := run(t, toolSpecsConfig, append(args, "-")...)
	if status != ExitOK {
		t.Fatalf("exit %d: %s", status, stderr)
	}
	want := []string{
		`<stdin> [s] free: mem.util.free: 64-bit unsigned int instant, units Kbyte, singular; shown in "MB"`,
		`<stdin> [s] cpu: kernel.all.cpu.user: 64-bit unsigned int counter, units millisec, singular; shown in "ms/s"`,
		`<stdin> [s] raw: kernel.all.cpu.sys: 64-bit unsigned int counter, units millisec, singular; shown in "s"`,
		`<stdin> [s] ncpu: hinv.ncpu: 32-bit unsigned int discrete, units none, singular; shown without a unit`,
		`<stdin> [s] twice: s.twice = 2 * hinv.ncpu: 32-bit unsigned int discrete, units none, singular; shown without a unit`,
		`<stdin> [s] bad: s.bad = hinv.ncpu + kernel.uname.release: semantic error: hinv.ncpu + kernel.uname.release: Non-arithmetic type for right operand`,
		`<stdin> [s] nosuch: no.such.metric: unknown: no metric of this name: pmrep stops`,
		`<stdin> [s] kernel.all.load: float instant, units none, indom 60.2; shown without a unit`,
	}
	got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(got) < 1 || !strings.HasPrefix(got[0], "# metadata: ") {
		t.Fatalf("no metadata line:\n%s", stdout)
	}
	if strings.Join(got[1:], "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got[1:], "\n"), strings.Join(want, "\n"))
	}

	stdout, stderr, status = run(t, toolSpecsConfig, append(args, "--format", "json", "-")...)
	if status != ExitOK {
		t.Fatalf("json: exit %d: %s", status, stderr)
	}
	var doc struct {
		Metrics []describedMetric `json:"metrics"`
		Specs   []describedSpec   `json:"specs"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	if len(doc.Metrics) != 0 {
		t.Errorf("json: the formulas are listed as metrics too: %+v", doc.Metrics)
	}
	if len(doc.Specs) != len(want) {
		t.Fatalf("json: %d specs, want %d:\n%s", len(doc.Specs), len(want), stdout)
	}
	for i, w := range []struct{ key, status, shownIn string }{
		{"free", "valid", "MB"}, {"cpu", "valid", "ms/s"}, {"raw", "valid", "s"}, {"ncpu", "valid", ""},
		{"twice", "valid", ""}, {"bad", "semantic error", ""}, {"nosuch", "unknown", ""}, {"kernel.all.load", "valid", ""},
	} {
		if s := doc.Specs[i]; s.Key != w.key || s.Status != w.status || s.ShownIn != w.shownIn || s.Section != "s" {
			t.Errorf("json spec %d: %+v, want key %s, status %s, shown in %q", i, s, w.key, w.status, w.shownIn)
		}
	}
}

// TestEvalToolSelectors: eval and explain pick a spec of a pmrep or a
// pcp-dstat file as SECTION:KEY, and evaluate its formula (or show its
// plain metric) like a derived metric's.
func TestEvalToolSelectors(t *testing.T) {
	dir := t.TempDir()
	pmrep := filepath.Join(dir, "ev.conf")
	dstat := filepath.Join(dir, "ev")
	for path, text := range map[string]string{
		pmrep: "[s]\nten = s.ten\nten.formula = 2 * sample.long.one + 8\none = sample.long.one\n",
		dstat: "[p]\nx = sample.long.one * 3\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const rec = "testdata/eval/rec"
	stdout, stderr, status := run(t, "", "eval", "-a", rec, "-s", "2", "--format", "csv", "--kind", "pmrep", pmrep, "s:ten", "s:one")
	if status != ExitOK {
		t.Fatalf("eval pmrep: exit %d: %s", status, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || lines[0] != "time,s.ten,sample.long.one" || !strings.HasSuffix(lines[2], ",10,1") {
		t.Errorf("eval pmrep: got\n%s\nwant a header of s.ten and sample.long.one, and 10 and 1", stdout)
	}
	stdout, stderr, status = run(t, "", "eval", "-a", rec, "-s", "2", "--format", "csv", "--kind", "dstat", dstat, "p:x")
	if status != ExitOK {
		t.Fatalf("eval dstat: exit %d: %s", status, stderr)
	}
	lines = strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || lines[0] != "time,dstat.p.x" || !strings.HasSuffix(lines[2], ",3") {
		t.Errorf("eval dstat: got\n%s\nwant dstat.p.x = 3", stdout)
	}
	stdout, stderr, status = run(t, "", "explain", "--archive", rec, "--format", "json", "--kind", "pmrep", pmrep, "s:ten")
	if status != ExitOK {
		t.Fatalf("explain: exit %d: %s", status, stderr)
	}
	if !strings.Contains(stdout, `"2 * sample.long.one + 8"`) {
		t.Errorf("explain s:ten does not explain its formula:\n%s", stdout)
	}
	_, stderr, status = run(t, "", "eval", "-a", rec, "-s", "1", "--kind", "pmrep", pmrep, "s:nosuch")
	if status != ExitUsage || !strings.Contains(stderr, "s:nosuch: not defined") {
		t.Errorf("eval of a selector naming no spec: exit %d, %s", status, stderr)
	}
}

// TestExplainExprWithToolFile: explain -e with a pmrep or a pcp-dstat
// file loads the expression after the file's formulas, in its config path
// (it was "more than one config path" before). libpcp never evaluates a
// derived operand, so an expression using a formula gets libpcp's own
// refusal (6.2.2 on) or its fetch failure (before): the tools could never
// do it either. With a pcp-htop file or two tool files it says why not.
func TestExplainExprWithToolFile(t *testing.T) {
	dir := t.TempDir()
	pmrep := filepath.Join(dir, "pmrep", "ev.conf")
	dstat := filepath.Join(dir, "dstat", "ev")
	htop := filepath.Join(dir, "htop", "meters", "ev")
	for path, text := range map[string]string{
		pmrep: "[s]\nten = s.ten\nten.formula = 2 * sample.long.one + 8\n",
		dstat: "[p]\nx = sample.long.one * 3\n",
		htop:  "[ev]\ncaption = Ev\nx.metric = sample.long.one * 3\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const rec = "testdata/eval/rec"
	const why = "loads -e's expression after the formulas of one pmrep or pcp-dstat file"
	for _, tc := range []struct {
		name, version, expr string
		paths               []string
		status              int
		stdout, stderr      string
	}{
		{"beside a pmrep file", "7.2", "sample.long.one + 1", []string{pmrep}, ExitOK, "= 2  — addition", ""},
		{"a pmrep formula", "7.2", "s.ten + 1", []string{pmrep}, ExitFindings,
			"libpcp refuses the definition: Semantic error: operand s.ten: Illegal nested derived metric", ""},
		{"a pcp-dstat column", "6.0.3", "dstat.p.x * 2", []string{dstat}, ExitFindings,
			"FAILS HERE: `dstat.p.x` is itself a derived metric (line 2)", ""},
		{"a name the file lacks", "7.2", "s.eleven + 1", []string{pmrep}, ExitFindings, "`s.eleven` is not in the namespace", ""},
		{"a pcp-htop file", "7.2", "sample.long.one + 1", []string{htop}, ExitUsage, "", why},
		{"two tool files", "7.2", "sample.long.one + 1", []string{pmrep, dstat}, ExitUsage, "", why},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"explain", "--archive", rec, "--pcp-version", tc.version, "-e", tc.expr}, tc.paths...)
			stdout, stderr, status := run(t, "", args...)
			if status != tc.status || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, want %d with %q on stdout and %q on stderr\nstdout:\n%s\nstderr:\n%s", status, tc.status, tc.stdout, tc.stderr, stdout, stderr)
			}
		})
	}
}
