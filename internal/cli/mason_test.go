package cli

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Mason registry entry (packaging/mason/package.yaml) is proposed to
// mason-org/mason-registry as written. TestMasonPackage holds it to the
// registry's JSON schema (mason-org/registry-schema: package.schema.json
// and the components and enums it refers to; the facts that apply to a
// github release source are restated here, so the test needs no network),
// and TestReleaseBuild's Mason subtest holds its asset names and binary
// paths to what scripts/release.sh wrote.

const masonPackage = "../../packaging/mason/package.yaml"

// masonEntry is the part of Mason's schema a github release package uses.
type masonEntry struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Homepage    string            `yaml:"homepage"`
	Licenses    []string          `yaml:"licenses"`
	Languages   []string          `yaml:"languages"`
	Categories  []string          `yaml:"categories"`
	Source      masonSource       `yaml:"source"`
	Bin         map[string]string `yaml:"bin"`
	Neovim      struct {
		LSPConfig string `yaml:"lspconfig"`
	} `yaml:"neovim"`
}

type masonSource struct {
	ID    string       `yaml:"id"`
	Asset []masonAsset `yaml:"asset"`
}

type masonAsset struct {
	Target string `yaml:"target"`
	File   string `yaml:"file"`
	Bin    string `yaml:"bin"`
}

// Facts of mason-org/registry-schema (schemas/package.schema.json,
// components/bin.json, components/sources/github/release.json,
// enums/category.json, enums/platform.json, enums/license.json).
var (
	masonTopKeys = []string{"name", "description", "homepage", "licenses", "languages", "categories",
		"deprecation", "source", "schemas", "bin", "share", "opt", "neovim", "ci_skip"}
	masonRequired   = []string{"name", "description", "homepage", "licenses", "languages", "categories", "source"}
	masonCategories = []string{"Compiler", "DAP", "Formatter", "LSP", "Linter", "Runtime"}
	masonPlatforms  = []string{"unix", "darwin", "darwin_arm64", "darwin_x64", "linux", "linux_arm",
		"linux_arm64", "linux_arm64_gnu", "linux_arm64_musl", "linux_arm64_openbsd", "linux_arm_gnu",
		"linux_armv6_gnu", "linux_armv6l", "linux_armv7_gnu", "linux_armv7l", "linux_x64", "linux_x64_gnu",
		"linux_x64_musl", "linux_x64_openbsd", "linux_x86", "linux_x86_gnu", "linux_x86_musl",
		"linux_x86_openbsd", "win", "win_arm", "win_arm64", "win_armv6l", "win_armv7l", "win_x64", "win_x86"}
	masonHomepage  = regexp.MustCompile(`^https?://`)
	masonGithubID  = regexp.MustCompile(`^pkg:github/.+/.+@.+`)
	masonBinName   = regexp.MustCompile(`^[a-zA-Z0-9_\-\.]+$`)
	masonLicenseRE = regexp.MustCompile(`^[a-zA-Z0-9-.:]+\+?(?: +(?:WITH|AND|OR) +[a-zA-Z0-9-.:]+\+?)*$`)
)

// masonGoPlatform is the Go platform (release.sh's OS/ARCH) of each Mason
// target the entry may name.
var masonGoPlatform = map[string]string{
	"darwin_x64": "darwin/amd64", "darwin_arm64": "darwin/arm64",
	"linux_x64": "linux/amd64", "linux_arm64": "linux/arm64",
	"win_x64": "windows/amd64", "win_arm64": "windows/arm64",
}

// readMasonEntry reads package.yaml, failing on a key the schema does
// not allow at the top level or the test does not know below it.
func readMasonEntry(t *testing.T) masonEntry {
	t.Helper()
	b, err := os.ReadFile(masonPackage)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := yaml.Unmarshal(b, &top); err != nil {
		t.Fatalf("%s: %v", masonPackage, err)
	}
	for k := range top {
		if !slices.Contains(masonTopKeys, k) {
			t.Errorf("%s: %q is not a property of Mason's package schema", masonPackage, k)
		}
	}
	for _, k := range masonRequired {
		if _, ok := top[k]; !ok {
			t.Errorf("%s: Mason's schema requires %q", masonPackage, k)
		}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	var e masonEntry
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("%s: %v", masonPackage, err)
	}
	return e
}

