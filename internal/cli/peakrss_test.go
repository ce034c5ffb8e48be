package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

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
func TestCheckPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and checks 100,000 definitions")
	}
	if runtime.GOOS != "linux" {
		t.Skip("maxrss in kilobytes is Linux's")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pcp-derive-lsp")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/pcp-derive-lsp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	runs := [][]string{{"--no-metadata"}}
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") != "1" {
		runs = append(runs, []string{"--host", "127.0.0.1"})
	}
	for _, flags := range runs {
		args := append(append([]string{"check", "--format", "json"}, flags...), config)
		cmd := exec.Command(bin, args...)
		// The binary's own memory tuning is part of what is measured.
		cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=")
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != ExitFindings) {
			t.Fatalf("check %v: %v\n%s", flags, err, ee.Stderr)
		}
		if len(out) == 0 {
			t.Fatalf("check %v: no report", flags)
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		t.Logf("check %v of %d bytes: peak RSS %d MB (bound %d MB)", flags, sb.Len(), peak>>20, bound>>20)
		if peak > bound {
			t.Errorf("check %v of a %d-byte config peaked at %d MB RSS, over the bound of 20 times the input + 40 MB (%d MB)", flags, sb.Len(), peak>>20, bound>>20)
		}
	}
}
