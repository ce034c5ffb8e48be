package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// The formats CI systems read natively: GitHub workflow commands,
// Checkstyle XML (Jenkins, many review bots), JUnit XML (test report
// panes) and GitLab's code quality report.

// GitHub writes one workflow command per finding, so a GitHub Actions
// run annotates the lines of the pull request without SARIF upload.
func GitHub(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			level := levelName(d.Severity, "error", "warning", "notice")
			end := d.Range.End
			if end.Line != d.Range.Start.Line {
				end = d.Range.Start
			}
			fmt.Fprintf(bw, "::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n", level,
				ghProperty(f.File.Path), d.Range.Start.Line, d.Range.Start.Col, end.Line, max(end.Col, d.Range.Start.Col+1),
				ghProperty("pcp-derive-lsp "+d.Code), ghData(d.Message))
		}
	}
	for _, u := range r.Unread {
		fmt.Fprintf(bw, "::error file=%s,title=%s::%s\n", ghProperty(u.Path), ghProperty("pcp-derive-lsp: not read"), ghData(u.Message))
	}
	return bw.Flush()
}

// levelName names a severity in a format's words for errors, warnings
// and everything else.
func levelName(s grammar.Severity, errorName, warningName, other string) string {
	switch s {
	case grammar.SeverityError:
		return errorName
	case grammar.SeverityWarning:
		return warningName
	}
	return other
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Checkstyle writes Checkstyle's XML report: a <file> per checked file,
// an <error> per finding.
func Checkstyle(w io.Writer, r *Run) error {
	type cError struct {
		Line     int32  `xml:"line,attr"`
		Column   int32  `xml:"column,attr"`
		Severity string `xml:"severity,attr"`
		Message  string `xml:"message,attr"`
		Source   string `xml:"source,attr"`
	}
	type cFile struct {
		Name   string   `xml:"name,attr"`
		Errors []cError `xml:"error"`
	}
	type checkstyle struct {
		XMLName xml.Name `xml:"checkstyle"`
		Version string   `xml:"version,attr"`
		Files   []cFile  `xml:"file"`
	}
	doc := checkstyle{Version: "4.3"}
	for _, f := range r.Files {
		cf := cFile{Name: f.File.Path}
		for _, d := range f.Diagnostics {
			sev := levelName(d.Severity, "error", "warning", "info")
			cf.Errors = append(cf.Errors, cError{d.Range.Start.Line, d.Range.Start.Col, sev, d.Message, "pcp-derive-lsp." + d.Code})
		}
		doc.Files = append(doc.Files, cf)
	}
	for _, u := range r.Unread {
		doc.Files = append(doc.Files, cFile{Name: u.Path, Errors: []cError{{Severity: "error", Message: u.Message, Source: "pcp-derive-lsp.unread"}}})
	}
	return writeXML(w, doc)
}

// JUnit writes a JUnit XML report: a test suite per file, a failing test
// case per error or warning (so CI's test pane lists them), a passing one
// for a clean file.
func JUnit(w io.Writer, r *Run) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		// Error: the case could not run (an input not read).
		Error *failure `xml:"error,omitempty"`
	}
	type testsuite struct {
		Name      string     `xml:"name,attr"`
		Tests     int        `xml:"tests,attr"`
		Failures  int        `xml:"failures,attr"`
		Errors    int        `xml:"errors,attr"`
		Testcases []testcase `xml:"testcase"`
	}
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	doc := testsuites{Name: "pcp-derive-lsp"}
	for _, f := range r.Files {
		s := testsuite{Name: f.File.Path}
		for _, d := range f.Diagnostics {
			if d.Severity != grammar.SeverityError && d.Severity != grammar.SeverityWarning {
				continue
			}
			where := fmt.Sprintf("%s:%d:%d", f.File.Path, d.Range.Start.Line, d.Range.Start.Col)
			s.Testcases = append(s.Testcases, testcase{
				Name: where + " " + d.Code, Classname: f.File.Path,
				Failure: &failure{Message: d.Message, Type: d.Severity.String(), Text: fmt.Sprintf("%s: %s: %s [%s]\n%s", where, d.Severity, d.Message, d.Code, f.File.Line(int(d.Range.Start.Line)))},
			})
			s.Failures++
		}
		if len(s.Testcases) == 0 {
			s.Testcases = append(s.Testcases, testcase{Name: f.File.Path, Classname: f.File.Path})
		}
		s.Tests = len(s.Testcases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Suites = append(doc.Suites, s)
	}
	for _, u := range r.Unread {
		doc.Suites = append(doc.Suites, testsuite{Name: u.Path, Tests: 1, Errors: 1, Testcases: []testcase{{
			Name: u.Path, Classname: u.Path, Error: &failure{Message: u.Message, Type: "unread", Text: u.Message},
		}}})
		doc.Tests++
		doc.Errors++
	}
	return writeXML(w, doc)
}

func writeXML(w io.Writer, doc any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// GitLab writes GitLab's code quality report (a JSON array of issues),
// which merge requests show inline. The fingerprint is stable across
// runs and line moves: the code, the file and the text of the line.
func GitLab(w io.Writer, r *Run) error {
	type position struct {
		Line   int32 `json:"line"`
		Column int32 `json:"column"`
	}
	type location struct {
		Path      string `json:"path"`
		Positions struct {
			Begin position `json:"begin"`
			End   position `json:"end"`
		} `json:"positions"`
	}
	type issue struct {
		Description string   `json:"description"`
		CheckName   string   `json:"check_name"`
		Fingerprint string   `json:"fingerprint"`
		Severity    string   `json:"severity"`
		Location    location `json:"location"`
	}
	issues := []issue{}
	seen := map[string]int{}
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			sev := levelName(d.Severity, "major", "minor", "info")
			key := d.Code + "\x00" + f.File.Path + "\x00" + f.File.Line(int(d.Range.Start.Line)) + "\x00" + d.Message
			seen[key]++
			sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, seen[key])))
			is := issue{Description: d.Message, CheckName: "pcp-derive-lsp/" + d.Code, Fingerprint: hex.EncodeToString(sum[:16]), Severity: sev}
			is.Location.Path = f.File.Path
			is.Location.Positions.Begin = position{d.Range.Start.Line, d.Range.Start.Col}
			is.Location.Positions.End = position{d.Range.End.Line, d.Range.End.Col}
			issues = append(issues, is)
		}
	}
	for _, u := range r.Unread {
		sum := sha256.Sum256([]byte("unread\x00" + u.Path))
		is := issue{Description: u.Message, CheckName: "pcp-derive-lsp/unread", Fingerprint: hex.EncodeToString(sum[:16]), Severity: "blocker"}
		is.Location.Path = u.Path
		is.Location.Positions.Begin = position{1, 1}
		is.Location.Positions.End = position{1, 1}
		issues = append(issues, is)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(issues)
}
