package lsp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestMain gives benchmarks the -timeout go test documents ("if a test
// binary runs longer than duration d, panic"): the testing package stops
// its alarm before the benchmarks run, so a benchmark that wedged sat
// idle until go test killed it a minute past the timeout (issue 39).
//
// With LSP_BENCH_STANDIN set, the binary is instead the keystroke
// benchmarks' stand-in server (standin_test.go).
func TestMain(m *testing.M) {
	if path := os.Getenv(standInEnv); path != "" {
		if err := runStandIn(path); err != nil {
			fmt.Fprintln(os.Stderr, "stand-in:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	flag.Parse()
	stop := benchmarkAlarm(flagValue("test.bench"), flagValue("test.timeout"))
	code := m.Run()
	stop()
	os.Exit(code)
}

// flagValue is the text of a testing flag, "" when it is not defined.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// benchmarkAlarm panics, with every goroutine's stack, once the binary
// has run for timeout when benchmarks are asked for (bench not empty);
// stop disarms it.
func benchmarkAlarm(bench, timeout string) (stop func()) {
	d, err := time.ParseDuration(timeout)
	if bench == "" || err != nil || d <= 0 {
		return func() {}
	}
	alarm := time.AfterFunc(d, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("benchmarks still running after -test.timeout %v (every goroutine's stack follows)", d))
	})
	return func() { alarm.Stop() }
}

// BenchmarkWedgedForAlarm stands for a benchmark that never ends, for
// TestBenchmarkAlarm; it is skipped unless that test runs it.
func BenchmarkWedgedForAlarm(b *testing.B) {
	if os.Getenv("LSP_WEDGED_BENCHMARK") != "1" {
		b.Skip("run by TestBenchmarkAlarm")
	}
	select {}
}

// TestBenchmarkAlarm: a benchmark that never ends fails the binary at
// -test.timeout with the goroutine dump that shows where it waits.
func TestBenchmarkAlarm(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // without the alarm
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^$", "-test.bench", "^BenchmarkWedgedForAlarm$", "-test.timeout", "1s")
	cmd.Env = append(os.Environ(), "LSP_WEDGED_BENCHMARK=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the wedged benchmark ended well:\n%s", out)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the alarm took %v", took)
	}
	for _, want := range []string{"benchmarks still running after -test.timeout 1s", "lsp.BenchmarkWedgedForAlarm"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in the output:\n%s", want, out)
		}
	}
}
