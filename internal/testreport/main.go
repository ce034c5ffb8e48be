// Command testreport reads `go test -json` on stdin and prints what a
// person reading CI wants: one line per package, the whole output of every
// failing test, and the counts. With -counts FILE it also writes
// "PASSED FAILED" there, for the summary line make test ends with.
//
// Every test and subtest that ends counts once, however many times it
// ran: make test runs the release differentials twice, in the -race pass
// at a smaller size and in a plain pass in full (see
// internal/oracle.RaceSample), and feeds both streams here. A test that
// fails in either counts as one failure. A package that fails without a
// failing test (a build error, a panic in init, a timeout) counts as one
// failure.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json's output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// tally accumulates the events of one or more runs.
type tally struct {
	passed, failed int
	output         map[string]*strings.Builder // by package + "\x00" + test
	failedTests    map[string]int              // failing tests per package
	ended          map[string]bool             // by the key of output: whether it failed
}

// end records that the test or package under key ended, and counts it
// the first time; a failure after a pass moves it from passed to failed.
func (t *tally) end(key string, failed bool) {
	was, seen := t.ended[key]
	switch {
	case !seen && failed:
		t.failed++
	case !seen:
		t.passed++
	case failed && !was:
		t.passed--
		t.failed++
	}
	t.ended[key] = was || failed
}

func main() {
	countsFile := flag.String("counts", "", "write \"PASSED FAILED\" to this file")
	flag.Parse()
	t, err := read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stdout, "go test: %d passed, %d failed\n", t.passed, t.failed)
	if *countsFile != "" {
		if err := os.WriteFile(*countsFile, []byte(fmt.Sprintf("%d %d\n", t.passed, t.failed)), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
			os.Exit(2)
		}
	}
	if t.failed > 0 {
		os.Exit(1)
	}
}

// read consumes the event stream, printing package lines and the output
// of failures to w as they end.
func read(r io.Reader, w io.Writer) (*tally, error) {
	t := &tally{output: map[string]*strings.Builder{}, failedTests: map[string]int{}, ended: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (go vet or build output): pass it on.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			b := t.output[key]
			if b == nil {
				b = &strings.Builder{}
				t.output[key] = b
			}
			if b.Len() < 1<<20 { // keep the report bounded
				b.WriteString(e.Output)
			}
		case "pass", "skip":
			if e.Test != "" && e.Action == "pass" {
				t.end(key, false)
			}
			if e.Test == "" {
				fmt.Fprintf(w, "ok   %s (%.1fs)\n", e.Package, e.Elapsed)
			}
			delete(t.output, key)
		case "fail":
			if e.Test != "" {
				t.end(key, true)
				t.failedTests[e.Package]++
				fmt.Fprintf(w, "--- FAIL %s %s\n%s", e.Package, e.Test, text(t.output[key]))
			} else {
				if t.failedTests[e.Package] == 0 {
					t.end(key, true) // the package failed outside any test
					fmt.Fprintf(w, "%s", text(t.output[key]))
				}
				fmt.Fprintf(w, "FAIL %s (%.1fs)\n", e.Package, e.Elapsed)
			}
			delete(t.output, key)
		}
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("reading go test -json: %w", err)
	}
	// Tests still running when the stream ended (a killed binary).
	var open []string
	for k := range t.output {
		if pkg, test, _ := strings.Cut(k, "\x00"); test != "" {
			open = append(open, pkg+" "+test)
		}
	}
	sort.Strings(open)
	for _, o := range open {
		fmt.Fprintf(w, "--- DID NOT END %s\n", o)
	}
	return t, nil
}

func text(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return b.String()
}
