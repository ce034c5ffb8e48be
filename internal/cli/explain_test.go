package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The archive and config the explain package's golden files come from.
const (
	explainArchive = "../../explain/testdata/golden"
	explainConfig  = "../../explain/testdata/golden.conf"
)

func TestExplainCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		stdout []string // substrings
		stderr []string
	}{
		{"values", []string{"explain", "--archive", explainArchive, explainConfig, "g.avg"}, ExitOK,
			[]string{"# g.avg = sum(sample.bin) / count(sample.bin)", "= 500  — division", "└─ count(sample.bin)"}, nil},
		{"empty", []string{"explain", "--archive", explainArchive, explainConfig, "g.novalues"}, ExitFindings,
			[]string{"NO VALUES HERE: `sample.bad.novalues` has no values", "no values: `sample.bad.novalues`"}, nil},
		{"max instances", []string{"explain", "--max-instances", "2", "--archive", explainArchive, explainConfig, "g.avg"}, ExitOK,
			[]string{"9 values: [bin-100] 100, [bin-200] 200, … (7 more)"}, nil},
		{"history from the record before", []string{"explain", "--archive", explainArchive, "--start", "+1.5sec", explainConfig, "g.rate"}, ExitOK,
			[]string{"the record at 2026-11-25 10:12:48.26", "compare it with the record before"}, nil},
		{"expression", []string{"explain", "--archive", explainArchive, "--pcp-version", "7.2", "-e", "sample.bin[bin-300] * 2"}, ExitOK,
			[]string{"# expression = sample.bin[bin-300] * 2", "1 value: [bin-300] 600"}, nil},
		{"expression using a config", []string{"explain", "--archive", explainArchive, "--pcp-version", "6.0", "-e", "g.avg * 2", explainConfig}, ExitFindings,
			[]string{"FAILS HERE: `g.avg` is itself a derived metric (line 3)"}, nil},
		{"release", []string{"explain", "--archive", explainArchive, "--pcp-version", "6.0", "-e", "sample.long.one > 0 ? sample.long.one : novalue()"}, ExitUsage,
			nil, []string{"-e:1:"}},
		{"syntax error", []string{"explain", "--archive", explainArchive, "-e", "sample.bin + "}, ExitUsage,
			nil, []string{"-e:1:20: error:", "expr = sample.bin + "}},
		{"no such name", []string{"explain", "--archive", explainArchive, explainConfig, "g.nothing"}, ExitUsage,
			nil, []string{"g.nothing: no definition of that name"}},
		{"start needs an archive", []string{"explain", "--host", "127.0.0.1", "--start", "10:00", explainConfig, "g.avg"}, ExitUsage,
			nil, []string{"--start needs --archive"}},
		{"bad start", []string{"explain", "--archive", explainArchive, "--start", "yesterday", explainConfig, "g.avg"}, ExitUsage,
			nil, []string{"--start: \"yesterday\""}},
		{"start after the end", []string{"explain", "--archive", explainArchive, "--start", "+1hour", explainConfig, "g.avg"}, ExitUsage,
			nil, []string{"no record at or after"}},
		{"metadata only", []string{"explain", "--metadata", "embedded", "-e", "hinv.ncpu + 1"}, ExitUsage,
			nil, []string{"metadata only"}},
		{"usage", []string{"explain", explainConfig}, ExitUsage, nil, []string{"usage: pcp-derive-lsp explain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, status := run(t, "", tc.args...)
			if status != tc.status {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tc.status, out, errOut)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

// TestExplainJSON: the documented schema, field for field.
func TestExplainJSON(t *testing.T) {
	out, errOut, status := run(t, "", "explain", "--format", "json", "--archive", explainArchive, "--pcp-version", "7.2", "-e", "matchinst(/100/, sample.bin) + matchinst(/900/, sample.bin)")
	if status != ExitFindings {
		t.Fatalf("exit %d: %s", status, errOut)
	}
	type node struct {
		Text string `json:"text"`
		Kind string `json:"kind"`
		Span struct {
			Start, End int
		} `json:"span"`
		Metadata *struct {
			Type, Semantics, Units, Indom string
		} `json:"metadata"`
		Values []struct {
			Instance *string `json:"instance"`
			Value    any     `json:"value"`
		} `json:"values"`
		Explanation  string          `json:"explanation"`
		EmptyBecause *string         `json:"empty_because"`
		Children     json.RawMessage `json:"children"`
	}
	var doc struct {
		Name       *string `json:"name"`
		Expr       string  `json:"expr"`
		Source     string  `json:"source"`
		PCPVersion string  `json:"pcp_version"`
		Root       node    `json:"root"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Name != nil || doc.PCPVersion != "7.2.0" || !strings.HasPrefix(doc.Source, "archive ") {
		t.Errorf("name %v, pcp_version %q, source %q", doc.Name, doc.PCPVersion, doc.Source)
	}
	r := doc.Root
	if r.Kind != "operator" || r.Span.Start != 0 || r.Span.End != len(doc.Expr) || doc.Expr[r.Span.Start:r.Span.End] != r.Text {
		t.Errorf("root %+v", r)
	}
	if r.Metadata == nil || r.Metadata.Indom != "29.2" || len(r.Values) != 0 || r.EmptyBecause == nil || !strings.Contains(*r.EmptyBecause, "share no instance") {
		t.Errorf("root %+v", r)
	}
	var kids []node
	if err := json.Unmarshal(r.Children, &kids); err != nil || len(kids) != 2 {
		t.Fatalf("children: %v %s", err, r.Children)
	}
	k := kids[1]
	if k.Kind != "function" || doc.Expr[k.Span.Start:k.Span.End] != k.Text || len(k.Values) != 1 || *k.Values[0].Instance != "bin-900" || k.Values[0].Value != 900.0 || k.EmptyBecause != nil {
		t.Errorf("right operand %+v", k)
	}
}

// TestExplainLive: from the test pmcd, a rate takes two samples -t apart.
func TestExplainLive(t *testing.T) {
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo missing: run scripts/pcp-testenv.sh")
	}
	out, errOut, status := run(t, "", "explain", "--host", "127.0.0.1", "-t", "0.2", "-e", "rate(sample.seconds) + sample.long.one")
	if status != ExitOK {
		t.Fatalf("exit %d: %s%s", status, out, errOut)
	}
	if !strings.Contains(out, "200ms after the sample delta and rate compare it with") || !strings.Contains(out, "rate per second of the time counter `sample.seconds`") {
		t.Errorf("output:\n%s", out)
	}
}

// TestExplainTellsInputSize: explain tells the binary how big its input
// is, the configs and -e's expression as loaded, before it analyses
// them: the binary bounds a big one's memory by it (its soft limit, as
// check's and describe's).
func TestExplainTellsInputSize(t *testing.T) {
	conf, err := os.ReadFile(explainConfig)
	if err != nil {
		t.Fatal(err)
	}
	const expr = "g.avg + 1"
	for _, tc := range []struct {
		name string
		args []string
		want int64
	}{
		{"config", []string{"explain", "--archive", explainArchive, explainConfig, "g.avg"}, int64(len(conf))},
		{"config and -e", []string{"explain", "--archive", explainArchive, "-e", expr, explainConfig}, int64(len(conf) + len(exprName+" = "+expr+"\n"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var told []int64
			var stderr bytes.Buffer
			env := Env{Args: tc.args, Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr,
				Getenv: func(string) string { return "" }, InputsRead: func(n int64) { told = append(told, n) }}
			if status := Main(context.Background(), env); status != ExitOK && status != ExitFindings {
				t.Fatalf("exit %d\n%s", status, stderr.String())
			}
			if len(told) != 1 || told[0] != tc.want {
				t.Errorf("told the input's size as %v, want once %d", told, tc.want)
			}
		})
	}
}
