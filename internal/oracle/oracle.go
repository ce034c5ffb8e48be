// Package oracle asks the real libpcp of a PCP release for its verdicts,
// metadata and values, for the differential tests of grammar, checker and
// evaluator. The releases are this machine's own (Debian 12's 6.0.3), the
// chroots scripts/pcp-releases.sh makes of Debian's bullseye (5.2.6),
// trixie (6.3.8) and sid (7.2.2), and the upstream builds of 5.3.7, 6.2.0
// and 7.0.2 that scripts/pcp-oracles.sh unpacks from ../shared/oracles
// (their libpcp, pminfo and pmval, run on this machine). Derived metrics
// live in the client library, so a release's pminfo, and its libpcp
// driven from Python, against the test pmcd on 127.0.0.1 are that
// release's answer.
package oracle

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

//go:embed register.py
var registerScript []byte

// Release is one libpcp to ask: this machine's own, a Debian chroot's
// (Root), or an upstream build unpacked on this machine (Prefix).
type Release struct {
	Suite   string // the Debian suite, or "upstream" for a build from ../shared/oracles
	Version pcpver.Version
	Root    string // the chroot; "" for this machine
	Prefix  string // the unpacked upstream build; "" for Debian's packages
	// Env are NAME=VALUE settings every program of the release runs
	// with, on top of this process's environment ($PCP_DERIVED_CONTROL).
	Env []string
}

// With is r running its programs with the NAME=VALUE settings added.
func (r Release) With(env ...string) Release {
	r.Env = append(append([]string(nil), r.Env...), env...)
	return r
}

func (r Release) String() string { return fmt.Sprintf("PCP %s (%s)", r.Version, r.Suite) }

// HasPython reports whether the release has its own python3-pcp (Debian's
// packages do; the upstream builds have only libpcp, pminfo and pmval, and
// are driven through ctypes from this machine's Python instead).
func (r Release) HasPython() bool { return r.Prefix == "" }

// HasPMCD reports whether the release can run a pmcd of its own (the
// chroots and this machine; an upstream build is a client only).
func (r Release) HasPMCD() bool { return r.Prefix == "" }

// ErrNoOracle is returned when PCP_DERIVE_LSP_NO_ORACLE=1 asks to do
// without the real libraries (tests skip then; CI never sets it).
var ErrNoOracle = errors.New("PCP_DERIVE_LSP_NO_ORACLE=1")

// Dir is where scripts/pcp-releases.sh keeps the chroots.
func Dir() string {
	if d := os.Getenv("PCP_RELEASES_DIR"); d != "" {
		return d
	}
	return "/var/cache/pcp-derive-lsp/releases"
}

// Host is this machine's own libpcp (Debian 12's 6.0.3), outside any
// chroot.
func Host() Release { return Release{Suite: "bookworm", Version: pcpver.V6_0_3} }

// Releases lists every release to compare with, oldest first (the order
// of pcpver.Proved): this machine's libpcp, each chroot and each upstream
// build. A missing one is an error naming the script that makes it.
func Releases() ([]Release, error) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		return nil, ErrNoOracle
	}
	upstream := func(v pcpver.Version) Release {
		return Release{Suite: "upstream", Version: v, Prefix: filepath.Join(UpstreamDir(), "pcp-"+v.String())}
	}
	out := []Release{
		{Suite: "bullseye", Version: pcpver.V5_2_6, Root: filepath.Join(Dir(), "bullseye")},
		upstream(pcpver.V5_3_7),
		Host(),
		upstream(pcpver.V6_2_0),
		{Suite: "trixie", Version: pcpver.V6_3_8, Root: filepath.Join(Dir(), "trixie")},
		upstream(pcpver.V7_0_2),
		{Suite: "sid", Version: pcpver.V7_2_2, Root: filepath.Join(Dir(), "sid")},
	}
	for _, r := range out {
		if r.Prefix != "" {
			if _, err := os.Stat(filepath.Join(r.Prefix, ".unpacked")); err != nil {
				return nil, fmt.Errorf("%s: %s is not unpacked: run scripts/pcp-oracles.sh (make testenv), which needs ../shared/oracles beside the clone", r, r.Prefix)
			}
			continue
		}
		pminfo := filepath.Join("/", r.Root, "usr/bin/pminfo")
		if _, err := os.Stat(pminfo); err != nil {
			return nil, fmt.Errorf("%s: %s is missing: run scripts/pcp-releases.sh (and scripts/pcp-testenv.sh)", r, pminfo)
		}
	}
	return out, nil
}

