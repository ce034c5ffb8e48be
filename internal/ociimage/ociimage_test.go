package ociimage

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// writeTest writes an image of two stand-in binaries into a new dir.
func writeTest(t *testing.T) (string, Image) {
	t.Helper()
	dir := t.TempDir()
	var bins []Binary
	for _, arch := range []string{"amd64", "arm64"} {
		p := filepath.Join(dir, arch)
		if err := os.WriteFile(p, []byte("binary for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
		bins = append(bins, Binary{Arch: arch, Path: p})
	}
	im := Image{Version: "9.8.7", Revision: "feedc0ffee12", Source: "https://example.org/repo",
		Created: time.Unix(1_800_000_000, 0).UTC(), Binaries: bins}
	out := filepath.Join(dir, "layout")
	if err := Write(out, im); err != nil {
		t.Fatal(err)
	}
	return out, im
}

func TestWrite(t *testing.T) {
	dir, im := writeTest(t)
	images, err := Read(dir, im.Version)
	if err != nil {
		t.Fatal(err)
	}
	if len(images) != 2 || images["amd64"] == nil || images["arm64"] == nil {
		t.Fatalf("images for %v, want amd64 and arm64", images)
	}
	for arch, img := range images {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cf.Config
		if cf.Architecture != arch || cf.OS != "linux" || !cf.Created.Time.Equal(im.Created) {
			t.Errorf("%s: config says %s/%s created %v", arch, cf.OS, cf.Architecture, cf.Created)
		}
		if !slices.Equal(c.Entrypoint, []string{BinPath}) || c.User != "65532:65532" || c.WorkingDir != "/work" {
			t.Errorf("%s: entrypoint %v, user %q, workdir %q", arch, c.Entrypoint, c.User, c.WorkingDir)
		}
		if c.Labels["org.opencontainers.image.version"] != "9.8.7" || c.Labels["org.opencontainers.image.revision"] != "feedc0ffee12" {
			t.Errorf("%s: labels %v", arch, c.Labels)
		}
		if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
			t.Errorf("%s: manifest media type %s", arch, mt)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 2 || len(cf.RootFS.DiffIDs) != 2 || len(cf.History) != 2 {
			t.Errorf("%s: %d layers (%v), %d diff IDs, %d history entries; want 2 each", arch, len(layers), err, len(cf.RootFS.DiffIDs), len(cf.History))
		}

		// The filesystem a container of it starts from.
		got := map[string]*tar.Header{}
		bodies := map[string]string{}
		tr := tar.NewReader(mutate.Extract(img))
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(h.Name, "/")
			got[name] = h
			b, _ := io.ReadAll(tr)
			bodies[name] = string(b)
		}
		for _, w := range []struct {
			name       string
			mode       int64
			uid        int
			body       string
			typeflag   byte
			checkBytes bool
		}{
			{"usr/bin/pcp-derive-lsp", 0o755, 0, "binary for " + arch, tar.TypeReg, true},
			{"etc/passwd", 0o644, 0, "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n", tar.TypeReg, true},
			{"etc/group", 0o644, 0, "root:x:0:\nnonroot:x:65532:\n", tar.TypeReg, true},
			{"tmp", 0o1777, 0, "", tar.TypeDir, false},
			{"home/nonroot", 0o700, 65532, "", tar.TypeDir, false},
			{"work", 0o755, 0, "", tar.TypeDir, false},
		} {
			h := got[w.name]
			switch {
			case h == nil:
				t.Errorf("%s: no %s in the image", arch, w.name)
			case h.Typeflag != w.typeflag || h.Mode != w.mode || h.Uid != w.uid || !h.ModTime.Equal(im.Created):
				t.Errorf("%s: %s type %c mode %o uid %d time %v", arch, w.name, h.Typeflag, h.Mode, h.Uid, h.ModTime)
			case w.checkBytes && bodies[w.name] != w.body:
				t.Errorf("%s: %s holds %q, want %q", arch, w.name, bodies[w.name], w.body)
			}
		}
	}

	// The same input makes the same image, byte for byte.
	dir2, _ := writeTest(t)
	index := func(dir string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := index(dir), index(dir2); !bytes.Equal(a, b) {
		t.Errorf("two writes of one image: index.json\n%s\nand\n%s", a, b)
	}
}

func TestWriteErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		im   Image
	}{
		{"no binaries", Image{Version: "1.0.0"}},
		{"missing binary", Image{Version: "1.0.0", Binaries: []Binary{{Arch: "amd64", Path: "/nonexistent/pcp-derive-lsp"}}}},
	} {
		if err := Write(filepath.Join(t.TempDir(), "out"), c.im); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
