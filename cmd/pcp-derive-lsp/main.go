// Command pcp-derive-lsp is the language server, CI linter and live
// previewer for Performance Co-Pilot derived metrics.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/cli"
)

// bigGCInput is the config size above which check and describe bound
// their heap by a soft memory limit.
const bigGCInput = 512 << 10

// memoryPerInput and memoryBase make the soft memory limit of a check of
// a big config: the live data of a check is under ten times its text
// (TestCheckPeakRSS in internal/cli holds the peak RSS to 20 times the
// text plus 40 MB), so the collector has room and only works harder near
// the bound. The base leaves the runtime's own memory and the binary's
// pages under the 40 MB.
const (
	memoryPerInput = 20
	memoryBase     = 20 << 20
)

// isTerminal reports whether f is a character device, as a terminal is.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func main() {
	tuneGC := func(int64) {}
	if len(os.Args) > 1 && (os.Args[1] == "check" || os.Args[1] == "describe") && os.Getenv("GOGC") == "" {
		// A one-shot run over a whole config allocates many short-lived
		// parse trees and exits: trading memory for fewer collections
		// makes a 10,000-definition check about 10% faster. A heap of
		// five times the live data is only acceptable for small inputs:
		// past bigGCInput, the soft limit bounds it. The server keeps
		// Go's default.
		debug.SetGCPercent(400)
		tuneGC = func(input int64) {
			if input > bigGCInput && os.Getenv("GOMEMLIMIT") == "" {
				// A soft limit at what a check may cost (memoryPerInput
				// times the text): the heap grows to it, and near it the
				// collector runs as often as it must. Go's default target
				// (twice the live data) collected several times as often
				// for a bound the limit gives anyway: a third of a
				// 100,000-definition check was the collector's.
				debug.SetMemoryLimit(memoryPerInput*input + memoryBase)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	status := cli.Main(ctx, cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		InputsRead: tuneGC, StdinTerminal: isTerminal(os.Stdin), StdoutTerminal: isTerminal(os.Stdout),
	})
	stop()
	os.Exit(status)
}