// UpstreamDir is where scripts/pcp-oracles.sh unpacks the upstream builds
// (pcp-release.sh's own cache, $PCP_ORACLE_CACHE).
func UpstreamDir() string {
	if d := os.Getenv("PCP_ORACLE_CACHE"); d != "" {
		return d
	}
	return "/var/cache/pcp-derive-lsp/oracles"
}

// command runs a program of the release, in its chroot, with no derived
// configs of its own loaded. For an upstream build, pminfo and pmval are
// its own and python3 is this machine's, loading its libpcp.
func (r Release) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	env := os.Environ()
	switch {
	case r.Root != "":
		cmd = exec.CommandContext(ctx, "chroot", append([]string{r.Root, name}, args...)...)
	case r.Prefix != "" && (name == "pminfo" || name == "pmval"):
		cmd = exec.CommandContext(ctx, filepath.Join(r.Prefix, "bin", name), args...)
		env = r.prefixEnv(env)
	default:
		if name == "python3" {
			name = "/usr/bin/python3" // the one with Debian's python3-pcp, not a PATH's own
		}
		cmd = exec.CommandContext(ctx, name, args...)
		if r.Prefix != "" {
			env = r.prefixEnv(env)
		}
	}
	cmd.Env = append(append(env, "PCP_DERIVED_CONFIG="), r.Env...)
	cmd.WaitDelay = time.Second
	return cmd
}

// prefixEnv is env made to run an upstream build, as pcp-release.sh runs
// it: its own pcp.conf (the PCP_ variables that file sets are dropped,
// since libpcp lets the environment override it), its libraries first,
// and its bin first on PATH (for the sh -c scripts).
func (r Release) prefixEnv(env []string) []string {
	conf := filepath.Join(r.Prefix, "etc/pcp.conf")
	set := map[string]bool{"PCP_DIR": true, "PCP_ENV_DONE": true, "PCP_CONF": true, "LD_LIBRARY_PATH": true, "PATH": true}
	if b, err := os.ReadFile(conf); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if name, _, ok := strings.Cut(l, "="); ok && strings.HasPrefix(name, "PCP_") {
				set[name] = true
			}
		}
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !set[name] {
			out = append(out, kv)
		}
	}
	lib := filepath.Join(r.Prefix, "lib")
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		lib += ":" + old
	}
	return append(out, "PCP_CONF="+conf, "LD_LIBRARY_PATH="+lib,
		"PATH="+filepath.Join(r.Prefix, "bin")+":"+os.Getenv("PATH"))
}

// file writes content where the release's programs can read it, and
// returns that path as they see it and a cleanup.
func (r Release) file(name string, content []byte) (string, func(), error) {
	dir, err := os.MkdirTemp(filepath.Join("/", r.Root, "tmp"), "oracle-")
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("%s: %w", r, err)
	}
	inside := "/" + strings.TrimPrefix(filepath.Join(strings.TrimPrefix(dir, r.Root), name), "/")
	return inside, func() { os.RemoveAll(dir) }, nil
}

// Verdict is libpcp's answer to pmRegisterDerived: accepted, or the
// caret (a byte offset) and message of the syntax error.
type Verdict struct {
	OK    bool
	Caret int
	Msg   string
}

// Register registers each expression with the release's libpcp, in one
// process, and returns its verdicts in order.
func (r Release) Register(ctx context.Context, exprs []string) ([]Verdict, error) {
	script, cleanup, err := r.file("register.py", registerScript)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var in bytes.Buffer
	for _, e := range exprs {
		b, _ := json.Marshal(e)
		in.Write(append(b, '\n'))
	}
	cmd := r.command(ctx, "python3", script)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: registering %d expressions: %w: %s", r, len(exprs), err, stderr.String())
	}
	var verdicts []Verdict
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var v Verdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", r, sc.Text(), err)
		}
		verdicts = append(verdicts, v)
	}
	if len(verdicts) != len(exprs) {
		return nil, fmt.Errorf("%s answered %d of %d expressions: %s", r, len(verdicts), len(exprs), stderr.String())
	}
	return verdicts, nil
}

var semRE = regexp.MustCompile(`^Semantic error: derived metric (\S+): (.*)$`)

// Describe loads a config with the release's pminfo and returns, per
// name, the pminfo -d block, "semantic: RENDERING: MESSAGE" when binding
// reports an error, or "absent" when the metric silently does not exist.
// stderr is everything pminfo printed there.
func (r Release) Describe(ctx context.Context, config string, names []string) (verdicts map[string]string, stderr string, err error) {
	return r.DescribeOn(ctx, "127.0.0.1", config, names)
}

