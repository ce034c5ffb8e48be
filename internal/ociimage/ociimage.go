// Package ociimage writes the release's container image as an OCI image
// layout: one image per linux architecture, gathered in an image index,
// each the static binary on a base layer made here (no base image is
// pulled, no Docker daemon runs). The base is what distroless's "static"
// images give a static binary: /etc/passwd and /etc/group with root and
// nonroot (65532), the nonroot user's home, and a world-writable /tmp;
// the image runs as nonroot with the binary as its entrypoint.
//
// go-containerregistry does the OCI bookkeeping (digests, diff IDs,
// manifests, the index, the layout's blobs); this package decides what
// goes in.
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where things are in the image.
const (
	BinPath = "/usr/bin/pcp-derive-lsp"
	WorkDir = "/work" // where a CI job mounts its checkout
	User    = "65532:65532"
	Home    = "/home/nonroot"
)

// RefName is the annotation that names the index in the layout's
// index.json (skopeo's oci:DIR:NAME, podman's oci-archive:FILE:NAME).
const RefName = "org.opencontainers.image.ref.name"

// Binary is one architecture's static linux binary.
type Binary struct {
	Arch string // GOARCH: amd64, arm64
	Path string
}

// Image describes the image to write.
type Image struct {
	Version  string    // the release, X.Y.Z: the index's ref name and a label
	Revision string    // the commit, a label
	Source   string    // the repository's URL, a label
	Created  time.Time // every timestamp (the commit's time: reproducible)
	Binaries []Binary
}

// Write writes im as an OCI image layout into dir, which must not exist
// yet or be empty: index.json names one multi-architecture index, tagged
// im.Version.
func Write(dir string, im Image) error {
	if len(im.Binaries) == 0 {
		return fmt.Errorf("ociimage: no binaries")
	}
	base, err := layer(baseFiles(im.Created))
	if err != nil {
		return fmt.Errorf("ociimage: the base layer: %w", err)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range im.Binaries {
		img, err := archImage(im, b, base)
		if err != nil {
			return fmt.Errorf("ociimage: linux/%s: %w", b.Arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: b.Arch}},
		})
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefName: im.Version})); err != nil {
		return fmt.Errorf("ociimage: writing the layout: %w", err)
	}
	return nil
}

// archImage is one architecture's image: the base, then the binary.
func archImage(im Image, b Binary, base v1.Layer) (v1.Image, error) {
	bin, err := os.ReadFile(b.Path)
	if err != nil {
		return nil, err
	}
	binLayer, err := layer([]file{
		dirEntry("usr/", 0o755, im.Created), dirEntry("usr/bin/", 0o755, im.Created),
		{hdr: tar.Header{Name: BinPath[1:], Mode: 0o755, ModTime: im.Created}, body: bin},
	})
	if err != nil {
		return nil, err
	}
	cfg := &v1.ConfigFile{
		Architecture: b.Arch,
		OS:           "linux",
		Created:      v1.Time{Time: im.Created},
		Config: v1.Config{
			Entrypoint: []string{BinPath},
			Cmd:        []string{"--help"},
			User:       User,
			WorkingDir: WorkDir,
			Env:        []string{"PATH=/usr/bin", "HOME=" + Home},
			Labels: map[string]string{
				"org.opencontainers.image.title":    "pcp-derive-lsp",
				"org.opencontainers.image.version":  im.Version,
				"org.opencontainers.image.revision": im.Revision,
				"org.opencontainers.image.source":   im.Source,
				"org.opencontainers.image.licenses": "Apache-2.0",
			},
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
	img, err := mutate.ConfigFile(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), cfg)
	if err != nil {
		return nil, err
	}
	return mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: cfg.Created, CreatedBy: "pcp-derive-lsp base: passwd, group, home, tmp", Comment: "internal/ociimage"}},
		mutate.Addendum{Layer: binLayer, MediaType: types.OCILayer, History: v1.History{Created: cfg.Created, CreatedBy: "pcp-derive-lsp " + im.Version + " " + BinPath, Comment: "internal/ociimage"}},
	)
}

// file is one entry of a layer.
type file struct {
	hdr  tar.Header
	body []byte
}

func dirEntry(name string, mode int64, t time.Time) file {
	return file{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, ModTime: t}}
}

// baseFiles is the distroless-style base: users, home, tmp.
func baseFiles(t time.Time) []file {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:" + Home + ":/sbin/nologin\n"
	group := "root:x:0:\nnonroot:x:65532:\n"
	home := dirEntry(Home[1:]+"/", 0o700, t)
	home.hdr.Uid, home.hdr.Gid = 65532, 65532
	return []file{
		dirEntry("etc/", 0o755, t),
		{hdr: tar.Header{Name: "etc/group", Mode: 0o644, ModTime: t}, body: []byte(group)},
		{hdr: tar.Header{Name: "etc/passwd", Mode: 0o644, ModTime: t}, body: []byte(passwd)},
		dirEntry("home/", 0o755, t),
		home,
		dirEntry("root/", 0o700, t),
		dirEntry("tmp/", 0o1777, t),
		dirEntry(WorkDir[1:]+"/", 0o755, t),
	}
}

// layer makes a gzipped layer of files, in order, owned by root unless
// the header says otherwise.
func layer(files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := f.hdr
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		h.Size = int64(len(f.body))
		if err := tw.WriteHeader(&h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// Read reads back a layout Write wrote: the index index.json tags
// version, and its image for each linux architecture, as a registry
// client or podman would find them.
func Read(dir, version string) (map[string]v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("ociimage: %w", err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("ociimage: %w", err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("ociimage: index.json: %w", err)
	}
	if len(tm.Manifests) != 1 || tm.Manifests[0].Annotations[RefName] != version || tm.Manifests[0].MediaType != types.OCIImageIndex {
		return nil, fmt.Errorf("ociimage: index.json lists %d entries, want one image index tagged %s", len(tm.Manifests), version)
	}
	idx, err := top.ImageIndex(tm.Manifests[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("ociimage: %w", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("ociimage: the index: %w", err)
	}
	images := map[string]v1.Image{}
	for _, d := range im.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" || d.MediaType != types.OCIManifestSchema1 {
			return nil, fmt.Errorf("ociimage: manifest %s is not a linux OCI image", d.Digest)
		}
		if images[d.Platform.Architecture], err = idx.Image(d.Digest); err != nil {
			return nil, fmt.Errorf("ociimage: linux/%s: %w", d.Platform.Architecture, err)
		}
	}
	return images, nil
}
