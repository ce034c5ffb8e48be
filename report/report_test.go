package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

func span(line, startCol, endCol int) grammar.Range {
	return grammar.Range{Start: grammar.Pos{Line: int32(line), Col: int32(startCol)}, End: grammar.Pos{Line: int32(line), Col: int32(endCol)}}
}

func TestExcerpt(t *testing.T) {
	long := "x = " + strings.Repeat("a + ", 100) + "bad.metric + " + strings.Repeat("b + ", 100) + "c"
	at := strings.Index(long, "bad.metric") + 1
	tests := []struct {
		name       string
		line       string
		rg         grammar.Range
		width      int
		text, mark string
	}{
		{"short line shown whole", "x = a + b", span(1, 9, 10), 160, "x = a + b", "        ^"},
		{"tabs kept in the marker", "x =\ta", span(1, 5, 6), 160, "x =\ta", "   \t^"},
		{"range at the start of a long line", long, span(1, 1, 2), 20, long[:20] + "…", "^"},
		{"range in the middle of a long line", long, span(1, at, at+10), 20,
			"…" + long[at-1-5:at-1+15] + "…", "      ^" + strings.Repeat("~", 9)},
		{"range at the end of a long line", long, span(1, len(long), len(long)+1), 20,
			"…" + long[len(long)-6:], "      ^"},
		{"range running past the window", long, span(1, at, len(long)+1), 20,
			"…" + long[at-1-5:at-1+15] + "…", "      ^" + strings.Repeat("~", 14)},
		{"cut on rune boundaries", strings.Repeat("é", 50) + "x", span(1, 101, 102), 13,
			"…" + "éé" + "x", "   ^"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, mark := excerpt(tc.line, tc.rg, tc.width)
			if text != tc.text || mark != tc.mark {
				t.Errorf("excerpt\n got %q\n     %q\nwant %q\n     %q", text, mark, tc.text, tc.mark)
			}
		})
	}
}

// TestTextOutputLinearInFindings is the regression test for a 1 MB
// single-line config with 55,000 findings that printed the whole line
// under each of them (over 75 GB of output).
func TestTextOutputLinearInFindings(t *testing.T) {
	const n = 2000
	src := "x = m" + strings.Repeat(" + m", n-1) + "\n"
	f := grammar.ParseConfig("long.conf", []byte(src), grammar.Options{})
	var diags []grammar.Diagnostic
	for i := 0; i < n; i++ {
		col := 5 + 4*i
		diags = append(diags, grammar.Diagnostic{Range: span(1, col, col+1), Severity: grammar.SeverityError, Code: "unknown-metric", Message: "unknown metric m"})
	}
	var out bytes.Buffer
	if err := Text(&out, &Run{Files: []File{{File: f, Diagnostics: diags}}}); err != nil {
		t.Fatal(err)
	}
	if limit := n * (3*MaxSourceWidth + 100); out.Len() > limit {
		t.Fatalf("%d findings on a %d-byte line printed %d bytes, want at most %d", n, len(src), out.Len(), limit)
	}
	lines := strings.Split(out.String(), "\n")
	if got, want := lines[0], "long.conf:1:5: error: unknown metric m [unknown-metric]"; got != want {
		t.Errorf("first header %q, want %q", got, want)
	}
	for _, l := range lines {
		if len(l) > MaxSourceWidth+20 {
			t.Fatalf("line of %d bytes: %.80q...", len(l), l)
		}
	}
}

// TestGitHubEscaping: workflow command properties and messages escape
// what would end them early (GitHub's documented escapes).
func TestGitHubEscaping(t *testing.T) {
	if got, want := ghProperty("a,b:c%\n"), "a%2Cb%3Ac%25%0A"; got != want {
		t.Errorf("ghProperty = %q, want %q", got, want)
	}
	if got, want := ghData("50% of x:y,\r\n"), "50%25 of x:y,%0D%0A"; got != want {
		t.Errorf("ghData = %q, want %q", got, want)
	}
}

