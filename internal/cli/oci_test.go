package cli

import (
	"archive/tar"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ociimage"
)

// testOCIImage reads the container image release.sh archived (an OCI
// layout as oci-archive) back as a registry client would, checks this
// platform's image's config, unpacks its filesystem and runs check from
// it: in a chroot as the image's user when the test runs as root (CI
// does), else the unpacked binary directly.
func testOCIImage(t *testing.T, archive, version string) {
	dir := t.TempDir()
	untar(t, archive, dir)
	images, err := ociimage.Read(dir, version)
	if err != nil {
		t.Fatal(err)
	}
	// TestReleaseBuild builds this platform only: one image, for it.
	img := images[runtime.GOARCH]
	if len(images) != 1 || img == nil {
		t.Fatalf("the index has images for %v, want linux/%s only", slices.Collect(maps.Keys(images)), runtime.GOARCH)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Architecture != runtime.GOARCH || !slices.Equal(cf.Config.Entrypoint, []string{ociimage.BinPath}) || cf.Config.User != ociimage.User {
		t.Errorf("config: %s, entrypoint %v, user %q", cf.Architecture, cf.Config.Entrypoint, cf.Config.User)
	}

	root := filepath.Join(t.TempDir(), "root")
	unpackImage(t, img, root)
	mustRun(t, "cp", "../../testdata/examples/mistakes.conf", "../../testdata/examples/disk-and-network.conf", filepath.Join(root, ociimage.WorkDir))
	run := func(args ...string) (string, int) {
		var cmd *exec.Cmd
		if os.Getuid() == 0 {
			cmd = exec.Command("chroot", append([]string{"--userspec=" + ociimage.User, root}, append(cf.Config.Entrypoint, args...)...)...)
		} else {
			cmd = exec.Command(filepath.Join(root, ociimage.BinPath), args...)
		}
		cmd.Env = cf.Config.Env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	if out, status := run("--version"); status != 0 || !strings.HasPrefix(out, "pcp-derive-lsp "+version+" ") {
		t.Errorf("--version: exit %d, %q", status, out)
	}
	w := ociimage.WorkDir
	if os.Getuid() != 0 {
		w = filepath.Join(root, ociimage.WorkDir)
	}
	if out, status := run("check", "--no-metadata", "--color", "never", w+"/disk-and-network.conf"); status != 0 || !strings.HasPrefix(out, "0 errors, 0 warnings in 1 file") {
		t.Errorf("check of the clean example: exit %d\n%s", status, out)
	}
	if out, status := run("check", "--no-metadata", "--color", "never", w+"/mistakes.conf"); status != 1 || !strings.Contains(out, "mistakes.conf:2:") {
		t.Errorf("check of mistakes.conf: exit %d, want 1 and its findings\n%s", status, out)
	}
}

// untar unpacks a tar of regular files and directories into dir.
func untar(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	extract(t, tar.NewReader(f), dir)
}

// unpackImage writes an image's flattened filesystem into root.
func unpackImage(t *testing.T, img v1.Image, root string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	extract(t, tar.NewReader(rc), root)
}

// extract writes a tar stream's directories and regular files under dir
// with their modes and, as root, their owners; any other entry, or a
// name leaving dir, fails the test.
func extract(t *testing.T, tr *tar.Reader, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	eachTarEntry(t, tr, func(h *tar.Header, r io.Reader) {
		name := filepath.Clean(h.Name)
		if !filepath.IsLocal(name) {
			t.Fatalf("entry %q leaves the directory", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(out, r); err != nil {
				t.Fatal(err)
			}
			out.Close()
		default:
			t.Fatalf("entry %q of type %c", h.Name, h.Typeflag)
		}
		if err := os.Chmod(p, os.FileMode(h.Mode&0o777)|modeBits(h.Mode)); err != nil {
			t.Fatal(err)
		}
		if os.Getuid() == 0 {
			if err := os.Lchown(p, h.Uid, h.Gid); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// modeBits turns a tar mode's sticky, setuid and setgid bits into Go's.
func modeBits(m int64) os.FileMode {
	var f os.FileMode
	if m&0o1000 != 0 {
		f |= os.ModeSticky
	}
	if m&0o2000 != 0 {
		f |= os.ModeSetgid
	}
	if m&0o4000 != 0 {
		f |= os.ModeSetuid
	}
	return f
}
