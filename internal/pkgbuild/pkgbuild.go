// Package pkgbuild makes the release's .deb and .rpm packages with nfpm
// (github.com/goreleaser/nfpm/v2), which writes the ar, tar, cpio and
// RPM header formats for us. It decides only what goes where: the static
// binary in /usr/bin, the man page and shell completions internal/docgen
// generated, the docs, the example configs and the licence.
package pkgbuild

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

// Name is the package's name, and its binary's.
const Name = "pcp-derive-lsp"

// Formats are the package formats Build makes.
var Formats = []string{"deb", "rpm"}

// Inputs are the files a package is made of.
type Inputs struct {
	Binary  string // the static linux binary for the package's arch
	GenDir  string // what internal/docgen/gendocs wrote: NAME.1 and the completions
	RepoDir string // the checkout: README.md, CHANGELOG.md, LICENSE, testdata/examples
}

// Spec is one package to make.
type Spec struct {
	Format  string // deb or rpm
	Arch    string // a Go GOARCH: amd64 or arm64 (nfpm names it x86_64, aarch64 for rpm)
	Version string // X.Y.Z[-PRE][+BUILD], as scripts/release.sh checks it
	MTime   time.Time
	Inputs
}

// Paths where the installed files go, shared with the tests.
const (
	BinPath      = "/usr/bin/" + Name
	ManPath      = "/usr/share/man/man1/" + Name + ".1.gz"
	DocDir       = "/usr/share/doc/" + Name
	BashPath     = "/usr/share/bash-completion/completions/" + Name
	FishPath     = "/usr/share/fish/vendor_completions.d/" + Name + ".fish"
	debZshPath   = "/usr/share/zsh/vendor-completions/_" + Name // Debian's zsh $fpath
	rpmZshPath   = "/usr/share/zsh/site-functions/_" + Name     // Fedora's
	debLicence   = DocDir + "/copyright"                        // Debian policy 12.5
	rpmLicence   = "/usr/share/licenses/" + Name + "/LICENSE"   // %license
	examplesGlob = "testdata/examples/*.conf"
)

// ZshPath and LicencePath are where a format puts the zsh completion and
// the licence.
func ZshPath(format string) string {
	if format == "rpm" {
		return rpmZshPath
	}
	return debZshPath
}

func LicencePath(format string) string {
	if format == "rpm" {
		return rpmLicence
	}
	return debLicence
}

// Build writes the package into dir and returns its path
// (pcp-derive-lsp_0.2.0_amd64.deb, pcp-derive-lsp-0.2.0-1.x86_64.rpm).
// stage is a scratch directory for the compressed man page.
func Build(s Spec, dir, stage string) (string, error) {
	packager, err := nfpm.Get(s.Format)
	if err != nil {
		return "", fmt.Errorf("package format %q: %w", s.Format, err)
	}
	man, err := gzipFile(filepath.Join(s.GenDir, Name+".1"), filepath.Join(stage, Name+".1.gz"))
	if err != nil {
		return "", err
	}
	contents, err := s.contents(man)
	if err != nil {
		return "", err
	}
	info := nfpm.WithDefaults(&nfpm.Info{
		Name:        Name,
		Arch:        s.Arch,
		Platform:    "linux",
		Version:     s.Version,
		Release:     "1",
		Section:     "utils",
		Priority:    "optional",
		Maintainer:  "pcp-derive-lsp developers <https://github.com/pcp-derive-lsp/pcp-derive-lsp/issues>",
		Description: "Language server, CI linter and live previewer for PCP derived metrics\nChecks Performance Co-Pilot derived metric configs as libpcp reads them,\nin editors (the Language Server Protocol) and in CI, and evaluates and\nexplains their values from pmcd or archives. One static binary.",
		Homepage:    "https://github.com/pcp-derive-lsp/pcp-derive-lsp",
		License:     "Apache-2.0",
		MTime:       s.MTime,
		Overridables: nfpm.Overridables{
			Contents: contents,
			Suggests: []string{"pcp"},
		},
	})
	if err := nfpm.PrepareForPackager(info, s.Format); err != nil {
		return "", fmt.Errorf("%s %s: %w", s.Format, s.Arch, err)
	}
	path := filepath.Join(dir, packager.ConventionalFileName(info))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := packager.Package(info, f); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("%s %s: %w", s.Format, s.Arch, err)
	}
	return path, f.Close()
}

// contents lists what the package installs, from where.
func (s Spec) contents(man string) (files.Contents, error) {
	repo := func(p string) string { return filepath.Join(s.RepoDir, p) }
	gen := func(p string) string { return filepath.Join(s.GenDir, p) }
	c := files.Contents{
		s.file(s.Binary, BinPath, 0o755, ""),
		s.file(man, ManPath, 0o644, "doc"),
		s.file(gen(Name+".bash"), BashPath, 0o644, ""),
		s.file(gen("_"+Name), ZshPath(s.Format), 0o644, ""),
		s.file(gen(Name+".fish"), FishPath, 0o644, ""),
		s.file(repo("README.md"), DocDir+"/README.md", 0o644, "doc"),
		s.file(repo("CHANGELOG.md"), DocDir+"/CHANGELOG.md", 0o644, "doc"),
		s.file(repo("LICENSE"), LicencePath(s.Format), 0o644, "license"),
	}
	// The package's own directories, so that removing it removes them
	// (rpm removes only the directories a package owns).
	for _, d := range []string{DocDir, DocDir + "/examples"} {
		c = append(c, dir(d))
	}
	if s.Format == "rpm" {
		c = append(c, dir(filepath.Dir(rpmLicence)))
	}
	examples, err := filepath.Glob(repo(examplesGlob))
	if err != nil || len(examples) == 0 {
		return nil, fmt.Errorf("no example configs match %s", repo(examplesGlob))
	}
	for _, e := range examples {
		c = append(c, s.file(e, DocDir+"/examples/"+filepath.Base(e), 0o644, "doc"))
	}
	for _, f := range c {
		if f.Type == files.TypeDir {
			continue
		}
		if _, err := os.Stat(f.Source); err != nil {
			return nil, fmt.Errorf("package contents: %w", err)
		}
	}
	return c, nil
}

// file is one file of the package. typ marks an rpm's %doc and %license
// files; nfpm leaves files so marked out of a .deb, so it is dropped there.
func (s Spec) file(src, dst string, mode os.FileMode, typ string) *files.Content {
	if s.Format != "rpm" {
		typ = ""
	}
	return &files.Content{Source: src, Destination: dst, Type: typ, FileInfo: &files.ContentFileInfo{Mode: mode}}
}

func dir(path string) *files.Content {
	return &files.Content{Destination: path, Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o755}}
}

// gzipFile writes src gzipped to dst (no name or time in the header, so
// the same page makes the same bytes) and returns dst.
func gzipFile(src, dst string) (string, error) {
	in, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(in); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return dst, os.WriteFile(dst, buf.Bytes(), 0o644)
}
