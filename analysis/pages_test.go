package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
)

// pagesDir holds a page per code, generated from the registry.
var pagesDir = filepath.Join("..", "docs", "codes")

// TestCodePages: docs/codes/CODE.md for every registered code, and the
// index README.md, are what the registry says, with the example's
// findings as check prints them (this package runs the analysis; report
// renders it); no page is left for a code the registry no longer has.
// go test ./analysis -run TestCodePages -update rewrites them.
func TestCodePages(t *testing.T) {
	cfg := embeddedConfig(t)
	want := map[string]string{"README.md": codes.IndexMarkdown()}
	for _, in := range codes.All() {
		reported := ""
		if in.Example != "" {
			reported = exampleReport(t, cfg, in)
		}
		want[in.Code+".md"] = in.Markdown(reported)
	}
	if golden.Update() {
		os.MkdirAll(pagesDir, 0o755)
		old, _ := filepath.Glob(filepath.Join(pagesDir, "*.md"))
		for _, p := range old {
			if _, ok := want[filepath.Base(p)]; !ok {
				os.Remove(p)
			}
		}
		for name, text := range want {
			if err := os.WriteFile(filepath.Join(pagesDir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, text := range want {
		got, err := os.ReadFile(filepath.Join(pagesDir, name))
		if err != nil {
			t.Errorf("%v (go test ./analysis -run TestCodePages -update writes it)", err)
			continue
		}
		if string(got) != text {
			t.Errorf("docs/codes/%s is not what the registry says (edit codes/codes.go, then go test ./analysis -run TestCodePages -update)", name)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(pagesDir, "*.md"))
	for _, p := range pages {
		if _, ok := want[filepath.Base(p)]; !ok {
			t.Errorf("docs/codes/%s documents no registered code", filepath.Base(p))
		}
	}
}

// exampleReport is check's text output for a code's example.
func exampleReport(t *testing.T, cfg Config, in codes.Info) string {
	t.Helper()
	cfg.Version = VersionChoice{Version: pcpver.Latest}
	if in.Release != "" {
		v, err := pcpver.Parse(in.Release)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Version.Version = v
	}
	res := Run(context.Background(), []Input{Buffer(examplePath(in.Code), []byte(in.Example))}, cfg, Options{})
	run := &report.Run{}
	for _, f := range res.Files {
		var shown []grammar.Diagnostic
		for _, d := range f.Findings.Slice() {
			if d.Severity != grammar.SeverityHint {
				shown = append(shown, d)
			}
		}
		run.Files = append(run.Files, report.File{File: f.File, Diagnostics: shown})
	}
	var b strings.Builder
	if err := report.Text(&b, run); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