// DescribeOn is Describe against the pmcd at host ("127.0.0.1:44331").
func (r Release) DescribeOn(ctx context.Context, host, config string, names []string) (verdicts map[string]string, stderr string, err error) {
	path, cleanup, err := r.file("oracle.conf", []byte(config))
	if err != nil {
		return nil, "", err
	}
	defer cleanup()
	cmd := r.command(ctx, "pminfo", append([]string{"-h", host, "-c", path, "-d"}, names...)...)
	var stdout, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errb
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		return nil, "", fmt.Errorf("%s: pminfo -d: %w", r, ctx.Err())
	} // else pminfo exits 1 when any name fails; the output says which
	got := map[string]string{}
	for _, block := range strings.Split(stdout.String(), "\n\n") {
		lines := strings.SplitN(strings.TrimSpace(block), "\n", 2)
		if len(lines) == 2 {
			got[lines[0]] = lines[1] + "\n"
		}
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		if m := semRE.FindStringSubmatch(l); m != nil {
			if _, ok := got[m[1]]; !ok {
				got[m[1]] = "semantic: " + m[2]
			}
		}
	}
	for _, n := range names {
		if _, ok := got[n]; !ok {
			got[n] = "absent"
		}
	}
	return got, errb.String(), nil
}

// Values fetches one sample of the named metrics with the release's
// pminfo -f, in chunks of 50 with a deadline each (a few expressions hang
// some releases at fetch). It returns pminfo's output and how many names
// were left out because their chunk hung.
func (r Release) Values(ctx context.Context, config string, names []string) (string, int, error) {
	path, cleanup, err := r.file("oracle.conf", []byte(config))
	if err != nil {
		return "", 0, err
	}
	defer cleanup()
	var all strings.Builder
	hung := 0
	for start := 0; start < len(names); start += 50 {
		chunk := names[start:min(start+50, len(names))]
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, _ := r.command(cctx, "pminfo", append([]string{"-h", "127.0.0.1", "-c", path, "-f"}, chunk...)...).Output()
		timedOut := cctx.Err() == context.DeadlineExceeded
		cancel()
		if ctx.Err() != nil {
			return "", 0, ctx.Err()
		}
		if timedOut {
			hung += len(chunk)
			continue
		}
		all.Write(out)
	}
	return all.String(), hung, nil
}

// ConfigMessages loads a config file with the release's pminfo, from the
// file's own directory so that its messages name it as given, and returns
// what libpcp printed on stderr.
func (r Release) ConfigMessages(ctx context.Context, name string, content []byte) (string, error) {
	path, cleanup, err := r.file(name, content)
	if err != nil {
		return "", err
	}
	defer cleanup()
	script := fmt.Sprintf("cd %q && exec pminfo -h 127.0.0.1 -c %q -d sample.long.one", filepath.Dir(path), name)
	cmd := r.command(ctx, "sh", "-c", script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: pminfo -c %s: %w: %s", r, name, err, stderr.String())
	}
	return stderr.String(), nil
}

