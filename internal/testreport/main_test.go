package main

import (
	"io"
	"strings"
	"testing"
)

func TestCounts(t *testing.T) {
	const stream = `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"quiet\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    want 1, got 2\n"}
{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0}
{"Action":"skip","Package":"p","Test":"TestC","Elapsed":0}
{"Action":"fail","Package":"p","Elapsed":0.2}
{"Action":"output","Package":"q","Output":"q.go:1: syntax error\n"}
{"Action":"fail","Package":"q","Elapsed":0}
# a line that is not an event
{"Action":"pass","Package":"r","Elapsed":0}
`
	var out strings.Builder
	tl, err := read(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	// TestA passes; TestB/sub and TestB fail; q fails outside any test.
	if tl.passed != 1 || tl.failed != 3 {
		t.Errorf("passed %d, failed %d; want 1, 3", tl.passed, tl.failed)
	}
	for _, want := range []string{"want 1, got 2", "q.go:1: syntax error", "# a line that is not an event", "ok   r", "FAIL p"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "quiet") {
		t.Errorf("a passing test's output is printed:\n%s", out.String())
	}
}

// TestCountsTwoPasses: make test's -race pass and plain pass both run the
// release differentials; each test counts once, as failed if it failed in
// either pass.
func TestCountsTwoPasses(t *testing.T) {
	const race = `{"Action":"pass","Package":"p","Test":"TestA","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestB/r1","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestB","Elapsed":1}
{"Action":"fail","Package":"p","Test":"TestC","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestD","Elapsed":1}
{"Action":"fail","Package":"p","Elapsed":3}
`
	const plain = `{"Action":"pass","Package":"p","Test":"TestB/r1","Elapsed":1}
{"Action":"pass","Package":"p","Test":"TestB/r2","Elapsed":1}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":1}
{"Action":"fail","Package":"p","Test":"TestC","Elapsed":1}
{"Action":"fail","Package":"p","Test":"TestD","Elapsed":1}
{"Action":"fail","Package":"p","Elapsed":3}
`
	tl, err := read(strings.NewReader(race+plain), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Passed: TestA, TestB/r1, TestB/r2. Failed: TestB (in the plain
	// pass), TestC (in both, once), TestD (passed, then failed).
	if tl.passed != 3 || tl.failed != 3 {
		t.Errorf("passed %d, failed %d; want 3, 3", tl.passed, tl.failed)
	}
}
