package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv carries, to a child of this test binary (TestCLIChild), the
// resource limits it sets on itself before it runs the command line
// after "--": "fsize=BYTES as=BYTES" (RLIMIT_FSIZE, RLIMIT_AS; either may
// be left out).
const childEnv = "PCP_DERIVE_LSP_TEST_CHILD"

// childPeakPrefix starts the line on which a child reports its peak
// resident memory (VmHWM) in bytes, on stderr after the command's output.
const childPeakPrefix = "child-peak-rss: "

// childHang is how long a child may run before it is taken to hang and
// killed: a bound against a hang (a FIFO's open), far above what any of
// these commands takes.
const childHang = 60 * time.Second

// TestCLIChild is not a test: it is the child runChild starts, which
// sets its resource limits (a disk with no room left, a memory limit, so
// that what an attack would do is bounded and seen) and runs a command.
func TestCLIChild(t *testing.T) {
	limits, ok := os.LookupEnv(childEnv)
	if !ok {
		t.Skip("the child of runChild")
	}
	for _, l := range strings.Fields(limits) {
		name, value, _ := strings.Cut(l, "=")
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		resource := map[string]int{"fsize": syscall.RLIMIT_FSIZE, "as": syscall.RLIMIT_AS}[name]
		if err := syscall.Setrlimit(resource, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			t.Fatal(err)
		}
	}
	var args []string
	for i, a := range os.Args {
		if a == "--" {
			args = os.Args[i+1:]
			break
		}
	}
	var stderr bytes.Buffer
	status := Main(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	os.Stderr.Write(stderr.Bytes())
	fmt.Fprintf(os.Stderr, "%s%d\n", childPeakPrefix, vmHWM("/proc/self/status"))
	os.Exit(status)
}

// childResult is how a child's command ended.
type childResult struct {
	stdout, stderr string
	status         int
	peak           int64 // VmHWM in bytes, 0 when the child did not say (it crashed)
	hung           bool  // killed after childHang
}

// runChild runs a command line in a child of this test binary under
// limits (see childEnv), and kills it if it hangs.
func runChild(t *testing.T, limits string, args ...string) childResult {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("resource limits and VmHWM of a child are Linux's")
	}
	ctx, cancel := context.WithTimeout(context.Background(), childHang)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestCLIChild$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"="+limits, "GOGC=", "GOMEMLIMIT=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := childResult{stdout: stdout.String(), hung: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.status = ee.ExitCode()
	default:
		t.Fatalf("%v: %v", args, err)
	}
	r.stderr = stderr.String()
	if i := strings.LastIndex(r.stderr, childPeakPrefix); i >= 0 {
		r.peak, _ = strconv.ParseInt(strings.TrimSpace(r.stderr[i+len(childPeakPrefix):]), 10, 64)
		r.stderr = r.stderr[:i]
	}
	return r
}
