package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
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

// sourceFlags are the flags that say where metadata comes from: they
// fill in the one description of a source (choose.Spec), which source
// checks and choose opens, as it opens the server's and each fleet
// host's.
type sourceFlags struct {
	spec        choose.Spec
	indomConfig string
}

// sourceUse is what a command takes from its source, which its flags'
// help says: check and describe read metadata; eval and explain values
// too. Only check can do without any (--no-metadata).
type sourceUse int

const (
	forChecking sourceUse = iota // check: metadata, or none
	forMetadata                  // describe: metadata
	forValues                    // eval, explain: values and metadata
)

func (s *sourceFlags) register(fs *flag.FlagSet, use sourceUse) {
	what := "metadata"
	if use == forValues {
		what = "values and metadata"
	}
	fs.StringVar(&s.spec.Host, "host", "", what+" from pmcd on `HOST[:PORT]` (local:, unix:PATH, HOST:PORT,PORT...)")
	fs.StringVar(&s.spec.Socket, "socket", "", what+" from pmcd's unix `SOCKET`")
	fs.StringVar(&s.spec.Archive, "archive", "", what+" from a PCP `ARCHIVE`")
	fs.StringVar(&s.spec.PMProxy, "pmproxy", "", what+" from pmcd through the pmproxy at `URL` (http://host:44322; its REST API)")
	fs.StringVar(&s.spec.Hostspec, "hostspec", "", "with --pmproxy, the pmcd `HOST[:PORT]` pmproxy is to reach (default --host, else pmproxy's own host)")
	fs.StringVar(&s.spec.Metadata, "metadata", "", "metadata from a snapshot `FILE` (see the snapshot command), or \""+choose.Embedded+"\" for the one in the binary")
	if use == forChecking {
		fs.BoolVar(&s.spec.None, "no-metadata", false, "syntax checks only")
	}
	fs.StringVar(&s.indomConfig, "indom-config", "", "equivalent instance domains from `FILE` (pcp7; default $PCP_INDOM_CONFIG, else $PCP_ETC_DIR/pcp/indom.conf)")
}

// named says the flags name a source (else choose's default applies).
func (s *sourceFlags) named() bool { return s.spec != choose.Spec{} }

// source is the source the flags describe, refused when they
// contradict each other.
func (s *sourceFlags) source() (choose.Spec, error) {
	if s.spec.Hostspec != "" && s.spec.PMProxy == "" {
		return choose.Spec{}, fmt.Errorf("--hostspec %s: names the pmcd a pmproxy reaches; give --pmproxy URL too (or --host %s to reach it directly)", s.spec.Hostspec, s.spec.Hostspec)
	}
	return s.spec, nil
}

// open opens the source (see package choose); nil for --no-metadata.
func (s *sourceFlags) open(ctx context.Context, env Env) (pmclient.Source, error) {
	spec, err := s.source()
	if err != nil {
		return nil, err
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return choose.Open(ctx, spec, choose.Options{Getenv: getenv})
}

// equivalence reads the equivalent instance domains (see
// choose.Equivalence) and prints the problems found in the file.
func (s *sourceFlags) equivalence(env Env) *pmapi.InDomEquivalence {
	eq, problems, err := choose.Equivalence(s.indomConfig, env.Getenv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp: indom config: %v\n", err)
	}
	for _, p := range problems {
		kind := "error (libpcp ignores the whole file)"
		if p.Warning {
			kind = "warning"
		}
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp: %s:%d: %s: %s\n", p.File, p.Line, kind, p.Msg)
	}
	return eq
}

// kindFlag is --kind: the reader every PATH goes through, the same for
// check, describe, eval and explain.
type kindFlag struct{ name string }

func (k *kindFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&k.name, "kind", "auto", "read every PATH as `KIND`: auto (by path and content), derived, pmrep, dstat or htop")
}

// resolve is the kind asked for; false (said on stderr) for a word that
// names none.
func (k *kindFlag) resolve(env Env, cmd string) (toolconf.Kind, bool) {
	kind, err := toolconf.ParseKind(k.name)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: --kind: %v\n", cmd, err)
		return kind, false
	}
	return kind, true
}
