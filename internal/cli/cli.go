// Package cli implements the pcp-derive-lsp subcommands; main only
// dispatches to it, so the commands can be tested in-process.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version and Commit are set at build time by the release script
// (scripts/release.sh, -ldflags "-X .../internal/cli.Version=0.2.0
// -X .../internal/cli.Commit=abc1234def56"). Left unset, init fills them
// from the binary's build information (fromBuildInfo), so every output
// that names the tool's version (--version, SARIF, JSON, the language
// server's serverInfo) agrees.
var (
	Version = "0.1.0-dev"
	Commit  = ""
)

func init() {
	if info, ok := debug.ReadBuildInfo(); ok {
		Version, Commit = fromBuildInfo(Version, Commit, info)
	}
}

// fromBuildInfo fills what -ldflags left unset from what the Go toolchain
// recorded: the main module's version ("v0.2.0" from go install
// ...@v0.2.0; go build in a git checkout records the tag or a
// pseudo-version) and the vcs.revision of a build in a git checkout,
// shortened to 12 digits, with "-dirty" when the tree had changes. Test
// binaries record neither and keep the defaults.
func fromBuildInfo(version, commit string, info *debug.BuildInfo) (string, string) {
	if strings.HasSuffix(version, "-dev") && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = strings.TrimPrefix(info.Main.Version, "v")
	}
	if commit == "" {
		dirty := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if commit != "" && dirty {
			commit += "-dirty"
		}
	}
	return version, commit
}

// versionLine is what --version, -V and the version command print: the
// version, the commit it was built from and the Go that built it, e.g.
// "pcp-derive-lsp 0.2.0 (commit 74cceb1d7d47, go1.26.8 linux/amd64)".
func versionLine() string {
	commit := Commit
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("pcp-derive-lsp %s (commit %s, %s %s/%s)", Version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Env is what a command may touch: its arguments and standard streams.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (os.Getenv in main).
	Getenv func(string) string
	// InputsRead, when set, is told how many bytes of configs a one-shot
	// command read before analysing them, so the binary can tune the
	// runtime to the input (main trades memory for speed only on small
	// inputs). Tests leave it nil.
	InputsRead func(bytes int64)
	// OpenDocuments, when set, is told the total size of the documents
	// the language server has open as it changes (lsp.Options), so the
	// binary can bound its memory to them. Tests leave it nil.
	OpenDocuments func(bytes int64)
	// StdinTerminal and StdoutTerminal say whether stdin and stdout are
	// terminals: a bare command on a terminal prints help rather than
	// starting a server, and text output is coloured on one.
	StdinTerminal, StdoutTerminal bool
	// fixWriter, when set, is what check --fix writes a fixed file's
	// temporary copy through (tests make it fail as a full disk does).
	fixWriter func(*os.File) io.Writer
}

// Exit statuses.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
)

const usage = `usage: pcp-derive-lsp [command] [flags] [arguments]

commands:
  serve      speak the Language Server Protocol on stdin/stdout (the default)
  check      report problems in derived metric configs (for CI)
  describe   print the metadata libpcp will give each derived metric
  eval       compute derived metric values from pmcd or an archive
  explain    show every subexpression's values and why a metric has none
  snapshot   save a host's metric metadata for hermetic checks
  web        serve a page of explain trees with each node's values over time
  version    print the version

Run "pcp-derive-lsp COMMAND -h" for a command's flags.
`

// Main runs a command line and returns the exit status.
func Main(ctx context.Context, env Env) int {
	args := env.Args
	if len(args) == 0 && env.StdinTerminal {
		// Somebody typed the bare command: a server waiting for LSP
		// messages on their terminal would look like a hang.
		fmt.Fprint(env.Stderr, usage+"\nThe language server starts when stdin is not a terminal (editors run it so),\nor with \"pcp-derive-lsp serve\".\n")
		return ExitUsage
	}
	cmd := "serve"
	if len(args) > 0 && (len(args[0]) == 0 || args[0][0] != '-' || args[0] == "-h" || args[0] == "--help" ||
		args[0] == "--version" || args[0] == "-version" || args[0] == "-V") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, env, args)
	case "check":
		return runCheck(ctx, env, args)
	case "describe":
		return runDescribe(ctx, env, args)
	case "eval":
		return runEval(ctx, env, args)
	case "explain":
		return runExplain(ctx, env, args)
	case "snapshot":
		return runSnapshot(ctx, env, args)
	case "web":
		return runWeb(ctx, env, args)
	case "version", "--version", "-version", "-V":
		fmt.Fprintln(env.Stdout, versionLine())
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "pcp-derive-lsp: unknown command %q\n%s", cmd, usage)
	return ExitUsage
}
