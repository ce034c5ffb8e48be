// Command testreport reads `go test -json` on stdin and prints what a
// person reading CI wants: one line per package, the whole output of every
// failing test, and the counts. With -counts FILE it also writes
// "PASSED FAILED" there, for the summary line make test ends with.
//
// Every test and subtest that ends counts once; a package that fails
// without a failing test (a build error, a panic in init, a timeout)
// counts as one failure.
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

// tally accumulates the events of one run.
type tally struct {
	passed, failed int
	output         map[string]*strings.Builder // by package + "\x00" + test
	failedTests    map[string]int              // failing tests per package
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
	t := &tally{output: map[string]*strings.Builder{}, failedTests: map[string]int{}}
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
				t.passed++
			}
			if e.Test == "" {
				fmt.Fprintf(w, "ok   %s (%.1fs)\n", e.Package, e.Elapsed)
			}
			delete(t.output, key)
		case "fail":
			if e.Test != "" {
				t.failed++
				t.failedTests[e.Package]++
				fmt.Fprintf(w, "--- FAIL %s %s\n%s", e.Package, e.Test, text(t.output[key]))
			} else {
				if t.failedTests[e.Package] == 0 {
					t.failed++ // the package failed outside any test
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
