package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/labeltest"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = Main(context.Background(), Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
	return out.String(), errOut.String(), status
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.File(t, filepath.Join("..", "..", "testdata", "check", name), got)
}

const examples = "../../testdata/examples"

func TestCheckFormatsGolden(t *testing.T) {
	// From the repository's root, as CI runs check: paths (and SARIF's
	// %SRCROOT%-relative URIs) do not depend on where the clone is.
	goldenDir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "check"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, format := range []string{"text", "pcp", "json", "sarif", "github", "checkstyle", "junit", "gitlab"} {
		for _, dialect := range []string{"pcp6", "pcp7"} {
			out, _, status := run(t, "", "check", "--metadata", "embedded", "--format", format, "--dialect", dialect, "testdata/examples")
			if status != ExitFindings {
				t.Errorf("%s/%s: exit %d, want 1", format, dialect, status)
			}
			golden.File(t, filepath.Join(goldenDir, "examples."+dialect+"."+format), out)
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.conf")
	warn := filepath.Join(dir, "warn.conf")
	os.WriteFile(clean, []byte("m.a = kernel.all.load + 1\n"), 0o644)
	os.WriteFile(warn, []byte("m.b = 1"), 0o644) // no final newline: a warning
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"check", clean}, ExitOK},
		{[]string{"check", warn}, ExitOK},
		{[]string{"check", "--fail-on", "warning", warn}, ExitFindings},
		{[]string{"check", filepath.Join(examples, "mistakes.conf")}, ExitFindings},
		{[]string{"check", filepath.Join(dir, "missing.conf")}, ExitUsage},
		{[]string{"check", "--format", "xml", clean}, ExitUsage},
		{[]string{"check", "--dialect", "pcp5", clean}, ExitUsage},
		{[]string{"check"}, ExitUsage},
		{[]string{"frobnicate"}, ExitUsage},
		{[]string{"version"}, ExitOK},
	}
	for _, tt := range tests {
		if _, stderr, got := run(t, "", tt.args...); got != tt.want {
			t.Errorf("%v: exit %d, want %d (%s)", tt.args, got, tt.want, stderr)
		}
	}
}

func TestCheckStdinAndSuppression(t *testing.T) {
	src := "# pcp-derive-lsp: ignore[syntax]\nm.a = 1 +\nm.b = 2 +\n"
	out, _, status := run(t, src, "check", "-")
	if status != ExitFindings || strings.Count(out, "[syntax]") != 1 || !strings.Contains(out, "<stdin>:3:") {
		t.Errorf("exit %d, output:\n%s", status, out)
	}
	// The pcp format mirrors libpcp, which knows nothing of suppressions.
	out, _, _ = run(t, src, "check", "--format", "pcp", "-")
	if strings.Count(out, "syntax error") != 2 {
		t.Errorf("pcp format:\n%s", out)
	}
}

