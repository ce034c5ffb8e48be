// Package testsize sizes the big differential tests for the build they run
// in. The race detector slows our side of a comparison with a release's
// libpcp about tenfold while the release's own tools run at full speed, so
// make test (scripts/make-test.sh) runs these tests twice: in its -race
// pass on every Stride-th case, which is enough for the detector to see
// the concurrent code they drive, and in a plain pass on every case.
// internal/testreport counts a test that ran in both passes once.
//
// Only the tests Pattern names may sample: those are what the plain pass
// runs, so no case is left to the -race pass alone.
package testsize

import (
	"regexp"
	"strings"
	"testing"
)

// Pattern names the tests that sample, for go test -run: make test's
// plain pass reads it from this line (scripts/make-test.sh). Each was
// among the slowest under -race, for work the detector has nothing to
// watch in (our side of a comparison, or one huge input).
const Pattern = `^(TestSyntaxAcrossReleases|TestScannerMatchesRegexpLexer|TestLongChainVerdict|TestParseExprDepthBound|TestReparseEqualsParse|TestNodesOfEqualsCheck|TestTooDeepCrashesLibpcp|TestIncrementalEqualsRun|TestLongEditingSession)$`

var sampling = regexp.MustCompile(Pattern)

// Stride is the share of the cases the -race pass runs: one in Stride.
const Stride = 8

// Sample returns the cases t runs in this build: all of them in a plain
// build, every Stride-th (from the first) under the race detector. It
// fails t when t (or the test it is a subtest of) is not one Pattern
// names, since the plain pass would
// never run the cases left out.
func Sample[T any](t testing.TB, cases []T) []T {
	t.Helper()
	if top, _, _ := strings.Cut(t.Name(), "/"); !sampling.MatchString(top) {
		t.Fatalf("testsize.Sample in %s: only tests matching %q may sample (make test's plain pass runs those)", t.Name(), Pattern)
	}
	if !Race {
		return cases
	}
	out := make([]T, 0, (len(cases)+Stride-1)/Stride)
	for i := 0; i < len(cases); i += Stride {
		out = append(out, cases[i])
	}
	t.Logf("race detector: %d of %d cases (make test's plain pass runs them all)", len(out), len(cases))
	return out
}
