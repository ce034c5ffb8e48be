package testsize

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB with a name of our choosing that records
// Fatalf instead of stopping.
type recorder struct {
	testing.TB
	name  string
	fatal string
}

func (r *recorder) Name() string                   { return r.name }
func (r *recorder) Helper()                        {}
func (r *recorder) Logf(string, ...any)            {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }

func TestSample(t *testing.T) {
	cases := make([]int, 20)
	for i := range cases {
		cases[i] = i
	}
	r := &recorder{TB: t, name: "TestSyntaxAcrossReleases/PCP/6.0.3"}
	got := Sample(r, cases)
	want := fmt.Sprint(cases)
	if Race {
		want = "[0 8 16]"
	}
	if fmt.Sprint(got) != want || r.fatal != "" {
		t.Errorf("Sample (race %v) = %v, fatal %q; want %s", Race, got, r.fatal, want)
	}

	r = &recorder{TB: t, name: "TestSyntaxAcrossReleasesToo"}
	Sample(r, cases)
	if !strings.Contains(r.fatal, "only tests matching") {
		t.Errorf("Sample in a test the plain pass does not run: fatal %q", r.fatal)
	}
}