// DeriveDebug is what libpcp prints on stderr under PCP_DEBUG=derive
// when the release's pminfo, from the config file's own directory with
// PCP_DERIVED_CONFIG naming it, describes names (pminfo -Dderive -d
// NAMES...) against the test pmcd: the lines of loading the config, then
// those of binding each name as pminfo looks it up.
func (r Release) DeriveDebug(ctx context.Context, name string, content []byte, names []string) (string, error) {
	path, cleanup, err := r.file(name, content)
	if err != nil {
		return "", err
	}
	defer cleanup()
	args := []string{"-Dderive", "-h", "127.0.0.1", "-d"}
	script := fmt.Sprintf("cd %q && exec pminfo \"$@\"", filepath.Dir(path))
	cmd := r.With("PCP_DERIVED_CONFIG="+name).command(ctx, "sh", append([]string{"-c", script, "pminfo"}, append(args, names...)...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("%s: pminfo -Dderive -d: %w", r, ctx.Err())
	} // else pminfo exits 1 when any name fails; stderr says which
	return stderr.String(), nil
}

// ShippedConfigs returns the derived-metric configs the release ships
// (/etc/pcp/derived in 6.3+, /var/lib/pcp/config/derived before), by
// base name.
func (r Release) ShippedConfigs() (map[string][]byte, error) {
	out := map[string][]byte{}
	root := r.Root
	if r.Prefix != "" {
		root = r.Prefix
	}
	for _, dir := range []string{"etc/pcp/derived", "var/lib/pcp/config/derived"} {
		paths, _ := filepath.Glob(filepath.Join(root, "/", dir, "*.conf"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			out[filepath.Base(p)] = b
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s ships no derived configs", r)
}

// FleetHost is a pmcd of one release on this machine: this machine's own,
// or one scripts/fleet-env.sh runs in a release chroot.
type FleetHost struct {
	Release
	Addr string // host:port of its pmcd
}

// fleetPorts are the ports scripts/fleet-env.sh gives each chroot's pmcd.
var fleetPorts = map[string]int{"bullseye": 44331, "trixie": 44332, "sid": 44333}

// Fleet lists a pmcd per release that can run one, oldest first: each
// chroot's own (scripts/fleet-env.sh) and this machine's. A missing or
// silent one is an error naming the script that starts it.
func Fleet(ctx context.Context) ([]FleetHost, error) {
	rs, err := Releases()
	if err != nil {
		return nil, err
	}
	var out []FleetHost
	for _, r := range rs {
		if !r.HasPMCD() {
			continue
		}
		h := FleetHost{Release: r, Addr: "127.0.0.1:44321"}
		if r.Root != "" {
			h.Addr = fmt.Sprintf("127.0.0.1:%d", fleetPorts[r.Suite])
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		got, err := r.command(cctx, "pminfo", "-h", h.Addr, "-f", "pmcd.version").Output()
		cancel()
		if err != nil || !strings.Contains(string(got), `"`+r.Version.String()+`"`) {
			return nil, fmt.Errorf("%s: no pmcd of that release answers on %s (%v: %s): run scripts/fleet-env.sh (make testenv)", r, h.Addr, err, got)
		}
		out = append(out, h)
	}
	return out, nil
}

// copyArchive copies an archive's files (base name archive) into dir of
// the release's root, where its tools can read them.
func (r Release) copyArchive(archive, dir string) error {
	files, err := filepath.Glob(archive + ".*")
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no archive files %s.*", r, archive)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join("/", r.Root, dir, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Crashes loads a config with the release's pminfo, fetching name, under
// the default 8 MB stack limit, and reports whether libpcp died of a
// signal (the stack overflow of a too-deep expression is a SIGSEGV).
func (r Release) Crashes(ctx context.Context, config, name string) (bool, error) {
	path, cleanup, err := r.file("oracle.conf", []byte(config))
	if err != nil {
		return false, err
	}
	defer cleanup()
	script := fmt.Sprintf("ulimit -s 8192 && exec pminfo -h 127.0.0.1 -c %q -f %q", path, name)
	cmd := r.command(ctx, "sh", "-c", script)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return false, fmt.Errorf("%s: pminfo -f: %w", r, ctx.Err())
	case errors.As(err, &exit):
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			return true, nil
		}
		return false, nil // exit status 1: the metric failed, no crash
	case err != nil:
		return false, fmt.Errorf("%s: pminfo -f: %w", r, err)
	}
	return false, nil
}

// WriteFile writes content where the release's programs can read it and
// returns that path as they see it and a cleanup.
func (r Release) WriteFile(name string, content []byte) (string, func(), error) {
	return r.file(name, content)
}

// PmrepRun is what the release's pmrep did with one metricset.
type PmrepRun struct {
	Section string `json:"section"`
	Status  int    `json:"status"`
	Stderr  string `json:"stderr"`
}

// PmrepSections runs the release's pmrep on each metricset of the config
// file at path (as the release sees it: WriteFile) against the test
// pmcd, one sample, with derived as $PCP_DERIVED_CONFIG ("" loads none),
// each run forked from one Python process that imported pmrep's modules
// once.
func (r Release) PmrepSections(ctx context.Context, derived, path string, sections []string) ([]PmrepRun, error) {
	runs := make([]toolRun, len(sections))
	for i, section := range sections {
		runs[i] = toolRun{Name: section, Argv: []string{"-h", "127.0.0.1", "-c", path, "-s", "1", "-t", "0.01", ":" + section}}
	}
	out, err := r.toolRuns(ctx, "/usr/bin/pmrep", map[string]string{"PCP_DERIVED_CONFIG": derived}, runs)
	if err != nil {
		return nil, fmt.Errorf("%s: pmrep of %s: %w", r, path, err)
	}
	return out, nil
}