// TestCheckSuppressionCodes: a misspelt code in a suppression comment
// used to be accepted silently (and suppressed nothing); it is an error
// with the nearest registered code as a fix, as is a malformed directive.
func TestCheckSuppressionCodes(t *testing.T) {
	src := "# pcp-derive-lsp: ignore[sytnax, unknown-metric]\nm.a = 1 +\n" +
		"# pcp-derive-lsp: ignroe\nm.b = 2\n" +
		"# pcp-derive-lsp: ignore[frobnicate]\nm.c = 3\n"
	out, _, status := run(t, src, "check", "--format", "json", "-")
	if status != ExitFindings {
		t.Errorf("exit %d, want %d", status, ExitFindings)
	}
	var doc struct {
		Files []struct {
			Diagnostics []struct {
				Code, Message string
				Range         struct{ Start struct{ Line, Column int } }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	type finding struct {
		code, message string
		line, col     int
	}
	var got []finding
	for _, d := range doc.Files[0].Diagnostics {
		got = append(got, finding{code: d.Code, message: d.Message, line: d.Range.Start.Line, col: d.Range.Start.Column})
	}
	want := []finding{
		{"suppression", `unknown finding code "sytnax": this comment suppresses nothing for it; did you mean syntax?`, 1, 26},
		{"syntax", "", 2, 0},
		{"suppression", `malformed pcp-derive-lsp comment: want "# pcp-derive-lsp: ignore" or "# pcp-derive-lsp: ignore[CODE,...]"`, 3, 1},
		{"suppression", `unknown finding code "frobnicate": this comment suppresses nothing for it`, 5, 26},
	}
	if len(got) != len(want) {
		t.Fatalf("findings %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.code != w.code || g.line != w.line || (w.message != "" && (g.message != w.message || g.col != w.col)) {
			t.Errorf("finding %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "binary.conf"), []byte("m.a = 1\n\x00\x01\x02"), 0o644)
	big := bytes.Repeat([]byte("m.x = 1 + 2 + 3\n"), 1<<16)
	os.WriteFile(filepath.Join(dir, "big.conf"), big, 0o644)
	longLine := append([]byte("m.long = "), bytes.Repeat([]byte("1 + "), 256<<10)...)
	os.WriteFile(filepath.Join(dir, "longline.conf"), append(longLine, "1\n"...), 0o644)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.Symlink(dir, filepath.Join(sub, "loop")) // a directory loop
	unreadable := filepath.Join(dir, "unreadable.conf")
	os.WriteFile(unreadable, []byte("m = 1\n"), 0o000)

	out, stderr, status := run(t, "", "check", "--max-size", "524288", "--format", "json", dir)
	if !strings.Contains(out, `"binary-file"`) || !strings.Contains(out, `"too-large"`) {
		t.Errorf("binary and big files not reported:\n%s", out)
	}
	if strings.Count(out, `"code": "binary-file"`) != 1 {
		t.Errorf("binary file reported more than once")
	}
	if os.Getuid() != 0 && (status != ExitUsage || !strings.Contains(stderr, "unreadable.conf")) {
		t.Errorf("unreadable file: exit %d, stderr %s", status, stderr)
	}
	// The 1 MB line is checked, not refused.
	var doc struct {
		Files []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range doc.Files {
		found = found || strings.HasSuffix(f.Path, "longline.conf")
	}
	if !found {
		t.Errorf("longline.conf not checked: %s", out)
	}
}

// The pcp format is what libpcp itself prints when it loads the files.
func TestPCPFormatMatchesPminfo(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo missing: run scripts/pcp-testenv.sh")
	}
	for _, name := range []string{"mistakes.conf", "disk-and-network.conf"} {
		path := filepath.Join(examples, name)
		ours, _, _ := run(t, "", "check", "--format", "pcp", "--dialect", "pcp6", "--no-metadata", path)
		cmd := exec.Command("pminfo", "-c", path, "-d", "kernel.all.load")
		cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		if ours != stderr.String() {
			t.Errorf("%s: libpcp prints\n%s\nwe print\n%s", name, stderr.String(), ours)
		}
	}
}

func TestSARIFHasWhatGitHubNeeds(t *testing.T) {
	out, _, _ := run(t, "", "check", "--metadata", "embedded", "--format", "sarif", examples)
	var doc struct {
		Schema  string `json:"$schema"`
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.1.0" || doc.Schema == "" || len(doc.Runs) != 1 || doc.Runs[0].Tool.Driver.Name == "" {
		t.Fatalf("header: %+v", doc)
	}
	rules := map[string]bool{}
	for _, r := range doc.Runs[0].Tool.Driver.Rules {
		rules[r.ID] = true
	}
	if len(doc.Runs[0].Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range doc.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		if !rules[r.RuleID] || r.Level == "" || r.Message.Text == "" || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 ||
			filepath.IsAbs(loc.ArtifactLocation.URI) || r.PartialFingerprints["primaryLocationLineHash"] == "" {
			t.Errorf("incomplete result %+v", r)
		}
	}
}

// With the live pmcd's metadata, the pcp format also matches libpcp's
// binding errors, printed while pminfo walks the whole namespace.
func TestPCPFormatWithSemanticsMatchesPminfo(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	snap := filepath.Join(t.TempDir(), "live.json")
	capture := exec.Command("/usr/bin/python3", "../../pmclient/snapshot/testdata/libpcp_capture.py", "127.0.0.1")
	data, err := capture.Output()
	if err != nil {
		t.Fatalf("capturing live metadata through libpcp (run scripts/pcp-testenv.sh): %v", err)
	}
	os.WriteFile(snap, data, 0o644)
	path := filepath.Join(examples, "mistakes.conf")
	ours, stderr, _ := run(t, "", "check", "--format", "pcp", "--dialect", "pcp6", "--metadata", snap, path)
	cmd := exec.Command("pminfo", "-h", "127.0.0.1", "-c", path)
	cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
	var libpcp bytes.Buffer
	cmd.Stderr = &libpcp
	cmd.Run()
	if ours != libpcp.String() {
		t.Errorf("libpcp prints\n%s\nwe print\n%s%s", libpcp.String(), ours, stderr)
	}
}

// Without flags, check uses the pmcd on this host when one answers, and
// says so.
func TestCheckUsesLocalPmcd(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	out, stderr, _ := run(t, "", "check", "--format", "json", filepath.Join(examples, "mistakes.conf"))
	if !strings.Contains(out, `"source": "pmcd on this host`) {
		t.Errorf("source not the local pmcd: %s\n%s", out[:min(len(out), 300)], stderr)
	}
	_, stderr, status := run(t, "", "check", "--host", "127.0.0.1:1", filepath.Join(examples, "mistakes.conf"))
	if status != ExitUsage || !strings.Contains(stderr, "connecting to pmcd at 127.0.0.1:1") {
		t.Errorf("unreachable host: exit %d, %s", status, stderr)
	}
}

// The snapshot command captures what pmcd serves, readable by check.
func TestSnapshotCommand(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	path := filepath.Join(t.TempDir(), "snap.json")
	_, stderr, status := run(t, "", "snapshot", "--host", "127.0.0.1", "-o", path, "--exclude", "proc,hotproc", "--max-instances", "10")
	if status != ExitOK {
		t.Fatalf("snapshot: %d %s", status, stderr)
	}
	out, _, status := run(t, "m.a = sample.bin + 1\nm.b = sample.lng.one\n", "check", "--metadata", path, "-")
	if status != ExitFindings || !strings.Contains(out, "did you mean sample.long.one") {
		t.Errorf("check with the snapshot: %d\n%s", status, out)
	}

	// Labels read back from the snapshot print as pminfo -l prints them
	// from pmcd (metrics whose instance list was kept).
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := snapshot.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	pminfo, err := exec.Command("pminfo", "-h", "127.0.0.1", "-l", "sample", "kernel", "hinv", "pmcd.agent", "disk").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := labeltest.ParsePminfo(pminfo)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	compared := 0
	for name, wantLines := range want {
		if labeltest.Volatile(name) {
			continue // instances that change between the two reads
		}
		pmids, errs, _ := snap.LookupNames(ctx, []string{name})
		if errs[0] != nil {
			continue // excluded from the snapshot
		}
		descs, _, _ := snap.Descs(ctx, pmids)
		if insts, _ := snap.Instances(ctx, descs[0].InDom); descs[0].InDom != pmapi.InDomNull && len(insts) == 0 {
			continue // instance list dropped (--max-instances)
		}
		got, err := labeltest.Render(ctx, snap, descs[0])
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
			t.Errorf("%s:\nsnapshot:\n%s\npminfo -l:\n%s", name, strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
		}
		compared++
	}
	if compared < 200 {
		t.Errorf("compared the labels of only %d metrics", compared)
	}
}

// describe --format pminfo prints what pminfo -c FILE -d NAMES prints.
func TestDescribeMatchesPminfo(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	config := strings.Join([]string{
		"m.a = sample.bin + 1", "m.b = rate(sample.milliseconds)", "m.c = sample.long.one * sample.string.hullo",
		"m.d = no.such + 1", "m.e = mkconst(1, type=64, units=\"Kbyte/sec\")", "m.f = avg(sample.bin)",
		"m.g = delta(sample.byte_ctr) / delta(sample.kbyte_ctr)", "m.h = kernel.all.load[1 minute] > 2",
		"m.i = sample.ulong.count.kilo + sample.ulong.count.mega", "m.j = -sample.ulong.one",
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "d.conf")
	os.WriteFile(path, []byte(config), 0o644)
	ours, stderr, status := run(t, "", "describe", "--dialect", "pcp6", "--host", "127.0.0.1", "--format", "pminfo", path)
	if status != ExitOK {
		t.Fatalf("describe: %d %s", status, stderr)
	}
	names := []string{"m.a", "m.b", "m.c", "m.d", "m.e", "m.f", "m.g", "m.h", "m.i", "m.j"}
	cmd := exec.Command("pminfo", append([]string{"-h", "127.0.0.1", "-c", path, "-d"}, names...)...)
	cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
	want, _ := cmd.Output()
	if ours != string(want) {
		t.Errorf("pminfo -d:\n%s\nours:\n%s", want, ours)
	}
}

// A PCP_DERIVED_CONFIG-style list checks the files as one path.
func TestCheckColonPath(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.conf"), filepath.Join(dir, "b.conf")
	os.WriteFile(a, []byte("m.x = 1\n"), 0o644)
	os.WriteFile(b, []byte("m.x = 2\n"), 0o644)
	out, _, status := run(t, "", "check", "--no-metadata", a+":"+b)
	if status != ExitFindings || !strings.Contains(out, "duplicate-name") {
		t.Errorf("exit %d:\n%s", status, out)
	}
}

// The eval progress line draws in place and erases itself; off a terminal
// it writes nothing.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	p.show("sample 1 of 3")
	p.show("sample 2 of 3")
	p.clear()
	p.clear()
	if want := "\r\033[Ksample 1 of 3\r\033[Ksample 2 of 3\r\033[K"; b.String() != want {
		t.Errorf("terminal output %q, want %q", b.String(), want)
	}
	b.Reset()
	q := newProgress(&b) // a buffer is not a terminal
	q.show("x")
	q.clear()
	if b.Len() != 0 {
		t.Errorf("wrote %q off a terminal", b.String())
	}
}

// describe and eval on a path with no config say so (eval used to index
// an empty input list).
func TestNoConfigInPath(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"describe", "eval"} {
		_, stderr, status := run(t, "", cmd, "--metadata", "embedded", dir)
		if status != ExitUsage || !strings.Contains(stderr, "no config file in "+dir) {
			t.Errorf("%s on an empty directory: exit %d, %q", cmd, status, stderr)
		}
	}
}

// TestCheckAcrossReleases: --pcp-version with a list lines every
// definition's fate up per release; it exits with the worst release's
// status and refuses formats it cannot carry.
func TestCheckAcrossReleases(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		out, _, status := run(t, "", "check", "--metadata", "embedded", "--format", format, "--pcp-version", "all", examples)
		if status != ExitFindings {
			t.Errorf("%s: exit %d, want 1", format, status)
		}
		checkGolden(t, "examples.releases."+format, out)
	}
	clean := filepath.Join(t.TempDir(), "clean.conf")
	if err := os.WriteFile(clean, []byte("x.delta = delta(sample.long.one + 1)\nx.plain = sample.long.one + 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, status := run(t, "", "check", "--metadata", "embedded", "--pcp-version", "6.0,6.3", clean)
	if status != ExitFindings || !strings.Contains(out, "PCP 6.0.0") || !strings.Contains(out, "syntax: Metric name expected to follow delta(") ||
		!strings.Contains(out, "2 definitions across PCP 6.0.0, 6.3.0: 1 the same on every release, 1 differ") {
		t.Errorf("exit %d, output:\n%s", status, out)
	}
	if _, stderr, status := run(t, "", "check", "--metadata", "embedded", "--pcp-version", "all", "--format", "sarif", clean); status != ExitUsage || !strings.Contains(stderr, "want text or json") {
		t.Errorf("sarif with several releases: exit %d, %s", status, stderr)
	}
	if _, stderr, status := run(t, "", "check", "--metadata", "embedded", "--pcp-version", "6.0,4.1", clean); status != ExitUsage || !strings.Contains(stderr, "not modelled") {
		t.Errorf("a release before 5.0: exit %d, %s", status, stderr)
	}
}

// TestAutoVersionOneAnswer: on one host, check, describe and eval resolve
// "auto" to the same release, the one pmcd reports, and say why; a
// snapshot or archive of that host gives the same.
func TestAutoVersionOneAnswer(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	out, err := exec.Command("pminfo", "-h", "127.0.0.1", "-f", "pmcd.version").Output()
	if err != nil {
		t.Fatalf("pminfo: %v (run scripts/pcp-testenv.sh)", err)
	}
	_, live, _ := strings.Cut(strings.TrimSpace(string(out)), "value \"")
	live = strings.TrimSuffix(live, "\"")
	want := "PCP " + live + " (pmcd at 127.0.0.1 reports PCP " + live + ")"
	conf := filepath.Join(examples, "disk-and-network.conf")
	_, stderr, _ := run(t, "", "check", "--host", "127.0.0.1", conf)
	if !strings.Contains(stderr, want) {
		t.Errorf("check: %q lacks %q", stderr, want)
	}
	stdout, _, _ := run(t, "", "describe", "--host", "127.0.0.1", conf)
	if !strings.Contains(stdout, want) {
		t.Errorf("describe: %q lacks %q", stdout, want)
	}
	_, stderr, _ = run(t, "", "eval", "--host", "127.0.0.1", "--samples", "1", conf)
	if !strings.Contains(stderr, want) {
		t.Errorf("eval: %q lacks %q", stderr, want)
	}
	json, _, _ := run(t, "", "check", "--host", "127.0.0.1", "--format", "json", conf)
	if !strings.Contains(json, `"pcpVersion": "`+live+`"`) {
		t.Errorf("check --format json does not name PCP %s:\n%s", live, json)
	}
	// A snapshot records the host's release, or the one it is told.
	snap := filepath.Join(t.TempDir(), "s.json")
	if _, stderr, status := run(t, "", "snapshot", "--host", "127.0.0.1", "--exclude", "proc,hotproc,kernel,disk,network,mem", "--no-help", "--pcp-version", "5.2", "-o", snap); status != ExitOK {
		t.Fatalf("snapshot: exit %d: %s", status, stderr)
	}
	_, stderr, _ = run(t, "", "check", "--metadata", snap, conf)
	if !strings.Contains(stderr, "; PCP 5.2.0 (snapshot") {
		t.Errorf("check with a 5.2 snapshot: %q", stderr)
	}
	// The embedded snapshot records the version of the host it came from.
	_, stderr, _ = run(t, "", "check", "--metadata", "embedded", conf)
	if !strings.Contains(stderr, "PCP 6.0.3 (embedded default metadata") {
		t.Errorf("check --metadata embedded: %q", stderr)
	}
}

// TestEvalArchiveEnds: a config that reads nothing from the archive (only
// constants) still replays the recording's records and ends with it,
// rather than printing the same sample forever; a config with nothing to
// evaluate, or a NAME it does not define, is an error.
func TestEvalArchiveEnds(t *testing.T) {
	const recording = "../../pmclient/archive/testdata/small3"
	dir := t.TempDir()
	constants := filepath.Join(dir, "constants.conf")
	unknown := filepath.Join(dir, "unknown.conf")
	if err := os.WriteFile(constants, []byte("x = 1 + 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unknown, []byte("y = no.such.metric\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eval := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		status := Main(ctx, Env{Args: append([]string{"eval", "--archive", recording}, args...), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
		if ctx.Err() != nil {
			t.Fatalf("eval %v did not end: %d bytes of output", args, out.Len())
		}
		return out.String(), errOut.String(), status
	}
	stdout, stderr, status := eval("--replay", "--format", "text", constants)
	if status != ExitOK {
		t.Fatalf("constants: exit %d: %s", status, stderr)
	}
	// One sample per data record that is not a <mark>.
	src, err := archive.Open(recording)
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	for {
		if _, err := src.Fetch(ctx, nil); err != nil {
			break
		}
		records++
	}
	if got := strings.Count(stdout, "x = 3"); got != records || records == 0 {
		t.Errorf("constants: %d samples of x, want one per record (%d):\n%s", got, records, stdout)
	}
	// Interpolated, every 100 milliseconds over the archive's 0.42 seconds.
	stdout, stderr, status = eval("-t", "0.1", "--format", "text", constants)
	if got := strings.Count(stdout, "x = 3"); status != ExitOK || got != 5 {
		t.Errorf("constants, interpolated: exit %d, %d samples of x, want 5:\n%s%s", status, got, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{unknown}, "no definition in " + unknown + " can be evaluated"},
		{[]string{constants, "z"}, "z: not defined in " + constants + " and not a metric in archive"},
	} {
		if _, stderr, status := eval(tc.args...); status != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("eval %v: exit %d, stderr %q; want exit %d and %q", tc.args, status, stderr, ExitUsage, tc.want)
		}
	}
}

// TestCheckSpecialFiles: a FIFO named on the command line used to block
// check for ever (opening it waits for a writer) and a device was read
// up to --max-size; both are refused with an error naming the file, and
// the other files are still checked.
func TestCheckSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "derived.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.conf")
	if err := os.WriteFile(good, []byte("x = 1 +\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		stdout, stderr string
		status         int
	}
	done := make(chan result, 1)
	go func() {
		stdout, stderr, status := run(t, "", "check", "--no-metadata", fifo, "/dev/zero", good)
		done <- result{stdout, stderr, status}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("check blocked on a FIFO named on the command line")
	}
	if r.status != 2 {
		t.Errorf("status %d, want 2 (files not read)", r.status)
	}
	for _, want := range []string{fifo + ": a FIFO, not a regular file", "/dev/zero: a character device, not a regular file"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "good.conf:1:") {
		t.Errorf("the regular file was not checked:\n%s", r.stdout)
	}
}

// TestEmittedCodesRegistered: every code check emits over the test
// configs (every kind of syntax, config-file and semantic finding, and
// advice) is in the registry, so outputs and suppressions know it.
func TestEmittedCodesRegistered(t *testing.T) {
	out, stderr, _ := run(t, "", "check", "--format", "json", "--metadata", "embedded", "../../testdata", "../../grammar/testdata", "../../checker/testdata")
	var doc struct {
		Files []struct {
			Diagnostics []struct{ Code string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	seen := map[string]bool{}
	for _, f := range doc.Files {
		for _, d := range f.Diagnostics {
			seen[d.Code] = true
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d distinct codes emitted: the corpus no longer exercises the checker", len(seen))
	}
	for c := range seen {
		if _, ok := codes.Lookup(c); !ok {
			t.Errorf("code %q emitted but not registered in package codes", c)
		}
	}
}

// TestSARIFRulesAndInvocations: each rule carries its registry entry (a
// full description, help, the page's address under --docs-url, a default
// level), and an input that could not be read is a tool execution
// notification of an unsuccessful invocation, with its location.
func TestSARIFRulesAndInvocations(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.conf")
	os.WriteFile(good, []byte("m.a = disk.dev.reda\n"), 0o644)
	missing := filepath.Join(dir, "missing.conf")
	out, _, status := run(t, "", "check", "--metadata", "embedded", "--format", "sarif", "--docs-url", "https://docs.example.com/codes", good, missing)
	if status != ExitUsage {
		t.Errorf("exit %d, want %d (an input was not read)", status, ExitUsage)
	}
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string
						FullDescription      struct{ Text, Markdown string }
						Help                 struct{ Text string }
						HelpURI              string
						DefaultConfiguration struct{ Level string }
					}
				}
			}
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level     string
					Message   struct{ Text string }
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }
							Region           *struct{ StartLine int }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := doc.Runs[0]
	if len(r.Tool.Driver.Rules) != 1 {
		t.Fatalf("rules %+v", r.Tool.Driver.Rules)
	}
	rule := r.Tool.Driver.Rules[0]
	info, _ := codes.Lookup("unknown-metric")
	if rule.ID != "unknown-metric" || rule.HelpURI != "https://docs.example.com/codes/unknown-metric.md" || rule.FullDescription.Markdown != info.Behaviour ||
		rule.FullDescription.Text == "" || rule.Help.Text == "" || rule.DefaultConfiguration.Level != "error" {
		t.Errorf("rule %+v", rule)
	}
	if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful || len(r.Invocations[0].ToolExecutionNotifications) != 1 {
		t.Fatalf("invocations %+v", r.Invocations)
	}
	n := r.Invocations[0].ToolExecutionNotifications[0]
	if n.Level != "error" || !strings.Contains(n.Message.Text, "missing.conf") || len(n.Locations) != 1 || !strings.HasSuffix(n.Locations[0].PhysicalLocation.ArtifactLocation.URI, "missing.conf") ||
		n.Locations[0].PhysicalLocation.Region != nil {
		t.Errorf("notification %+v", n)
	}
}
