package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// SARIF writes SARIF 2.1.0, as GitHub code scanning accepts it. baseDir
// makes artifact URIs relative (uriBaseId %SRCROOT%).
func SARIF(w io.Writer, r *Run, baseDir string) error {
	out := sarifRun{
		Invocations: []sarifInvocation{sarifInvocationOf(r.Unread, baseDir)},
		ColumnKind:  "utf16CodeUnits",
		Results:     []sarifResult{},
		Properties:  map[string]string{"pcpVersion": r.PCPVersion.String(), "pcpVersionReason": r.PCPVersionReason, "metadataSource": r.Source},
	}
	used := map[string]bool{}
	for _, f := range r.Files {
		loc := sarifLocationOf(f.File.Path, baseDir)
		for _, d := range f.Diagnostics {
			used[d.Code] = true
			out.Results = append(out.Results, sarifResultOf(f.File, d, loc))
		}
	}
	out.Tool.Driver = sarifDriver{
		Name:           r.Tool,
		InformationURI: "https://github.com/pcp-derive-lsp/pcp-derive-lsp",
		Version:        r.Version,
		Rules:          sarifRules(used, r.DocsURL),
	}
	doc := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs":    []sarifRun{out},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// sarifInvocationOf reports the inputs that could not be read: they
// make the run incomplete, and SARIF tells I/O errors as tool execution
// notifications.
func sarifInvocationOf(unread []Unread, baseDir string) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: len(unread) == 0}
	for _, u := range unread {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
			Level: "error", Message: sarifMessage{u.Message},
			Locations: []sarifLocation{{sarifPhysicalLocation{ArtifactLocation: sarifLocationOf(u.Path, baseDir)}}},
		})
	}
	return inv
}

// sarifLocationOf names a file: a path under baseDir is relative to
// %SRCROOT%; any other is an absolute file URI with no base.
func sarifLocationOf(path, baseDir string) sarifArtifactLocation {
	loc := sarifArtifactLocation{URI: filepath.ToSlash(path)}
	if abs, err := filepath.Abs(path); err == nil {
		if rel, err := filepath.Rel(baseDir, abs); err == nil && filepath.IsLocal(rel) {
			loc = sarifArtifactLocation{URI: filepath.ToSlash(rel), URIBaseID: "%SRCROOT%"}
		} else {
			loc.URI = "file://" + filepath.ToSlash(abs)
		}
	}
	return loc
}

// sarifResultOf is one finding. An empty range is widened to one
// column, which GitHub can show; the fingerprint hashes the code, the
// file and the text of the finding's line, so that it survives lines
// added above it.
func sarifResultOf(file *grammar.File, d grammar.Diagnostic, loc sarifArtifactLocation) sarifResult {
	end := d.Range.End
	if !d.Range.Start.Before(end) {
		end.Col16 = d.Range.Start.Col16 + 1
		end.Line = d.Range.Start.Line
	}
	sum := sha256.Sum256([]byte(d.Code + "\x00" + loc.URI + "\x00" + file.Line(int(d.Range.Start.Line))))
	return sarifResult{
		RuleID:  d.Code,
		Level:   sarifLevel(d.Severity),
		Message: sarifMessage{d.Message},
		Locations: []sarifLocation{{sarifPhysicalLocation{
			ArtifactLocation: loc,
			Region: &sarifRegion{StartLine: d.Range.Start.Line, StartColumn: d.Range.Start.Col16 + 1,
				EndLine: end.Line, EndColumn: end.Col16 + 1},
		}}},
		PartialFingerprints: map[string]string{"primaryLocationLineHash": hex.EncodeToString(sum[:8])},
		Fixes:               sarifFixes(d.Fixes, loc),
	}
}

// sarifFixes renders quick fixes as SARIF fixes (GitHub shows them as
// suggested changes).
func sarifFixes(fixes []grammar.Fix, loc sarifArtifactLocation) []sarifFix {
	var out []sarifFix
	for _, fx := range fixes {
		change := sarifArtifactChange{ArtifactLocation: loc}
		for _, e := range fx.Edits {
			change.Replacements = append(change.Replacements, sarifReplacement{DeletedRegion: sarifEditRegion(e.Range), InsertedContent: sarifMessage{e.NewText}})
		}
		out = append(out, sarifFix{Description: sarifMessage{fx.Title}, ArtifactChanges: []sarifArtifactChange{change}})
	}
	return out
}

// sarifEditRegion is the region an edit replaces; an inverted range is
// an insertion at its start.
func sarifEditRegion(rg grammar.Range) sarifRegion {
	end := rg.End
	if !rg.Start.Before(end) {
		end.Col16, end.Line = rg.Start.Col16, rg.Start.Line
	}
	return sarifRegion{StartLine: rg.Start.Line, StartColumn: rg.Start.Col16 + 1, EndLine: end.Line, EndColumn: end.Col16 + 1}
}

// sarifRules describes the codes the run used, in order, from the codes
// registry.
func sarifRules(used map[string]bool, docsURL string) []sarifRule {
	var ids []string
	for c := range used {
		ids = append(ids, c)
	}
	sort.Strings(ids)
	rules := []sarifRule{}
	for _, c := range ids {
		rl := sarifRule{ID: c, ShortDescription: sarifMessage{c}, DefaultConfiguration: sarifConfiguration{"warning"}}
		if in, ok := codes.Lookup(c); ok {
			rl.ShortDescription = sarifMessage{in.Summary}
			rl.FullDescription = &sarifMultiformat{Text: plainText(in.Behaviour), Markdown: in.Behaviour}
			rl.Help = &sarifMultiformat{Text: plainText(in.FixNote), Markdown: in.FixNote}
			rl.HelpURI = codes.DocURL(docsURL, c)
			rl.DefaultConfiguration = sarifConfiguration{sarifLevel(in.Severity)}
		}
		rules = append(rules, rl)
	}
	return rules
}

// plainText drops Markdown's code marks for SARIF's text fields.
func plainText(md string) string { return strings.ReplaceAll(md, "`", "") }

func sarifLevel(s grammar.Severity) string {
	switch s {
	case grammar.SeverityError:
		return "error"
	case grammar.SeverityWarning:
		return "warning"
	}
	return "note"
}
