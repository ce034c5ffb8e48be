package cli

import (
	"errors"
	"flag"
	"fmt"
)

// newFlags makes a subcommand's flag set with the one help style every
// subcommand shares: a usage line, what the command does, its flags.
func newFlags(env Env, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pcp-derive-lsp %s %s\n\n%s\n\nflags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's arguments with flags allowed anywhere
// among them ("check a.conf --format json"), as users of GNU tools
// expect; "--" ends the flags. It returns the other arguments, or
// done=true with the exit status when the command must stop: -h or
// --help prints the usage on stdout (status 0), a bad flag its error and
// the usage on stderr (status 2).
func parseFlags(fs *flag.FlagSet, env Env, args []string) (positional []string, status int, done bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(env.Stdout)
			fs.Usage()
			return nil, ExitOK, true
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, ExitOK, true
			}
			return nil, ExitUsage, true
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), ExitOK, false
		}
		if len(rest) == 0 {
			return positional, ExitOK, false
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
