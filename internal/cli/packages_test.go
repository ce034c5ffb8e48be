package cli

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pkgbuild"
)

// The package tests install what scripts/release.sh made (TestReleaseBuild
// runs them on its dist) into places scripts/packages-env.sh (make
// testenv) prepares: a throwaway copy of a cached Debian 12 minbase
// chroot with man-db, zsh and fish for the .deb (cp -a, 228 MB, 5-10 s:
// no copy-on-write here; dpkg runs inside it with chroot, so the package
// meets a real, clean dpkg database, and man and the shells find its
// files where Debian's look), and an empty RPM root for the .rpm (rpm --root, Debian's
// rpm). Both need root; they skip only when PCP_DERIVE_LSP_NO_ORACLE=1
// asks, as the other tests needing the test environment do, so CI (root,
// make testenv done) never skips them.

// packagesEnv returns the clean chroot, or skips or fails the test.
func packagesEnv(t *testing.T) string {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1: no test environment")
	}
	if os.Getuid() != 0 {
		t.Fatal("installing packages into a chroot needs root (or PCP_DERIVE_LSP_NO_ORACLE=1 to skip)")
	}
	dir := os.Getenv("PCP_PACKAGES_DIR")
	if dir == "" {
		dir = "/var/cache/pcp-derive-lsp/packages"
	}
	root := filepath.Join(dir, "bookworm")
	if _, err := os.Stat(filepath.Join(root, ".pcp-derive-lsp-ready")); err != nil {
		t.Fatalf("no clean Debian chroot at %s: run scripts/packages-env.sh (make testenv)", root)
	}
	return root
}

// mustRun runs a command and fails the test with its output when it fails.
func mustRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// tree lists the paths under root, leaving out the package managers'
// own state and logs (which installing and removing rightly change).
func tree(t *testing.T, root string, skip ...string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// installedFiles are the files both packages install, with where each
// format puts its zsh completion and licence.
func installedFiles(format string) []string {
	return []string{
		pkgbuild.BinPath, pkgbuild.ManPath, pkgbuild.BashPath, pkgbuild.FishPath,
		pkgbuild.ZshPath(format), pkgbuild.LicencePath(format),
		pkgbuild.DocDir + "/README.md", pkgbuild.DocDir + "/CHANGELOG.md",
		pkgbuild.DocDir + "/examples/disk-and-network.conf", pkgbuild.DocDir + "/examples/mistakes.conf",
	}
}

// testDebInstall installs the .deb into a copy of the clean chroot, runs
// check on the example configs it installed, renders its man page, tries
// its bash completion, and removes it: the chroot must be as it was.
func testDebInstall(t *testing.T, deb string) {
	clean := packagesEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	mustRun(t, "cp", "-a", clean, root)
	state := []string{"var/lib/dpkg", "var/log", "var/cache/debconf", "var/cache/man", "tmp"}
	before := tree(t, root, state...)
	mustRun(t, "cp", deb, filepath.Join(root, "tmp/pkg.deb"))
	mustRun(t, "chroot", root, "dpkg", "-i", "/tmp/pkg.deb")
	for _, f := range installedFiles("deb") {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the .deb did not install %s: %v", f, err)
		}
	}
	if got := mustRun(t, "chroot", root, "dpkg-query", "-W", "-f", "${Status}", "pcp-derive-lsp"); got != "install ok installed" {
		t.Errorf("dpkg-query says %q, want install ok installed", got)
	}

	// The installed binary checks the installed examples: the clean one
	// passes (exit 0), the one full of mistakes does not (exit 1).
	examples := pkgbuild.DocDir + "/examples/"
	out := mustRun(t, "chroot", root, pkgbuild.BinPath, "check", "--no-metadata", "--color", "never", examples+"disk-and-network.conf")
	if !strings.HasPrefix(out, "0 errors, 0 warnings in 1 file") {
		t.Errorf("check of the clean example printed %q", out)
	}
	cmd := exec.Command("chroot", root, pkgbuild.BinPath, "check", "--no-metadata", "--color", "never", examples+"mistakes.conf")
	out2, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitFindings || !strings.Contains(string(out2), "mistakes.conf:") {
		t.Errorf("check of mistakes.conf: %v, want exit status 1 and findings; printed %q", err, out2)
	}

	// Inside the chroot, as a user would: man finds the page by name and
	// renders it without warnings; zsh and fish find the completions in
	// their Debian directories and complete a flag with them, as bash does
	// with its file. Their state goes to /tmp, which the comparison skips.
	shell := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("chroot", append([]string{root}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp/home", "XDG_CONFIG_HOME=/tmp/home", "XDG_DATA_HOME=/tmp/home",
			"XDG_CACHE_HOME=/tmp/home", "LANG=C.UTF-8", "TERM=dumb", "MANPAGER=cat", "MANWIDTH=100", "MAN_KEEP_FORMATTING=0"}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}
	if err := os.MkdirAll(filepath.Join(root, "tmp/home"), 0o755); err != nil {
		t.Fatal(err)
	}
	// man sets bold and underlined text by overstriking: keep the letters.
	page := regexp.MustCompile(".\b").ReplaceAllString(shell("man", "pcp-derive-lsp"), "")
	for _, want := range []string{"PCP-DERIVE-LSP(1)", "pcp-derive-lsp check [flags] PATH...", "--fail-on SEVERITY", "--log-file FILE", "pcp-derive-lsp snapshot"} {
		if !strings.Contains(page, want) {
			t.Errorf("the man page lacks %q:\n%s", want, page)
		}
	}
	completions := map[string]string{
		"bash": shell("bash", "-c", "source "+pkgbuild.BashPath+`; COMP_WORDS=(pcp-derive-lsp check --fail); COMP_CWORD=2; _pcp_derive_lsp; echo "${COMPREPLY[*]}"`),
		"zsh":  shell("zsh", "-fc", `autoload -U compinit && compinit -u -d /tmp/home/zcompdump && print -r -- $_comps[pcp-derive-lsp]`),
		"fish": shell("fish", "-c", `complete -C "pcp-derive-lsp check --fail"`),
	}
	for sh, want := range map[string]string{"bash": "--fail-on", "zsh": "_pcp-derive-lsp", "fish": "--fail-on\texit 1 on findings at or above SEVERITY: error or warning"} {
		if got := strings.TrimSpace(completions[sh]); got != want {
			t.Errorf("%s completion: got %q, want %q", sh, got, want)
		}
	}
	shell("zsh", "-n", pkgbuild.ZshPath("deb"))
	shell("fish", "--no-execute", pkgbuild.FishPath)

	mustRun(t, "chroot", root, "dpkg", "-r", "pcp-derive-lsp")
	if after := tree(t, root, state...); !slices.Equal(before, after) {
		t.Errorf("dpkg -r left the chroot different: %d paths before, %d after; added %v", len(before), len(after), added(before, after))
	}
}

