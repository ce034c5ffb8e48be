package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

// fleetFlags are check's flags for checking one config across many
// hosts (package fleet).
type fleetFlags struct {
	hosts, hostsFile, archiveDir string
	concurrency                  int
	hostTimeout                  time.Duration
	pmproxyRequests              int
	allowUnreachable             bool
}

func (f *fleetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.hosts, "hosts", "", "check against each of `HOSTS`, comma-separated: HOST[:PORT] (its pmcd, or through --pmproxy), http://PROXY:PORT?hostspec=HOST, archive:PATH, NAME=any of these")
	fs.StringVar(&f.hostsFile, "hosts-file", "", "check against each host listed in `FILE`, one per line as in --hosts (# comments)")
	fs.StringVar(&f.archiveDir, "archive-dir", "", "check against each host of a pmlogger farm `DIR` (one folder per host, as pmlogger_check keeps them): its latest archive")
	fs.IntVar(&f.concurrency, "concurrency", fleet.DefaultConcurrency, "with a fleet, check at most `N` hosts at once")
	fs.DurationVar(&f.hostTimeout, "host-timeout", fleet.DefaultHostTimeout, "with a fleet, give up on a host after `DURATION` (it is reported as timed out)")
	fs.IntVar(&f.pmproxyRequests, "pmproxy-requests", 1, "with a fleet, at most `N` requests in flight to one pmproxy (pmproxy up to PCP 7.2 crashes when they overlap)")
	fs.BoolVar(&f.allowUnreachable, "allow-unreachable", false, "with a fleet, hosts that cannot be checked do not make the exit status 2 (they are still reported)")
}

func (f *fleetFlags) active() bool { return f.hosts != "" || f.hostsFile != "" || f.archiveDir != "" }

// targets lists the hosts the flags name, in order: --hosts, then
// --hosts-file, then the archive farm.
func (f *fleetFlags) targets(proxy string) ([]fleet.Target, error) {
	hosts := fleet.Hosts{List: strings.Split(f.hosts, ","), File: f.hostsFile, ArchiveDir: f.archiveDir, PMProxy: proxy}
	out, err := hosts.Targets(fleet.HostsNames{List: "--hosts", File: "--hosts-file", ArchiveDir: "--archive-dir"})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("the fleet names no host")
	}
	return out, err
}

// fleetRun carries check's other settings to a fleet check.
type fleetRun struct {
	version   *versionFlag
	src       *sourceFlags
	format    string
	threshold grammar.Severity
	maxSize   int64
	rules     rules.Rules
	quiet     bool
}

// checkFleet is check --hosts/--hosts-file/--archive-dir: the inputs
// checked against every host (package fleet), reported per definition.
// Exit status: 2 when a host could not be checked (unless
// --allow-unreachable) or an input could not be read, else 1 when any
// host has findings at or above --fail-on, else 0.
func checkFleet(ctx context.Context, env Env, paths []string, fl *fleetFlags, o fleetRun) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: "+format+"\n", args...)
		return ExitUsage
	}
	switch {
	case o.format == "pcp":
		return fail("--format pcp prints one libpcp's messages; a fleet has many: use text, json or sarif")
	case o.version.isList():
		value, flag := o.version.value()
		return fail("%s %s: a fleet follows each host's release (or one given release), not a list", flag, value)
	case o.src.spec != choose.Spec{PMProxy: o.src.spec.PMProxy}: // --pmproxy reaches the hosts
		return fail("--host, --socket, --archive, --metadata, --hostspec and --no-metadata name one source; with a fleet, name the hosts with --hosts, --hosts-file or --archive-dir")
	case fl.concurrency < 1:
		return fail("--concurrency %d: want at least 1", fl.concurrency)
	case fl.hostTimeout <= 0:
		return fail("--host-timeout %v: want a positive duration", fl.hostTimeout)
	}
	targets, err := fl.targets(o.src.spec.PMProxy)
	if err != nil {
		return fail("%v", err)
	}
	ioErrors := 0
	var inputs []analysis.Input
	for _, in := range analysis.ReadInputs(paths, env.Stdin, o.maxSize) {
		switch {
		case in.Err != nil:
			ioErrors++
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp: %v\n", in.Err)
		case in.Problem != "":
			ioErrors++
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp: %s: %s\n", in.Path, in.Problem)
		default:
			inputs = append(inputs, in)
		}
	}
	if len(inputs) == 0 {
		return fail("no config to check in %v", paths)
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	res := fleet.Check(ctx, inputs, targets, fleet.Options{
		Concurrency: fl.concurrency, HostTimeout: fl.hostTimeout, PMProxyParallel: fl.pmproxyRequests,
		Version: o.version.req, InDoms: o.src.equivalence(env), Rules: o.rules, Getenv: getenv,
	})
	stdout := env.Stdout
	if o.quiet {
		stdout = io.Discard
	}
	switch o.format {
	case "text":
		esc := report.NewEscaper(stdout) // host names are input
		err = errors.Join(fleet.WriteText(esc, res, fleet.TextOptions{}), esc.Flush())
	case "json":
		err = fleet.WriteJSON(stdout, res, Version)
	default: // check's formats (but pcp, refused above) of a run per definition
		err = runWriter(o.format, false)(stdout, res.Run("pcp-derive-lsp", Version))
	}
	if err != nil {
		return fail("writing the report: %v", err)
	}
	status, unchecked, failing := fleetStatus(res, o.threshold)
	if o.format == "text" && !o.quiet {
		fmt.Fprintf(env.Stderr, "%s on %s: %d with findings at or above %s somewhere; %s not checked\n",
			plural(len(res.Definitions), "definition"), plural(len(res.Hosts), "host"), failing, o.threshold, plural(unchecked, "host"))
	}
	switch {
	case ioErrors > 0 || unchecked > 0 && !fl.allowUnreachable:
		return ExitUsage
	}
	return status
}

// fleetStatus is the exit status of the worst host: ExitFindings when any
// checked host has a finding at or above the threshold. It also counts
// the hosts not checked and the definitions with such findings.
func fleetStatus(res *fleet.Result, threshold grammar.Severity) (status, unchecked, failing int) {
	status = ExitOK
	for _, h := range res.Hosts {
		if h.State != fleet.Checked {
			unchecked++
		}
	}
	for i := range res.Definitions {
		bad := false
		for _, h := range res.Hosts {
			v, ok := res.Verdict(h, i)
			if !ok {
				continue
			}
			for _, f := range v.Findings {
				if f.Severity != grammar.SeverityHint && f.Severity <= threshold {
					bad = true
				}
			}
		}
		if bad {
			failing++
			status = ExitFindings
		}
	}
	return status, unchecked, failing
}
