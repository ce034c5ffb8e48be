package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

func embeddedConfig(t *testing.T) Config {
	t.Helper()
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: src}
}

// summary renders findings as "line:code:severity" for comparison.
func summary(diags []grammar.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%d:%s:%s", d.Range.Start.Line, d.Code, d.Severity))
	}
	return strings.Join(out, " ")
}

func TestSuppressionsAndRules(t *testing.T) {
	src := "# pcp-derive-lsp: ignore\n" +
		"a = 1 +\n" +
		"# pcp-derive-lsp: ignore[unknown-metric]\n" +
		"b = disk.dev.reda\n" +
		"# pcp-derive-lsp: ignore[syntax]\n" +
		"c = disk.dev.reda\n" +
		"# pcp-derive-lsp: ignore[sytnax]\n" +
		"d = 2 +\n" +
		"e = rate(kernel.all.load)\n"
	cfg := embeddedConfig(t)
	for _, tc := range []struct {
		name, rules string
		want        string
	}{
		{"comments only", "", "6:unknown-metric:error 7:suppression:error 8:syntax:error 9:rate-of-instant:warning"},
		{"rules over comments", "disable: [suppression]\nseverity:\n  rate-of-instant: error\n", "6:unknown-metric:error 8:syntax:error 9:rate-of-instant:error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.rules != "" {
				rl, err := rules.Parse("rules.yaml", []byte(tc.rules))
				if err != nil {
					t.Fatal(err)
				}
				c.Rules = rl
			}
			res := Run(context.Background(), []Input{Buffer("a.conf", []byte(src))}, c, Options{})
			if res.CheckErr != nil || !res.Checked || res.Report == nil {
				t.Fatalf("check: %v", res.CheckErr)
			}
			if got := summary(res.Files[0].Findings.Slice()); got != tc.want {
				t.Errorf("findings %s\nwant     %s", got, tc.want)
			}
			// libpcp's view is untouched by comments and rules.
			if got := summary(res.Files[0].Unfiltered()); !strings.Contains(got, "2:syntax:error") || !strings.Contains(got, "4:unknown-metric:error") {
				t.Errorf("unfiltered findings lost some: %s", got)
			}
		})
	}
}

// TestSyntaxOnlyAndCheckFailure: without a source the parse is the whole
// analysis; a check that fails as a whole keeps the syntax findings and
// says why.
func TestSyntaxOnlyAndCheckFailure(t *testing.T) {
	in := []Input{Buffer("a.conf", []byte("a = 1 +\nb = disk.dev.reda\n"))}
	res := Run(context.Background(), in, Config{Version: VersionChoice{Version: pcpver.Latest}}, Options{})
	if res.Checked || res.SourceName != NoSource || summary(res.Files[0].Findings.Slice()) != "1:syntax:error" {
		t.Errorf("syntax only: checked %v, source %q, findings %s", res.Checked, res.SourceName, summary(res.Files[0].Findings.Slice()))
	}
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest}, Source: failingSource{}}
	res = Run(context.Background(), in, cfg, Options{})
	if res.CheckErr == nil || res.Checked || summary(res.Files[0].Findings.Slice()) != "1:syntax:error" {
		t.Errorf("failed check: err %v, checked %v, findings %s", res.CheckErr, res.Checked, summary(res.Files[0].Findings.Slice()))
	}
}

// failingSource answers nothing.
type failingSource struct{ pmclient.Source }

func (failingSource) Describe() string { return "a source that fails" }
func (failingSource) LookupNames(context.Context, []string) ([]pmapi.PMID, []error, error) {
	return nil, nil, errors.New("connection refused")
}

func (failingSource) Children(context.Context, string) ([]pmclient.Child, error) {
	return nil, errors.New("connection refused")
}

// TestConfigPathAndSeparate: inputs make one config path (a name defined
// in an earlier file is a duplicate in a later one; binding errors print
// after every file has loaded), or with Separate one per PATH argument,
// each followed by its files that are no config. A binary file (a NUL in
// its first 8 KB) is read in its place, as libpcp loads it, after its
// binary-file finding.
func TestConfigPathAndSeparate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	a := write("a.conf", "m.x = disk.dev.reda\n")
	b := write("b.conf", "m.x = 1\nm.y = 1 +\n")
	bin := write("bin.conf", "m.z = 1\n\x00")
	inputs := ReadInputs([]string{a, bin, b, filepath.Join(dir, "missing.conf")}, nil, DefaultMaxSize)
	cfg := embeddedConfig(t)

	one := Run(context.Background(), inputs, cfg, Options{})
	if len(one.IOErrors) != 1 || !strings.Contains(one.IOErrors[0].Error(), "missing.conf") {
		t.Errorf("I/O errors %v", one.IOErrors)
	}
	var names []string
	for _, f := range one.Files {
		names = append(names, filepath.Base(f.File.Path)+"="+summary(f.Findings.Slice()))
	}
	if got, want := strings.Join(names, ", "), "a.conf=1:unknown-metric:error, bin.conf=1:binary-file:error 2:no-final-newline:warning 2:nul-byte:error 2:missing-equals:error, b.conf=1:duplicate-name:error 2:syntax:error"; got != want {
		t.Errorf("one config path:\n got %s\nwant %s", got, want)
	}
	order := one.PCPOrder()
	if got, want := summary(order[0])+" | "+summary(order[2]), " | 1:duplicate-name:error 2:syntax:error 1:unknown-metric:error"; got != want {
		t.Errorf("libpcp's order: %q, want %q", got, want)
	}

	sep := Run(context.Background(), inputs, cfg, Options{Separate: true})
	names = nil
	for _, f := range sep.Files {
		names = append(names, filepath.Base(f.File.Path)+"="+summary(f.Findings.Slice()))
	}
	if got, want := strings.Join(names, ", "), "a.conf=1:unknown-metric:error, bin.conf=1:binary-file:error 2:no-final-newline:warning 2:nul-byte:error 2:missing-equals:error, b.conf=2:syntax:error"; got != want {
		t.Errorf("separate:\n got %s\nwant %s", got, want)
	}
	if sep.Report != nil {
		t.Error("separate config paths have no single report")
	}
}

