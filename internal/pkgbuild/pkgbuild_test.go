package pkgbuild

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeInputs makes a checkout and a gendocs directory with small stand-ins.
func fakeInputs(t *testing.T) Inputs {
	t.Helper()
	dir := t.TempDir()
	in := Inputs{Binary: filepath.Join(dir, "bin"), GenDir: filepath.Join(dir, "gen"), RepoDir: filepath.Join(dir, "repo")}
	for path, text := range map[string]string{
		in.Binary:                                             "#!/bin/sh\n",
		filepath.Join(in.GenDir, Name+".1"):                   ".TH X 1\n",
		filepath.Join(in.GenDir, Name+".bash"):                "# bash\n",
		filepath.Join(in.GenDir, "_"+Name):                    "#compdef x\n",
		filepath.Join(in.GenDir, Name+".fish"):                "# fish\n",
		filepath.Join(in.RepoDir, "README.md"):                "# readme\n",
		filepath.Join(in.RepoDir, "CHANGELOG.md"):             "# changes\n",
		filepath.Join(in.RepoDir, "LICENSE"):                  "licence\n",
		filepath.Join(in.RepoDir, "testdata/examples/a.conf"): "a = 1\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// TestReproducible: the same inputs and time make the same bytes, so a
// release's SHA256SUMS can be checked by rebuilding.
func TestReproducible(t *testing.T) {
	in := fakeInputs(t)
	for _, format := range Formats {
		var built [2][]byte
		for i := range built {
			out := t.TempDir()
			s := Spec{Format: format, Arch: "arm64", Version: "1.2.3-rc.1", MTime: time.Unix(1_700_000_000, 0), Inputs: in}
			path, err := Build(s, out, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if built[i], err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"deb": "pcp-derive-lsp_1.2.3~rc.1-1_arm64.deb", "rpm": "pcp-derive-lsp-1.2.3~rc.1-1.aarch64.rpm"}[format]; filepath.Base(path) != want {
				t.Errorf("%s: named %s, want %s", format, filepath.Base(path), want)
			}
		}
		if !bytes.Equal(built[0], built[1]) {
			t.Errorf("%s: two builds of the same inputs differ", format)
		}
	}
}

func TestMissingInput(t *testing.T) {
	in := fakeInputs(t)
	if err := os.Remove(filepath.Join(in.GenDir, Name+".fish")); err != nil {
		t.Fatal(err)
	}
	_, err := Build(Spec{Format: "deb", Arch: "amd64", Version: "1.0.0", Inputs: in}, t.TempDir(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), Name+".fish") {
		t.Errorf("got %v, want an error naming the missing completion", err)
	}
	if _, err := Build(Spec{Format: "apk", Arch: "amd64", Version: "1.0.0", Inputs: in}, t.TempDir(), t.TempDir()); err == nil {
		t.Error("an unknown format built")
	}
}
