package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestCheckPeakRSS runs the built binary's check on a generated config
// of 100,000 definitions, syntax only and against the test pmcd, and
// holds its peak resident memory (the kernel's maxrss of the process) to
// the bound of issue #12: 20 times the input plus 40 MB (152 MB for this
// 5.9 MB config). It measured 205 and 540 MB (text format) before the
// check's memory was made proportional to the input; 73 and 134 MB after.
// describe of the same config (text and JSON against the test pmcd, text
// against the embedded metadata) is held to the same bound: it measured
// 244, 407 and 299 MB while it kept every syntax tree, built its whole
// JSON document before writing it and ran without the soft memory
// limit; 138, 137 and 132 MB after.
func TestCheckPeakRSS(t *testing.T) {
	bin, dir := peakRSSBinary(t, "100,000 definitions")
	// The config bench/check.sh generates (genconfig -valid): valid for
	// libpcp 6, so every definition is checked.
	metrics := strings.Split("sample.long.one,sample.long.ten,sample.ulong.hundred,sample.double.one,sample.bin,sample.part_bin,sample.byte_ctr,sample.kbyte_ctr,sample.milliseconds,kernel.all.load,disk.dev.read,disk.dev.read_bytes,mem.util.used,hinv.ncpu", ",")
	g := exprgen.New(1, metrics)
	g.BrokenShare = 0
	var sb strings.Builder
	for i := 0; i < 100000; {
		if e := g.Next(); grammar.LibpcpVerdict(e, pcpver.V6_0_3, false).OK {
			fmt.Fprintf(&sb, "gen.m%d = %s\n", i, e)
			i++
		}
	}
	config := filepath.Join(dir, "gen.conf")
	if err := os.WriteFile(config, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bound := int64(20*sb.Len() + 40<<20)
	runs := [][]string{{"check", "--format", "json", "--no-metadata"}, {"describe", "--metadata", "embedded"}}
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") != "1" {
		runs = append(runs, []string{"check", "--format", "json", "--host", "127.0.0.1"},
			[]string{"describe", "--host", "127.0.0.1"}, []string{"describe", "--format", "json", "--host", "127.0.0.1"})
	}
	for _, args := range runs {
		peak := checkPeakRSS(t, bin, append(args, config))
		t.Logf("%v of %d bytes: peak RSS %d MB (bound %d MB)", args, sb.Len(), peak>>20, bound>>20)
		if peak > bound {
			t.Errorf("%v of a %d-byte config peaked at %d MB RSS, over the bound of 20 times the input + 40 MB (%d MB)", args, sb.Len(), peak>>20, bound>>20)
		}
	}
}

// TestChainedCheckPeakRSS: a config of 400,000 definitions each using
// the one before (m1 = m0 + 1, ...: 8.6 MB, issue #12's attack at half
// its size) keeps every definition's record and checked metric live at
// once, where a generated config of independent ones keeps far less. Its
// peak RSS was 29 times the input before the records were made compact
// (PCP 6.2.2+ reports each metric as a nested-derived semantic error,
// the costliest case); it is held here to 22 times + 40 MB under both
// release families, with room for a busy machine's collector (20 times
// is the goal: about 195 MB measured for 220 MB allowed).
func TestChainedCheckPeakRSS(t *testing.T) {
	bin, dir := peakRSSBinary(t, "400,000 definitions")
	var sb strings.Builder
	sb.WriteString("m0 = sample.long.one\n")
	for i := 1; i < 400000; i++ {
		fmt.Fprintf(&sb, "m%d = m%d + 1\n", i, i-1)
	}
	config := filepath.Join(dir, "chain.conf")
	if err := os.WriteFile(config, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	source := []string{"--host", "127.0.0.1"}
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		source = []string{"--no-metadata"}
	}
	bound := int64(22*sb.Len() + 40<<20)
	for _, release := range []string{"6.0.3", "latest"} {
		peak := checkPeakRSS(t, bin, append(append([]string{"check", "--pcp-version", release}, source...), config))
		t.Logf("check of %d chained definitions (%d bytes), PCP %s: peak RSS %d MB (bound %d MB)", 400000, sb.Len(), release, peak>>20, bound>>20)
		if peak > bound {
			t.Errorf("PCP %s: check of %d bytes of chained definitions peaked at %d MB RSS, over 22 times the input + 40 MB (%d MB)", release, sb.Len(), peak>>20, bound>>20)
		}
	}
}

