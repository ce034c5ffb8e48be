package htop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// The oracle test runs each release's real pcp-htop (under script(1), for
// the terminal it wants, against the test pmcd) on the files it ships and
// on mutations of them, with XDG_CONFIG_HOME holding the files under test
// and PCP_SHARE_DIR an empty directory (so the shipped files load only
// when they are the files under test), PCP_DEBUG=derive making libpcp
// print every registration. Its verdict, one of
//   - fatal: its exit status 2 and everything from "failed to parse
//     expression" on,
//   - crash: killed by a signal,
//   - accepted: still running after a while; then the metrics it
//     registered (name and text) and the messages it printed about names,
// must equal the one predicted from the reader, with grammar's libpcp
// verdict for each expression it registers.

// htopBinary is where Debian installs pcp-htop.
const htopBinary = "usr/lib/pcp/bin/pcp-htop"

// htopPackage is the directory, inside the release's root, that holds
// pcp-htop's package files: "/" where the package is installed, or the
// directory named by PCP_DERIVE_LSP_HTOP_PKG_<SUITE> where its .deb was
// only unpacked (dpkg-deb -x).
func htopPackage(rel oracle.Release) string {
	if d := os.Getenv("PCP_DERIVE_LSP_HTOP_PKG_" + strings.ToUpper(rel.Suite)); d != "" {
		return d
	}
	return "/"
}

// A pcp-htop with --max-iterations (PCP 6.1.0+) runs one iteration and
// exits; an older one is stopped once libpcp's derive debugging reports
// parsedMarker, its first metric lookup, which comes after htop has read
// every file (before 6.1.0 its columns look nothing up while they are
// read). Either must happen within runWait.
const (
	runWait      = 60 * time.Second
	parsedMarker = "__dmgetpmid:"
)

// maxIterations: the release's pcp-htop has -n (--max-iterations).
func maxIterations(v pcpver.Version) bool {
	return v.AtLeast(pcpver.Version{Major: 6, Minor: 1, Patch: 0})
}

// placed is one file under test, where the run put it.
type placed struct {
	kind Kind
	path string // as the release sees it
	src  []byte
	// system puts the file in $PCP_SHARE_DIR/htop, which htop reads
	// after the user's ~/.config/htop.
	system bool
}

// placeDirs are where runHtop puts user and system files, under its
// directory.
var placeDirs = map[bool]string{false: "cfg/htop", true: "share/htop"}

// verdict is a pcp-htop run's outcome, or our prediction of it.
type verdict struct {
	outcome    string   // accepted, fatal, crash
	fatal      []string // what it prints from "failed to parse" on
	registered map[string]string
	warnings   []string
}

func (v verdict) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", v.outcome)
	for _, l := range v.fatal {
		fmt.Fprintf(&b, "  | %s\n", l)
	}
	for _, w := range v.warnings {
		fmt.Fprintf(&b, "  warn %s\n", w)
	}
	var names []string
	for n := range v.registered {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %s = %s\n", n, v.registered[n])
	}
	return b.String()
}

// normal is an expression's text with the white space, parentheses and
// quotes libpcp's debug rendering adds or drops taken out.
func normal(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n', '(', ')', '"', '\'':
			return -1
		}
		return r
	}, s)
}

// predict is what release v's pcp-htop does with files, read in its
// order, according to the reader and grammar's libpcp verdicts.
func predict(v pcpver.Version, files []placed) verdict {
	out := verdict{outcome: "accepted", registered: map[string]string{}}
	r := NewReader(v)
	leak := false
	for _, pf := range files {
		f := r.Read(pf.kind, pf.path, pf.src)
		type event struct {
			off   int
			expr  *Expr
			probl *Problem
		}
		var evs []event
		for _, e := range f.Exprs {
			evs = append(evs, event{off: e.KeyOff, expr: e})
		}
		for i := range f.Problems {
			p := &f.Problems[i]
			if p.Fatal || len(p.Htop) > 0 {
				evs = append(evs, event{off: p.Off, probl: p})
			}
		}
		slices.SortStableFunc(evs, func(a, b event) int { return a.off - b.off })
		for _, ev := range evs {
			switch {
			case ev.probl != nil && ev.probl.Fatal && ev.probl.Code == codes.HtopScreenColumnName:
				out.outcome, out.warnings, out.registered = "crash", nil, map[string]string{}
				return out
			case ev.probl != nil && ev.probl.Fatal:
				out.outcome, out.fatal, out.registered = "fatal", ev.probl.Htop, map[string]string{}
				return out
			case ev.probl != nil:
				out.warnings = append(out.warnings, ev.probl.Htop...)
			case !ev.expr.Skip:
				vd := grammar.LibpcpVerdict(ev.expr.Text, v, leak)
				if !vd.OK {
					out.outcome, out.registered = "fatal", map[string]string{}
					out.fatal = f.Fatal(ev.expr, LibpcpLines(ev.expr.Name, ev.expr.Text, int(vd.Caret), vd.Message))
					return out
				}
				leak = vd.Leak
				out.registered[ev.expr.Name] = normal(ev.expr.Text)
			}
		}
	}
	return out
}