// systemDirs are the directories an RPM system's base packages own
// (Fedora's filesystem, bash-completion, fish, zsh): the .rpm puts files
// in them but does not own them, so erasing it leaves them.
var systemDirs = []string{"usr/bin", "usr/share/man/man1", "usr/share/licenses", "usr/share/doc",
	"usr/share/bash-completion/completions", "usr/share/fish/vendor_completions.d", "usr/share/zsh/site-functions"}

// testRPMInstall installs the .rpm into an RPM root holding only the
// system directories, runs the binary from there and erases it: only the
// RPM database may change.
func testRPMInstall(t *testing.T, rpm string) {
	packagesEnv(t)
	if _, err := exec.LookPath("rpm"); err != nil {
		t.Fatalf("needs rpm (Debian's rpm package; scripts/packages-env.sh installs it): %v", err)
	}
	root := t.TempDir()
	for _, d := range systemDirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Debian's rpm keeps its database in ~/.rpmdb, Fedora's in /usr/lib/sysimage/rpm.
	state := []string{"root/.rpmdb", "var/lib/rpm", "usr/lib/sysimage/rpm", "var/tmp", "tmp"}
	before := tree(t, root, state...)
	mustRun(t, "rpm", "--root", root, "--initdb")
	mustRun(t, "rpm", "--root", root, "-i", "--nodeps", rpm)
	for _, f := range installedFiles("rpm") {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the .rpm did not install %s: %v", f, err)
		}
	}
	if got := mustRun(t, "rpm", "--root", root, "-q", "--qf", "%{NAME} %{VERSION}", "pcp-derive-lsp"); got != "pcp-derive-lsp 9.8.7" {
		t.Errorf("rpm -q says %q", got)
	}
	if got := strings.TrimSpace(mustRun(t, "rpm", "--root", root, "-qL", "pcp-derive-lsp")); got != pkgbuild.LicencePath("rpm") {
		t.Errorf("rpm -qL (the %%license files) says %q, want %s", got, pkgbuild.LicencePath("rpm"))
	}
	if got := mustRun(t, "rpm", "--root", root, "-qd", "pcp-derive-lsp"); !strings.Contains(got, pkgbuild.ManPath) || !strings.Contains(got, pkgbuild.DocDir+"/README.md") {
		t.Errorf("rpm -qd (the %%doc files) lacks the man page or README: %q", got)
	}
	out := mustRun(t, filepath.Join(root, pkgbuild.BinPath), "check", "--no-metadata", "--color", "never", filepath.Join(root, pkgbuild.DocDir, "examples/disk-and-network.conf"))
	if !strings.HasPrefix(out, "0 errors, 0 warnings in 1 file") {
		t.Errorf("check of the clean example printed %q", out)
	}
	mustRun(t, "rpm", "--root", root, "-e", "pcp-derive-lsp")
	// The directories rpm made for its database may stay, nothing else.
	after := slices.DeleteFunc(tree(t, root, state...), func(p string) bool {
		return p == "root" || p == "var" || p == "var/lib" || p == "usr/lib" || p == "usr/lib/sysimage"
	})
	if !slices.Equal(before, after) {
		t.Errorf("rpm -e left the root different: added %v", added(before, after))
	}
}

// added lists the paths in after that are not in before.
func added(before, after []string) []string {
	var out []string
	for _, p := range after {
		if _, found := slices.BinarySearch(before, p); !found {
			out = append(out, p)
		}
	}
	return out
}
