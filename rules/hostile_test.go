package rules

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestManyUnknownCodes: a project file naming 140,000 unknown codes
// (issue #41: 1 MiB, killed after 90 s, each code's line found by a walk
// of the whole YAML tree; Load now refuses a file that size, Parse takes
// any) is an error that names the first of them with their lines and
// counts the rest, read in bounded time (its peak RSS
// through check --config is internal/cli's TestProjectConfigPeakRSS).
func TestManyUnknownCodes(t *testing.T) {
	var b strings.Builder
	b.WriteString("disable:\n")
	const n = 140_000
	for i := 0; i < n; i++ {
		code := strconv.FormatInt(int64(i)+36*36*36, 36) // four letters or digits, never a code
		b.WriteString("- " + code + "\n")
	}
	src := []byte(b.String())
	type result struct {
		err       error
		allocated uint64
	}
	done := make(chan result, 1)
	go func() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Parse("p.yaml", src)
		runtime.ReadMemStats(&after)
		done <- result{err, after.TotalAlloc - before.TotalAlloc}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second): // a bound against the quadratic walk, far above the linear read
		t.Fatal("Parse of 140,000 unknown codes has not returned after 60 s")
	}
	if r.err == nil {
		t.Fatal("no error")
	}
	msg := r.err.Error()
	first := strconv.FormatInt(36*36*36, 36)
	if !strings.Contains(msg, "p.yaml:2: unknown finding code \""+first+"\"") || !strings.Contains(msg, "more unknown finding codes or bad severities are not listed") {
		t.Errorf("error %.300q…, want the first code with its line and a count of the rest", msg)
	}
	if lines := strings.Count(msg, "\n") + 1; lines > 101 {
		t.Errorf("%d lines of errors", lines)
	}
	t.Logf("%d bytes: %.1f MB allocated", len(src), float64(r.allocated)/(1<<20))
}