// TestBufferIsReadLikeAFile: an editor's buffer is classified as a file
// of the same bytes.
func TestBufferIsReadLikeAFile(t *testing.T) {
	for _, src := range [][]byte{[]byte("a = 1\n"), []byte("a = 1\n\x00\x01"), append(bytes.Repeat([]byte("#\n"), 5000), 0)} {
		path := filepath.Join(t.TempDir(), "x.conf")
		os.WriteFile(path, src, 0o644)
		file := ReadInputs([]string{path}, nil, DefaultMaxSize)[0]
		buf := Buffer(path, src)
		if file.Problem != buf.Problem || file.ProblemCode != buf.ProblemCode || !bytes.Equal(file.Src, buf.Src) {
			t.Errorf("file %+v, buffer %+v", file, buf)
		}
	}
}

func TestVersionRequestPick(t *testing.T) {
	for _, tc := range []struct{ pcp, dialect, want, name string }{
		{"", "", Auto, "pcpVersion"},
		{"auto", "", Auto, "pcpVersion"},
		{"6.0", "pcp7", "6.0", "pcpVersion"},
		{"", "pcp6", "pcp6", "dialect"},
		{"auto", "pcp6", "pcp6", "dialect"},
		{"auto", "auto", Auto, "pcpVersion"},
	} {
		v, name := VersionRequest{PCPVersion: tc.pcp, Dialect: tc.dialect, PCPVersionName: "pcpVersion", DialectName: "dialect"}.Pick()
		if v != tc.want || name != tc.name {
			t.Errorf("%q/%q: %q (%s), want %q (%s)", tc.pcp, tc.dialect, v, name, tc.want, tc.name)
		}
	}
}

// TestReadInputsLargestLimit: a size limit past MaxSupportedSize (the
// largest int64 once overflowed the read's limit of maxSize+1, and the
// file was read as empty) reads a file whole.
func TestReadInputsLargestLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.conf")
	text := "a = sample.long.one\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{MaxSupportedSize, math.MaxInt64} {
		in := ReadInputs([]string{path}, nil, limit)
		if len(in) != 1 || string(in[0].Src) != text || in[0].Err != nil || in[0].Problem != "" {
			t.Errorf("limit %d: read %+v, want the file's %d bytes", limit, in, len(text))
		}
	}
}

// TestSortedByPosition: in order of start, equal starts in order too; one
// out of place anywhere is not.
func TestSortedByPosition(t *testing.T) {
	at := func(line, col int32) grammar.Diagnostic {
		return grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: line, Col: col}}}
	}
	for _, tc := range []struct {
		diags []grammar.Diagnostic
		want  bool
	}{
		{nil, true},
		{[]grammar.Diagnostic{at(3, 1)}, true},
		{[]grammar.Diagnostic{at(1, 5), at(1, 5), at(1, 6), at(2, 0)}, true},
		{[]grammar.Diagnostic{at(2, 0), at(1, 9)}, false},
		{[]grammar.Diagnostic{at(1, 0), at(1, 2), at(1, 1)}, false},
	} {
		if got := sortedByPosition(tc.diags); got != tc.want {
			t.Errorf("sortedByPosition(%v) = %v, want %v", tc.diags, got, tc.want)
		}
	}
}

// TestNULLinesDefineWhatLibpcpDefines: a NUL ends a line's expression
// for libpcp, which defines what comes before it; a NUL in the first
// 8 KB makes the file binary-file and it is still read as libpcp reads
// it (pminfo of every release: grammar/testdata/config/nul-bytes.conf).
func TestNULLinesDefineWhatLibpcpDefines(t *testing.T) {
	for _, src := range []string{
		"a.b = 1\n\x00\nc.d = 2\n",
		strings.Repeat("# pad\n", 2000) + "a.b = 1\x00 + garbage\nc.d = 2\n",
	} {
		r := Parse([]Input{Buffer("nul.conf", []byte(src))}, embeddedConfig(t), Options{})
		if len(r.Files) != 1 {
			t.Fatalf("%d files", len(r.Files))
		}
		var defined []string
		for d := range r.Files[0].File.Definitions.Values() {
			if d.Registered {
				defined = append(defined, d.Name)
			}
		}
		if got := strings.Join(defined, " "); got != "a.b c.d" {
			t.Errorf("%.20q...: defined %q, want a.b c.d (findings %s)", src, got, summary(r.Files[0].Findings.Slice()))
		}
	}
}
