package cli

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		name                    string
		version, commit         string
		mainVersion             string
		settings                []debug.BuildSetting
		wantVersion, wantCommit string
	}{
		{"go install @v0.2.0", "0.1.0-dev", "", "v0.2.0", nil, "0.2.0", ""},
		{"go build in a checkout", "0.1.0-dev", "", "v0.2.1-0.20261125083624-0123456789ab+dirty", dirty, "0.2.1-0.20261125083624-0123456789ab+dirty", "0123456789ab-dirty"},
		{"go test", "0.1.0-dev", "", "(devel)", nil, "0.1.0-dev", ""},
		{"ldflags win", "0.3.0", "feedc0ffee12", "v0.2.0", rev, "0.3.0", "feedc0ffee12"},
		{"revision only", "0.1.0-dev", "", "", rev, "0.1.0-dev", "0123456789ab"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/pcp-derive-lsp/pcp-derive-lsp", Version: c.mainVersion}, Settings: c.settings}
		v, commit := fromBuildInfo(c.version, c.commit, info)
		if v != c.wantVersion || commit != c.wantCommit {
			t.Errorf("%s: got %q, %q; want %q, %q", c.name, v, commit, c.wantVersion, c.wantCommit)
		}
	}
}

// TestReleaseBuild runs scripts/release.sh for this machine's platform
// only (no .vsix): the binary it archives, built with the script's
// -ldflags, must print the version and commit it was given, and
// SHA256SUMS must match the archive. On linux it also makes the .deb
// and .rpm, which the Deb and RPM subtests install, use and remove
// (packages_test.go). The Mason subtest finds the archive and binary
// Mason's entry names (mason_test.go); the Action subtests run
// action.yml's script against this release (action_test.go); the OCI
// subtest reads the container image back and runs check from it
// (oci_test.go).
func TestReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, tool := range []string{"bash", "git", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("needs %s: %v", tool, err)
		}
	}
	if runtime.GOOS == "windows" {
		t.Skip("the release script runs on unix")
	}
	dist := t.TempDir()
	target := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("bash", "../../scripts/release.sh", "--server-only", "--targets", target, "--dist", dist, "v9.8.7")
	cmd.Env = append(os.Environ(), "COMMIT=feedc0ffee12")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	base := "pcp-derive-lsp-9.8.7-" + runtime.GOOS + "-" + runtime.GOARCH
	names, err := filepath.Glob(filepath.Join(dist, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	want := []string{"SHA256SUMS"}
	deb := "pcp-derive-lsp_9.8.7-1_" + runtime.GOARCH + ".deb"
	rpm := "pcp-derive-lsp-9.8.7-1." + map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH] + ".rpm"
	if runtime.GOOS == "linux" {
		want = append(want, rpm) // in filepath.Glob's order
	}
	want = append(want, base+".tar.gz")
	oci := "pcp-derive-lsp-9.8.7-oci.tar"
	if runtime.GOOS == "linux" {
		want = append(want, oci, deb)
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("dist holds %v, want %v", names, want)
	}

	// The archive: one directory with the binary, LICENSE, README.md and CHANGELOG.md.
	bin := filepath.Join(t.TempDir(), "pcp-derive-lsp")
	var entries []string
	eachTarGzEntry(t, filepath.Join(dist, base+".tar.gz"), func(h *tar.Header, r io.Reader) {
		entries = append(entries, h.Name)
		if h.Name != base+"/pcp-derive-lsp" {
			return
		}
		if h.Mode&0o111 == 0 {
			t.Errorf("%s has mode %o, not executable", h.Name, h.Mode)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, want 0:0", h.Name, h.Uid, h.Gid)
		}
		out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, r); err != nil {
			t.Fatal(err)
		}
		out.Close()
	})
	want = []string{base + "/", base + "/CHANGELOG.md", base + "/LICENSE", base + "/README.md", base + "/pcp-derive-lsp"}
	if strings.Join(entries, " ") != strings.Join(want, " ") {
		t.Errorf("archive holds %v, want %v", entries, want)
	}

	wantLine := regexp.MustCompile(`^pcp-derive-lsp 9\.8\.7 \(commit feedc0ffee12, go1\.[0-9.]+\S* ` + runtime.GOOS + "/" + runtime.GOARCH + `\)\n$`)
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", bin, arg, err)
		}
		if !wantLine.Match(out) {
			t.Errorf("%s: %q does not carry version 9.8.7 and commit feedc0ffee12", arg, out)
		}
	}

	check := exec.Command("sha256sum", "--check", "--strict", "SHA256SUMS")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("sha256sum --check: %v\n%s", err, out)
	}

	t.Run("Mason", func(t *testing.T) { testMasonAssets(t, dist, "9.8.7") })
	if runtime.GOOS == "linux" {
		t.Run("Action", func(t *testing.T) { testAction(t, dist, "9.8.7") })
		t.Run("OCI", func(t *testing.T) { testOCIImage(t, filepath.Join(dist, oci), "9.8.7") })
		t.Run("Deb", func(t *testing.T) { testDebInstall(t, filepath.Join(dist, deb)) })
		t.Run("RPM", func(t *testing.T) { testRPMInstall(t, filepath.Join(dist, rpm)) })
	}
}

// eachTarGzEntry calls fn with each entry of the .tar.gz at path, in
// order, and a reader of its contents.
func eachTarGzEntry(t *testing.T, path string, fn func(h *tar.Header, r io.Reader)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	eachTarEntry(t, tar.NewReader(gz), fn)
}

// eachTarEntry calls fn with each entry of tr, in order.
func eachTarEntry(t *testing.T, tr *tar.Reader, fn func(h *tar.Header, r io.Reader)) {
	t.Helper()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(h, tr)
	}
}