// TestExplainPeakRSS runs the built binary's explain on the two big
// expressions of issue #41 against the golden archive and holds its peak
// resident memory to the bound: 20 times the input plus 40 MB
// (42 MB for the chain of 20,000 terms, 60 MB for the balanced tree of
// 262,143 nodes), the chain's plus 4 MB for the spread of the collector's
// and the stacks' timing on a loaded machine (the tree runs under a soft
// memory limit, which leaves less spread). Both failed on the binaries
// before issue #41's cuts; docs/limits.md ("explain of a big expression")
// has what each cut measured.
func TestExplainPeakRSS(t *testing.T) {
	bin, dir := peakRSSBinary(t, "explain of a 20,000-term chain and of a 262,143-node tree")
	chain := "x = sample.long.one" + strings.Repeat(" + 1.5", 20000-1) + "\n"
	tree := "x = " + balanced(17, "1.001") + "\n"
	for _, tc := range []struct {
		name, config string
		format       string
		ceiling      int64 // bytes
		nodes        int
	}{
		{"chain", chain, "text", int64(20*len(chain) + 44<<20), 2*20000 - 1},
		{"tree", tree, "json", int64(20*len(tree) + 40<<20), 1<<18 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := filepath.Join(dir, tc.name+".conf")
			if err := os.WriteFile(config, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			r := peakRSS(t, bin, []string{"explain", "--format", tc.format, "--archive", explainArchive, config, "x"})
			if r.status != ExitOK {
				t.Fatalf("exit %d, want %d\n%s", r.status, ExitOK, r.stderr)
			}
			// The whole tree is explained: a line per node after the two
			// of the header, or a JSON document with every node.
			if got := explainedNodes(t, tc.format, r.stdout); got != tc.nodes {
				t.Errorf("%d nodes explained, want %d", got, tc.nodes)
			}
			goal := int64(20*len(tc.config) + 40<<20)
			t.Logf("%s of %d bytes: peak RSS %d MB (ceiling %d MB; the issue's goal %d MB)", tc.name, len(tc.config), r.peak>>20, tc.ceiling>>20, goal>>20)
			if r.peak > tc.ceiling {
				t.Errorf("explain of the %s (%d bytes) peaked at %d MB RSS, over its ceiling of %d MB", tc.name, len(tc.config), r.peak>>20, tc.ceiling>>20)
			}
		})
	}
}

// explainedNodes counts the nodes of explain's output.
func explainedNodes(t *testing.T, format, out string) int {
	t.Helper()
	if format == "text" {
		return strings.Count(out, "\n") - 2
	}
	type node struct {
		Children []*node `json:"children"`
	}
	var doc struct{ Root *node }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Root == nil {
		t.Fatalf("not an explanation: %v\n%.300s", err, out)
	}
	n, stack := 0, []*node{doc.Root}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], x.Children...)
		n++
	}
	return n
}

// balanced is a fully parenthesised sum of 2^depth leaves.
func balanced(depth int, leaf string) string {
	s := leaf
	for range depth {
		s = "(" + s + "+" + s + ")"
	}
	return s
}

// peakRSSBinary skips a peak-RSS test where it cannot run (-short, or
// not Linux) and builds the binary as released (no cgo) into a fresh
// directory, which it returns too.
func peakRSSBinary(t *testing.T, checks string) (bin, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and checks " + checks)
	}
	if runtime.GOOS != "linux" {
		t.Skip("maxrss in kilobytes is Linux's")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "pcp-derive-lsp")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/pcp-derive-lsp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin, dir
}

// checkPeakRSS runs the binary with args, which must report findings or
// none (exit 0 or 1) on stdout, and returns its peak resident memory
// (peakRSS).
func checkPeakRSS(t *testing.T, bin string, args []string) int64 {
	t.Helper()
	r := peakRSS(t, bin, args)
	if r.status != ExitOK && r.status != ExitFindings {
		t.Fatalf("%v: exit %d\n%s", args, r.status, r.stderr)
	}
	if r.stdout == "" {
		t.Fatalf("%v: no report", args)
	}
	return r.peak
}

// peakRSS runs the binary with args and returns how it ended and its
// peak resident memory: the highest VmHWM of its /proc status, read every
// 2 ms while it runs. Not the kernel's maxrss that wait4 reports: a
// process started from this test process counts this one's resident set
// in its own maxrss (the address space it leaves at exec is this
// process's), and a race-enabled test binary's grew past 200 MB, which
// the bound then measured instead of the binary. VmHWM is of the address
// space exec made.
func peakRSS(t *testing.T, bin string, args []string) childResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// The binary's own memory tuning is part of what is measured.
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done, sampled := make(chan struct{}), make(chan struct{})
	var peak int64
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, vmHWM(status))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-sampled
	r := childResult{stdout: stdout.String(), stderr: stderr.String(), peak: peak}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.status = ee.ExitCode()
	default:
		t.Fatalf("%v: %v", args, err)
	}
	if peak == 0 {
		t.Fatalf("%v: no VmHWM read from %s while it ran", args, status)
	}
	return r
}

// vmHWM is the VmHWM of a /proc status file in bytes, 0 when there is
// none (the process is gone, or a zombie).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