// TestSARIFLocations: a file under the base directory is relative to
// %SRCROOT%; any other is an absolute file URI with no base (it used to
// be "../x" with %SRCROOT%, outside the root); quick fixes are SARIF
// fixes.
func TestSARIFLocations(t *testing.T) {
	base := t.TempDir()
	inside := grammar.ParseConfig(base+"/conf/a.conf", []byte("x = m\n"), grammar.Options{})
	outside := grammar.ParseConfig("/elsewhere/b.conf", []byte("x = m\n"), grammar.Options{})
	d := grammar.Diagnostic{Range: span(1, 5, 6), Severity: grammar.SeverityError, Code: "unknown-metric", Message: "unknown metric m",
		Fixes: []grammar.Fix{{Title: "Change to n", Edits: []grammar.Edit{{Range: span(1, 5, 6), NewText: "n"}}}}}
	var out bytes.Buffer
	if err := SARIF(&out, &Run{Files: []File{{File: inside, Diagnostics: []grammar.Diagnostic{d}}, {File: outside, Diagnostics: []grammar.Diagnostic{d}}}}, base); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"uri": "conf/a.conf",
                  "uriBaseId": "%SRCROOT%"`, `"uri": "file:///elsewhere/b.conf"
`, `"text": "Change to n"`, `"insertedContent": {`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("SARIF lacks %s:\n%s", want, out.String())
		}
	}
}

// jsonDocument is JSON as it was before it streamed: one document
// encoded at once. The streamed bytes must be the same.
func jsonDocument(w io.Writer, r *Run) error {
	type file struct {
		Path        string     `json:"path"`
		Diagnostics []jsonDiag `json:"diagnostics"`
	}
	doc := struct {
		Version     int    `json:"version"`
		Tool        string `json:"tool"`
		ToolVersion string `json:"toolVersion"`
		PCPVersion  string `json:"pcpVersion"`
		Why         string `json:"pcpVersionReason"`
		Source      string `json:"source"`
		Files       []file `json:"files"`
	}{2, r.Tool, r.Version, r.PCPVersion.String(), r.PCPVersionReason, r.Source, []file{}}
	for _, f := range r.Files {
		jf := file{Path: f.File.Path, Diagnostics: []jsonDiag{}}
		for _, d := range f.Diagnostics {
			jf.Diagnostics = append(jf.Diagnostics, jsonDiagOf(f.File, d))
		}
		doc.Files = append(doc.Files, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// TestJSONStreamsTheSameBytes: the streamed document is byte for byte
// what encoding/json writes for the whole document, with no files, files
// without findings, and findings with and without libpcp lines, with
// characters JSON escapes.
func TestJSONStreamsTheSameBytes(t *testing.T) {
	f := grammar.ParseConfig("a<b>&\"c\".conf", []byte("x = 1 +\ny = a b\nz = 1\n"), grammar.Options{Version: pcpver.V6_0_3})
	empty := grammar.ParseConfig("empty.conf", nil, grammar.Options{Version: pcpver.V6_0_3})
	extra := grammar.Diagnostic{Severity: grammar.SeverityWarning, Code: "x", Message: "<é> \u2028 \x01 & \"q\""}
	runs := []*Run{
		{Tool: "t", Version: "v"},
		{Tool: "t", Version: "v", Source: "s", Files: []File{{File: empty}}},
		{Tool: "t", Version: "v", PCPVersion: pcpver.V6_0_3, PCPVersionReason: "why & <how>",
			Files: []File{{File: f, Diagnostics: append(f.Diagnostics, extra)}, {File: empty}}},
	}
	for i, r := range runs {
		var got, want bytes.Buffer
		if err := JSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if err := jsonDocument(&want, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("run %d: streamed\n%s\nwant\n%s", i, got.String(), want.String())
		}
	}
}

// TestUnreadInputsInEveryFormat: an input that could not be read is in
// every machine-readable report, beside the files that were read, so a
// CI job reading only the report does not take the run for clean.
func TestUnreadInputsInEveryFormat(t *testing.T) {
	read := grammar.ParseConfig("good.conf", []byte("x = 1\n"), grammar.Options{})
	run := &Run{Tool: "pcp-derive-lsp", Files: []File{{File: read}},
		Unread: []Unread{{Path: "gone.conf", Message: "stat gone.conf: no such file or directory"}}}
	formats := []struct {
		name  string
		write func(io.Writer, *Run) error
		check func(t *testing.T, out []byte)
	}{
		{"json", JSON, func(t *testing.T, out []byte) {
			var doc struct {
				Files  []struct{ Path string }
				Unread []struct{ Path, Message string }
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if len(doc.Files) != 1 || len(doc.Unread) != 1 || doc.Unread[0].Path != "gone.conf" || !strings.Contains(doc.Unread[0].Message, "no such file") {
				t.Errorf("files %+v, unread %+v", doc.Files, doc.Unread)
			}
		}},
		{"junit", JUnit, func(t *testing.T, out []byte) {
			var doc struct {
				Tests  int `xml:"tests,attr"`
				Errors int `xml:"errors,attr"`
				Suites []struct {
					Name   string `xml:"name,attr"`
					Errors int    `xml:"errors,attr"`
					Cases  []struct {
						Error *struct {
							Message string `xml:"message,attr"`
						} `xml:"error"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(out, &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, out)
			}
			last := doc.Suites[len(doc.Suites)-1]
			if doc.Tests != 2 || doc.Errors != 1 || last.Name != "gone.conf" || last.Errors != 1 || last.Cases[0].Error == nil || !strings.Contains(last.Cases[0].Error.Message, "no such file") {
				t.Errorf("JUnit report:\n%s", out)
			}
		}},
		{"sarif", func(w io.Writer, r *Run) error { return SARIF(w, r, t.TempDir()) }, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte(`"executionSuccessful": false`)) || !bytes.Contains(out, []byte("gone.conf")) {
				t.Errorf("SARIF report:\n%s", out)
			}
		}},
	}
	for _, name := range []string{"github", "checkstyle", "gitlab"} {
		write := map[string]func(io.Writer, *Run) error{"github": GitHub, "checkstyle": Checkstyle, "gitlab": GitLab}[name]
		formats = append(formats, struct {
			name  string
			write func(io.Writer, *Run) error
			check func(t *testing.T, out []byte)
		}{name, write, func(t *testing.T, out []byte) {
			if !bytes.Contains(out, []byte("gone.conf")) || !bytes.Contains(out, []byte("no such file or directory")) {
				t.Errorf("%s report lacks the unread input:\n%s", name, out)
			}
		}})
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := f.write(&out, run); err != nil {
				t.Fatal(err)
			}
			f.check(t, out.Bytes())
		})
	}
}