func TestMasonPackage(t *testing.T) {
	e := readMasonEntry(t)
	if e.Name != "pcp-derive-lsp" || e.Description == "" {
		t.Errorf("name %q, description %q: want pcp-derive-lsp and a description", e.Name, e.Description)
	}
	if !masonHomepage.MatchString(e.Homepage) {
		t.Errorf("homepage %q is not an http(s) URL", e.Homepage)
	}
	if len(e.Licenses) == 0 {
		t.Error("licenses: Mason wants at least one")
	}
	for _, l := range e.Licenses {
		if !masonLicenseRE.MatchString(l) {
			t.Errorf("licence %q is not an SPDX expression", l)
		}
	}
	if lic, _ := os.ReadFile("../../LICENSE"); !slices.Equal(e.Licenses, []string{"Apache-2.0"}) || !strings.Contains(string(lic), "Apache License\n                           Version 2.0") {
		t.Errorf("licenses %v do not name LICENSE's Apache-2.0", e.Licenses)
	}
	if len(e.Languages) == 0 {
		t.Error("languages: none")
	}
	for _, c := range e.Categories {
		if !slices.Contains(masonCategories, c) {
			t.Errorf("category %q is not one of Mason's %v", c, masonCategories)
		}
	}
	if !slices.Contains(e.Categories, "LSP") {
		t.Errorf("categories %v: the entry is a language server (LSP)", e.Categories)
	}
	if !masonGithubID.MatchString(e.Source.ID) || !strings.HasPrefix(e.Source.ID, "pkg:github/pcp-derive-lsp/pcp-derive-lsp@v") {
		t.Errorf("source.id %q is not a github release of pcp-derive-lsp/pcp-derive-lsp", e.Source.ID)
	}
	var targets []string
	for _, a := range e.Source.Asset {
		if !slices.Contains(masonPlatforms, a.Target) {
			t.Errorf("asset target %q is not a Mason platform", a.Target)
		}
		if a.File == "" || a.Bin == "" {
			t.Errorf("asset %s: file %q, bin %q: want both", a.Target, a.File, a.Bin)
		}
		targets = append(targets, a.Target)
	}
	for name, path := range e.Bin {
		if !masonBinName.MatchString(name) {
			t.Errorf("bin %q is not a name Mason links", name)
		}
		if path != "{{source.asset.bin}}" {
			t.Errorf("bin %s = %q, want {{source.asset.bin}} (each asset names its binary)", name, path)
		}
	}
	if _, ok := e.Bin["pcp-derive-lsp"]; !ok || len(e.Bin) != 1 {
		t.Errorf("bin %v: want pcp-derive-lsp only", e.Bin)
	}

	// Every platform release.sh builds by default has an asset, and no other.
	var want []string
	for _, p := range releaseTargets(t) {
		for m, g := range masonGoPlatform {
			if g == p {
				want = append(want, m)
			}
		}
	}
	slices.Sort(want)
	slices.Sort(targets)
	if !slices.Equal(targets, want) {
		t.Errorf("asset targets %v, want one per release platform %v", targets, want)
	}

	// The lspconfig name is the file Neovim's vim.lsp.enable finds.
	if _, err := os.Stat("../../editors/neovim/lsp/" + e.Neovim.LSPConfig + ".lua"); err != nil {
		t.Errorf("neovim.lspconfig %q: %v", e.Neovim.LSPConfig, err)
	}
}

// releaseTargets are the Go platforms scripts/release.sh builds by default.
func releaseTargets(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../scripts/release.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^targets="([^"]+)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatal(`scripts/release.sh has no targets="..." line`)
	}
	return strings.Fields(string(m[1]))
}

// masonRender expands the templates Mason's entry uses: the version with
// its "v" stripped, and the asset's own fields.
func masonRender(s, version string, a masonAsset) (string, error) {
	re := regexp.MustCompile(`\{\{\s*([^}]*?)\s*\}\}`)
	var bad error
	out := re.ReplaceAllStringFunc(s, func(m string) string {
		switch expr := re.FindStringSubmatch(m)[1]; expr {
		case `version | strip_prefix "v"`:
			return strings.TrimPrefix(version, "v")
		case "version":
			return version
		case "source.asset.file":
			return a.File
		case "source.asset.bin":
			return a.Bin
		default:
			bad = fmt.Errorf("template %q: the test knows no %q", s, expr)
			return m
		}
	})
	return out, bad
}

// testMasonAssets renders every asset for version and checks the names
// against release.sh's scheme, then finds this platform's in dist and
// its binary inside the archive.
func testMasonAssets(t *testing.T, dist, version string) {
	e := readMasonEntry(t)
	host := runtime.GOOS + "/" + runtime.GOARCH
	found := false
	for _, a := range e.Source.Asset {
		p := masonGoPlatform[a.Target]
		file, err := masonRender(a.File, "v"+version, a)
		if err != nil {
			t.Fatal(err)
		}
		bin, err := masonRender(a.Bin, "v"+version, a)
		if err != nil {
			t.Fatal(err)
		}
		goos, goarch, _ := strings.Cut(p, "/")
		dir := "pcp-derive-lsp-" + version + "-" + goos + "-" + goarch
		wantFile, wantBin := dir+".tar.gz", dir+"/pcp-derive-lsp"
		if goos == "windows" {
			wantFile, wantBin = dir+".zip", dir+"/pcp-derive-lsp.exe"
		}
		if file != wantFile || bin != wantBin {
			t.Errorf("%s: file %q, bin %q; release.sh writes %q holding %q", a.Target, file, bin, wantFile, wantBin)
		}
		if p != host {
			continue
		}
		found = true
		if !tarHolds(t, filepath.Join(dist, file), bin) {
			t.Errorf("%s: %s has no executable %s", a.Target, file, bin)
		}
	}
	if !found {
		t.Errorf("no asset for this platform, %s", host)
	}
}

// tarHolds says whether the .tar.gz at path holds an executable file name.
func tarHolds(t *testing.T, path, name string) bool {
	t.Helper()
	found := false
	eachTarGzEntry(t, path, func(h *tar.Header, _ io.Reader) {
		found = found || h.Name == name && h.Typeflag == tar.TypeReg && h.Mode&0o111 != 0
	})
	return found
}
