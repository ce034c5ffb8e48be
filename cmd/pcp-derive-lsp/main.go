// Command pcp-derive-lsp is the language server, CI linter and live
// previewer for Performance Co-Pilot derived metrics.
package main

import (
	"context"
	"math"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/cli"
)

// bigGCInput is the config size above which check and describe bound
// their heap by a soft memory limit.
const bigGCInput = 512 << 10

// memoryPerInput and memoryBase make the soft memory limit of a check of
// a big config: the live data of a check peaks under ten times its text,
// so at 16 times the collector still has room and only works harder near
// the bound, and a check takes no longer than with more room
// (docs/limits.md, "Measurements behind the bounds"). TestCheckPeakRSS in
// internal/cli holds the peak RSS to 20 times the text plus 40 MB. The
// base leaves the runtime's own memory and the binary's pages under the
// 40 MB.
const (
	memoryPerInput = 16
	memoryBase     = 20 << 20
)

// serverMemoryPerInput is memoryPerInput for the language server and the
// documents it has open. Its live data is about twelve times their text
// (a version's parse, check and findings, and what the next version
// shares with it: node metadata is inferred on demand and the lines an
// edit did not touch are the earlier version's): a limit at 22 times
// keeps the peak of a large document under the server's bound of 20
// times its text plus 40 MB, with room enough that a keystroke does not
// collect again and again (docs/limits.md). As the live data shrinks, so
// should this. A document with a finding on most lines has more: the server
// keeps every finding (32 to 46 times the text, docs/limits.md), and the
// collector works harder there rather than the server growing past the
// limit.
const serverMemoryPerInput = 22

// limitMemory sets the soft memory limit for analysing input bytes of
// configs: perInput times the input plus base past bigGCInput, none up
// to it (Go's default collector target keeps a small heap small; a limit
// near a small live heap would make it collect all the time). A
// GOMEMLIMIT the user set is theirs and stays.
func limitMemory(perInput, base, input int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(math.MaxInt64) // the runtime's "no limit"
	if input > bigGCInput {
		limit = perInput*input + base
	}
	debug.SetMemoryLimit(limit)
}

// isTerminal reports whether f is a character device, as a terminal is.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// explainGCPercent is explain's collector target: it holds one
// definition's whole tree, every node with its values, until it has
// written it, so its peak is that live data plus the collector's room.
// At a quarter of the live data rather than Go's default of all of it, a
// 262,143-node tree peaked at 139 to 145 MB instead of 144 to 172 at half
// (and 260 to 298 at Go's default, before the tree was made smaller), a
// 20,000-term chain at 40 to 43 MB instead of 44 to 47, for about 15% more
// CPU (docs/limits.md); a small expression's heap stays under the
// runtime's minimum either way.
const explainGCPercent = 25

// explainMemoryPerInput and explainMemoryBase make explain's soft memory
// limit for a big config, under the bound docs/limits.md gives it (a peak
// of 20 times the input plus 40 MB of RSS). explain holds one definition's
// whole tree until it has written it, and without a limit the collector's
// room and the pages freed but not yet returned to the system put its RSS
// well over that bound; at the limit the collector works harder instead
// and returns what is freed above it at once. The base is below the
// bound's 40 MB by what the runtime does not count: the binary's own
// pages, about 10 MB (docs/limits.md has the measurements).
const (
	explainMemoryPerInput = 20
	explainMemoryBase     = 28 << 20
)

func main() {
	tuneGC := func(int64) {}
	if len(os.Args) > 1 && os.Args[1] == "explain" && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(explainGCPercent)
		tuneGC = func(input int64) { limitMemory(explainMemoryPerInput, explainMemoryBase, input) }
	}
	if len(os.Args) > 1 && (os.Args[1] == "check" || os.Args[1] == "describe") && os.Getenv("GOGC") == "" {
		// A one-shot run over a whole config allocates many short-lived
		// parse trees and exits: trading memory for fewer collections
		// makes it faster (docs/limits.md). A heap of
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
				limitMemory(memoryPerInput, memoryBase, input)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	status := cli.Main(ctx, cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		InputsRead: tuneGC, StdinTerminal: isTerminal(os.Stdin), StdoutTerminal: isTerminal(os.Stdout),
		// The server's memory is bounded the same way by the documents
		// it has open, as they open, grow and close.
		OpenDocuments: func(open int64) { limitMemory(serverMemoryPerInput, memoryBase, open) },
	})
	stop()
	os.Exit(status)
}