var (
	registeredRE = regexp.MustCompile(`^pmRegisterDerived: global metric\[\d+\] (\S+(?: \S+)*?) = (.*)$`)
	// runOn splits what a column's or screen's name message runs into:
	// they end without a newline.
	runOnRE = regexp.MustCompile(`(.)(pmRegisterDerived: |__dm|pcp-htop: )`)
)

// isDebug reports a line of libpcp's PCP_DEBUG=derive output.
func isDebug(l string) bool {
	for _, p := range []string{"pmRegisterDerived:", "__dm", "Derived metric", "pmLoadDerivedConfig", "bind_expr:", "Warning: derived metric ", "Semantic error: derived metric ", "Session terminated"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// runHtop runs release rel's pcp-htop on files (kind, base name, content)
// and returns its verdict and the files in the order it reads them.
func runHtop(ctx context.Context, rel oracle.Release, files []placed) (verdict, []placed, error) {
	tmp, err := os.MkdirTemp(filepath.Join("/", rel.Root, "tmp"), "htop-oracle-")
	if err != nil {
		return verdict{}, nil, err
	}
	defer os.RemoveAll(tmp)
	inside := "/" + strings.TrimPrefix(strings.TrimPrefix(tmp, rel.Root), "/")
	for _, k := range []Kind{Meter, Column, Screen} {
		for _, d := range placeDirs {
			if err := os.MkdirAll(filepath.Join(tmp, d, k.Dir()), 0o755); err != nil {
				return verdict{}, nil, err
			}
		}
	}
	for _, pf := range files {
		if err := os.WriteFile(filepath.Join(tmp, placeDirs[pf.system], pf.kind.Dir(), pf.path), pf.src, 0o644); err != nil {
			return verdict{}, nil, err
		}
	}
	// htop reads meters, then columns, then screens: the user's
	// directory first, then the system's, each in readdir order.
	var order []placed
	for _, k := range []Kind{Meter, Column, Screen} {
		for _, system := range []bool{false, true} {
			paths, err := ListDir(filepath.Join(tmp, placeDirs[system], k.Dir()))
			if err != nil {
				return verdict{}, nil, err
			}
			for _, p := range paths {
				n := filepath.Base(p)
				for _, pf := range files {
					if pf.kind == k && pf.path == n && pf.system == system {
						order = append(order, placed{k, filepath.Join(inside, placeDirs[system], k.Dir(), n), pf.src, system})
					}
				}
			}
		}
	}
	errFile := filepath.Join(tmp, "stderr")
	command := filepath.Join(htopPackage(rel), htopBinary) + " --host=127.0.0.1 2>" + errFile
	if maxIterations(rel.Version) {
		command = filepath.Join(htopPackage(rel), htopBinary) + " --host=127.0.0.1 -n 1 2>" + errFile
	}
	if rel.Root != "" {
		command = "chroot " + rel.Root + " " + command
	}
	cctx, cancel := context.WithTimeout(ctx, runWait)
	defer cancel()
	cmd := exec.CommandContext(cctx, "script", "-qec", command, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm", "HOME="+inside, "XDG_CONFIG_HOME="+inside+"/cfg",
		"PCP_SHARE_DIR="+inside+"/share", "PCP_DERIVED_CONFIG=", "PCP_DEBUG=derive")
	cmd.Stdin = bytes.NewReader(nil)
	cmd.Stdout = nil
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return verdict{}, nil, fmt.Errorf("%s: %w", rel, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var runErr error
	stopped := false // by us, once htop had read its files
	if maxIterations(rel.Version) {
		runErr = <-done
	} else {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
	wait:
		for {
			select {
			case runErr = <-done:
				break wait
			case <-tick.C:
				if b, _ := os.ReadFile(errFile); bytes.Contains(b, []byte(parsedMarker)) {
					stopped = true
					cancel()
					runErr = <-done
					break wait
				}
			}
		}
	}
	stderr, err := os.ReadFile(errFile)
	if err != nil {
		return verdict{}, nil, fmt.Errorf("%s: pcp-htop wrote no stderr (%v): %w", rel, runErr, err)
	}
	text := runOnRE.ReplaceAllString(strings.ReplaceAll(string(stderr), "\r", ""), "$1\n$2")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	v := verdict{registered: map[string]string{}}
	var exit *exec.ExitError
	switch {
	case stopped:
		v.outcome = "accepted"
	case cctx.Err() != nil:
		return verdict{}, nil, fmt.Errorf("%s: pcp-htop still running after %v: %.2000s", rel, runWait, stderr)
	case runErr == nil && maxIterations(rel.Version):
		v.outcome = "accepted"
	case errors.As(runErr, &exit) && exit.ExitCode() == 2:
		v.outcome = "fatal"
	case runErr != nil:
		v.outcome = "crash"
	default:
		return verdict{}, nil, fmt.Errorf("%s: pcp-htop exited 0: %s", rel, stderr)
	}
	inFatal := false
	for _, l := range lines {
		if strings.HasPrefix(l, "pcp-htop: failed to parse expression") {
			inFatal = true
		}
		if m := registeredRE.FindStringSubmatch(l); m != nil && strings.HasPrefix(m[1], "htop.") {
			v.registered[m[1]] = normal(m[2])
		}
		switch {
		case isDebug(l):
		case inFatal:
			v.fatal = append(v.fatal, l)
		case l != "":
			v.warnings = append(v.warnings, l)
		}
	}
	if v.outcome != "accepted" {
		v.registered = map[string]string{} // the comparison is about the verdict then
	}
	if v.outcome == "crash" {
		v.warnings = nil
	}
	return v, order, nil
}

// shipped returns the files a release ships, by kind and base name.
func shipped(t *testing.T, rel oracle.Release) []placed {
	var out []placed
	for _, k := range []Kind{Meter, Column, Screen} {
		dir := filepath.Join("/", rel.Root, htopPackage(rel), "usr/share/pcp/htop", k.Dir())
		ents, err := os.ReadDir(dir)
		if err != nil {
			if RulesFor(rel.Version).Reads(k) {
				t.Fatalf("%s: %v", rel, err)
			}
			continue
		}
		for _, e := range ents {
			src, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, placed{k, e.Name(), src, false})
		}
	}
	return out
}

// mutation changes one shipped file; ok false when it does not apply.
type mutation struct {
	name string
	f    func(kind Kind, src string) (string, bool)
	// perKind runs the files of each kind apart (see "empty section
	// name").
	perKind bool
}

var firstMetricRE = regexp.MustCompile(`(?m)^([ \t]*(?:[A-Za-z0-9_]+\.)?metric[ \t]*=[ \t]*)(.*)$`)
var headerRE = regexp.MustCompile(`(?m)^\[([A-Za-z0-9_]+)\]`)

func replaceFirst(re *regexp.Regexp, src string, f func(m []string) string) (string, bool) {
	loc := re.FindStringSubmatchIndex(src)
	if loc == nil {
		return "", false
	}
	var m []string
	for i := 0; i < len(loc); i += 2 {
		if loc[i] < 0 {
			m = append(m, "")
		} else {
			m = append(m, src[loc[i]:loc[i+1]])
		}
	}
	return src[:loc[0]] + f(m) + src[loc[1]:], true
}

var mutations = []mutation{
	{"as shipped", func(_ Kind, s string) (string, bool) { return s, true }, false},
	{"broken expression", func(_ Kind, s string) (string, bool) {
		return replaceFirst(firstMetricRE, s, func(m []string) string { return m[1] + m[2] + " +" })
	}, false},
	{"illegal character", func(_ Kind, s string) (string, bool) {
		return replaceFirst(firstMetricRE, s, func(m []string) string { return m[1] + m[2] + " @ 2" })
	}, false},
	{"expression with =", func(_ Kind, s string) (string, bool) {
		return replaceFirst(firstMetricRE, s, func(m []string) string { return m[1] + m[2] + " == 0 ? 1 : 2" })
	}, false},
	{"metric repeated", func(_ Kind, s string) (string, bool) {
		return replaceFirst(firstMetricRE, s, func(m []string) string { return m[0] + "\n" + m[0] })
	}, false},
	{"unknown key", func(k Kind, s string) (string, bool) {
		key := "zz.colour = red"
		if k == Column {
			key = "colour = red"
		}
		return replaceFirst(headerRE, s, func(m []string) string { return m[0] + "\n" + key })
	}, false},
	{"bad colour", func(k Kind, s string) (string, bool) {
		return replaceFirst(regexp.MustCompile(`(?m)^(\S+\.color\s*=\s*)(\S+)`), s, func(m []string) string { return m[1] + "Purple" })
	}, false},
	{"bad section name", func(_ Kind, s string) (string, bool) {
		return replaceFirst(headerRE, s, func(m []string) string { return "[" + m[1] + "-x]" })
	}, false},
	{"no closing brace", func(_ Kind, s string) (string, bool) {
		return replaceFirst(headerRE, s, func(m []string) string { return "[" + m[1] })
	}, false},
	{"section repeated", func(_ Kind, s string) (string, bool) {
		// The first section again at the end: skipped, or (columns
		// before 7.1.1) set on the last column.
		loc := headerRE.FindAllStringIndex(s, 2)
		if loc == nil {
			return "", false
		}
		end := len(s)
		if len(loc) > 1 {
			end = loc[1][0]
		}
		return s + "\n" + s[loc[0][0]:end], true
	}, false},
	{"key before the header", func(_ Kind, s string) (string, bool) { return "caption = x\n" + s, true }, false},
	{"NUL byte", func(_ Kind, s string) (string, bool) {
		return replaceFirst(firstMetricRE, s, func(m []string) string { return m[0] + "\x00junk" })
	}, false},
	{"CRLF", func(_ Kind, s string) (string, bool) { return strings.ReplaceAll(s, "\n", "\r\n"), true }, false},
	{"long screen column", func(k Kind, s string) (string, bool) {
		if k != Screen {
			return "", false
		}
		return replaceFirst(headerRE, s, func(m []string) string {
			return m[0] + "\n" + strings.Repeat("x", 31-len(m[1])) + ".metric = hinv.ncpu"
		})
	}, false},
	{"long section name", func(_ Kind, s string) (string, bool) {
		return replaceFirst(headerRE, s, func(m []string) string { return "[" + m[1] + "_and_a_suffix_beyond_31_bytes]" })
	}, false},
	// With every shipped meter, column and screen file's first section
	// named "[]" at once, PCP 6.3.8's pcp-htop corrupts its heap and
	// aborts ("realloc(): invalid next size") when PCP_DEBUG=derive and
	// a missing htoprc shift its allocations; each kind alone does not.
	// What it registers is compared a kind at a time.
	{"empty section name", func(_ Kind, s string) (string, bool) {
		return replaceFirst(headerRE, s, func(m []string) string { return "[]" })
	}, true},
	{"width not a number", func(k Kind, s string) (string, bool) {
		return replaceFirst(regexp.MustCompile(`(?m)^(\S*width\s*=\s*)(\S+)`), s, func(m []string) string { return m[1] + "wide" })
	}, false},
}

func TestOracle(t *testing.T) {
	rels := oracle.ReleasesFor(t)
	ctx := context.Background()
	var mu sync.Mutex
	runs, compared, exprs := 0, 0, 0
	differ := 0
	var wg sync.WaitGroup
	for _, rel := range rels {
		if rel.Suite == "upstream" {
			continue // the builds from ../shared/oracles have libpcp and pminfo, no pcp-htop
		}
		rules := RulesFor(rel.Version)
		if !rules.Meters {
			continue
		}
		if _, err := os.Stat(filepath.Join("/", rel.Root, htopPackage(rel), htopBinary)); err != nil {
			// Every release with meters ships it; 7.x's package of its
			// own is installed by scripts/pcp-releases.sh (make testenv).
			t.Fatalf("%s: %v: run make testenv", rel, err)
		}
		files := shipped(t, rel)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, m := range mutations {
				// Files the prediction calls fatal run alone; the others
				// run together.
				var batch []placed
				for _, pf := range files {
					src, ok := m.f(pf.kind, string(pf.src))
					if !ok {
						continue
					}
					one := []placed{{pf.kind, pf.path, []byte(src), false}}
					if p := predict(rel.Version, []placed{{pf.kind, "/x/" + pf.kind.Dir() + "/" + pf.path, []byte(src), false}}); p.outcome != "accepted" {
						c, n := compare(t, ctx, rel, m.name+" "+pf.kind.Dir()+"/"+pf.path, one)
						mu.Lock()
						runs, compared, exprs = runs+1, compared+1, exprs+n
						differ += c
						mu.Unlock()
						continue
					}
					batch = append(batch, one[0])
				}
				batches := [][]placed{batch}
				if m.perKind {
					batches = nil
					for _, k := range []Kind{Meter, Column, Screen} {
						var b []placed
						for _, pf := range batch {
							if pf.kind == k {
								b = append(b, pf)
							}
						}
						batches = append(batches, b)
					}
				}
				for _, b := range batches {
					if len(b) == 0 {
						continue
					}
					c, n := compare(t, ctx, rel, fmt.Sprintf("%s (%d files)", m.name, len(b)), b)
					mu.Lock()
					runs, compared, exprs = runs+1, compared+len(b), exprs+n
					differ += c
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d pcp-htop runs, %d files compared, %d registrations compared, %d differ", runs, compared, exprs, differ)
	if runs == 0 {
		t.Fatal("no release's pcp-htop ran")
	}
}

// compare runs pcp-htop of rel on files and checks its verdict against
// the prediction: 1 when they differ, and how many registrations
// (accepted expressions or the fatal one) were compared.
func compare(t *testing.T, ctx context.Context, rel oracle.Release, what string, files []placed) (int, int) {
	got, order, err := runHtop(ctx, rel, files)
	if err != nil {
		t.Errorf("%s: %s: %v", rel, what, err)
		return 1, 0
	}
	want := predict(rel.Version, order)
	if got.String() != want.String() {
		t.Errorf("%s: %s:\npcp-htop: %s\nours:     %s", rel, what, got, want)
		return 1, 0
	}
	n := len(got.registered)
	if got.outcome == "fatal" {
		n++
	}
	return 0, n
}

// TestOracleOrder: a user's file is read before the shipped ones, the
// first section of a name wins, and before PCP 7.1.1 a user column named
// like a shipped column that is not the first of its file makes pcp-htop
// fail on the shipped file.
func TestOracleOrder(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		files []placed
	}{
		{"user column shadows a later shipped column", []placed{
			{Column, "mine", []byte("[vmstack]\nheading = STK\nmetric = proc.memory.vmstack\n"), false},
			{Column, "memory", []byte("[vmdata]\nheading = DATA\nmetric = proc.memory.vmdata\n[vmstack]\nheading = VMSTK\nmetric = proc.memory.vmstack\n"), true},
		}},
		{"user column shadows a first shipped column", []placed{
			{Column, "mine", []byte("[vmdata]\nmetric = proc.memory.vmdata + 1\n"), false},
			{Column, "memory", []byte("[vmdata]\nmetric = proc.memory.vmdata\n[vmstack]\nmetric = proc.memory.vmstack\n"), true},
		}},
		{"user meter shadows a shipped meter", []placed{
			{Meter, "mine", []byte("[entropy]\ncaption = E\navail.metric = kernel.all.entropy.avail\n"), false},
			{Meter, "entropy", []byte("[entropy]\ncaption = Entropy\navail.metric = kernel.all.entropy.avail / 2\n"), true},
		}},
		{"long names alike in 31 bytes", []placed{
			{Meter, "a", []byte("[abcdefghijklmnopqrstuvwxyz01234_one]\nx.metric = hinv.ncpu\n"), false},
			{Meter, "b", []byte("[abcdefghijklmnopqrstuvwxyz01234_two]\nx.metric = hinv.ncpu\n"), true},
		}},
	}
	runs := 0
	for _, rel := range oracle.ReleasesFor(t) {
		if rel.Suite == "upstream" || !RulesFor(rel.Version).Meters {
			continue // no pcp-htop in the upstream builds; none with meters before 5.3.2
		}
		if _, err := os.Stat(filepath.Join("/", rel.Root, htopPackage(rel), htopBinary)); err != nil {
			continue // TestOracle says which release lacks pcp-htop
		}
		for _, tc := range cases {
			got, order, err := runHtop(ctx, rel, tc.files)
			if err != nil {
				t.Fatalf("%s: %s: %v", rel, tc.name, err)
			}
			runs++
			if want := predict(rel.Version, order); got.String() != want.String() {
				t.Errorf("%s: %s:\npcp-htop: %s\nours:     %s", rel, tc.name, got, want)
			}
		}
	}
	if runs == 0 {
		t.Fatal("no release's pcp-htop ran")
	}
	t.Logf("%d runs", runs)
}
