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
	type region struct {
		StartLine   int32 `json:"startLine"`
		StartColumn int32 `json:"startColumn"`
		EndLine     int32 `json:"endLine"`
		EndColumn   int32 `json:"endColumn"`
	}
	type artifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	type physicalLocation struct {
		ArtifactLocation artifactLocation `json:"artifactLocation"`
		Region           *region          `json:"region,omitempty"` // none for a whole file

	}
	type location struct {
		PhysicalLocation physicalLocation `json:"physicalLocation"`
	}
	type message struct {
		Text string `json:"text"`
	}
	type replacement struct {
		DeletedRegion   region  `json:"deletedRegion"`
		InsertedContent message `json:"insertedContent"`
	}
	type artifactChange struct {
		ArtifactLocation artifactLocation `json:"artifactLocation"`
		Replacements     []replacement    `json:"replacements"`
	}
	type fix struct {
		Description     message          `json:"description"`
		ArtifactChanges []artifactChange `json:"artifactChanges"`
	}
	type result struct {
		RuleID              string            `json:"ruleId"`
		Level               string            `json:"level"`
		Message             message           `json:"message"`
		Locations           []location        `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Fixes               []fix             `json:"fixes,omitempty"`
	}
	type configuration struct {
		Level string `json:"level"`
	}
	type multiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	type rule struct {
		ID                   string        `json:"id"`
		ShortDescription     message       `json:"shortDescription"`
		FullDescription      *multiformat  `json:"fullDescription,omitempty"`
		Help                 *multiformat  `json:"help,omitempty"`
		HelpURI              string        `json:"helpUri,omitempty"`
		DefaultConfiguration configuration `json:"defaultConfiguration"`
	}
	type notification struct {
		Level     string     `json:"level"`
		Message   message    `json:"message"`
		Locations []location `json:"locations,omitempty"`
	}
	type invocation struct {
		ExecutionSuccessful        bool           `json:"executionSuccessful"`
		ToolExecutionNotifications []notification `json:"toolExecutionNotifications,omitempty"`
	}
	type driver struct {
		Name           string `json:"name"`
		InformationURI string `json:"informationUri"`
		Version        string `json:"version"`
		Rules          []rule `json:"rules"`
	}
	type run struct {
		Tool struct {
			Driver driver `json:"driver"`
		} `json:"tool"`
		Invocations []invocation      `json:"invocations"`
		ColumnKind  string            `json:"columnKind"`
		Results     []result          `json:"results"`
		Properties  map[string]string `json:"properties"`
	}
	// fixesOf renders quick fixes as SARIF fixes (GitHub shows them as
	// suggested changes).
	fixesOf := func(fixes []grammar.Fix, loc artifactLocation, regionOf func(grammar.Range) region) []fix {
		var out []fix
		for _, fx := range fixes {
			change := artifactChange{ArtifactLocation: loc}
			for _, e := range fx.Edits {
				change.Replacements = append(change.Replacements, replacement{DeletedRegion: regionOf(e.Range), InsertedContent: message{e.NewText}})
			}
			out = append(out, fix{Description: message{fx.Title}, ArtifactChanges: []artifactChange{change}})
		}
		return out
	}
	var out run
	out.Tool.Driver = driver{Name: r.Tool, InformationURI: "https://github.com/pcp-derive-lsp/pcp-derive-lsp", Version: r.Version}
	out.ColumnKind = "utf16CodeUnits"
	out.Results = []result{}
	out.Properties = map[string]string{"pcpVersion": r.PCPVersion.String(), "pcpVersionReason": r.PCPVersionReason, "metadataSource": r.Source}
	// A path under baseDir is relative to %SRCROOT%; any other is an
	// absolute file URI with no base.
	locationOf := func(path string) artifactLocation {
		loc := artifactLocation{URI: filepath.ToSlash(path)}
		if abs, err := filepath.Abs(path); err == nil {
			if rel, err := filepath.Rel(baseDir, abs); err == nil && filepath.IsLocal(rel) {
				loc = artifactLocation{URI: filepath.ToSlash(rel), URIBaseID: "%SRCROOT%"}
			} else {
				loc.URI = "file://" + filepath.ToSlash(abs)
			}
		}
		return loc
	}
	// The inputs that could not be read make the run incomplete:
	// tool execution notifications, as SARIF has for I/O errors.
	inv := invocation{ExecutionSuccessful: len(r.Unread) == 0}
	for _, u := range r.Unread {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, notification{
			Level: "error", Message: message{u.Message},
			Locations: []location{{physicalLocation{ArtifactLocation: locationOf(u.Path)}}},
		})
	}
	out.Invocations = []invocation{inv}
	used := map[string]bool{}
	for _, f := range r.Files {
		loc := locationOf(f.File.Path)
		uri := loc.URI
		regionOf := func(rg grammar.Range) region {
			end := rg.End
			if !rg.Start.Before(end) {
				end.Col16, end.Line = rg.Start.Col16, rg.Start.Line
			}
			return region{StartLine: rg.Start.Line, StartColumn: rg.Start.Col16 + 1, EndLine: end.Line, EndColumn: end.Col16 + 1}
		}
		for _, d := range f.Diagnostics {
			used[d.Code] = true
			end := d.Range.End
			if !d.Range.Start.Before(end) {
				end.Col16 = d.Range.Start.Col16 + 1
				end.Line = d.Range.Start.Line
			}
			sum := sha256.Sum256([]byte(d.Code + "\x00" + uri + "\x00" + f.File.Line(int(d.Range.Start.Line))))
			out.Results = append(out.Results, result{
				RuleID:  d.Code,
				Level:   sarifLevel(d.Severity),
				Message: message{d.Message},
				Locations: []location{{physicalLocation{
					ArtifactLocation: loc,
					Region: &region{StartLine: d.Range.Start.Line, StartColumn: d.Range.Start.Col16 + 1,
						EndLine: end.Line, EndColumn: end.Col16 + 1},
				}}},
				PartialFingerprints: map[string]string{"primaryLocationLineHash": hex.EncodeToString(sum[:8])},
				Fixes:               fixesOf(d.Fixes, loc, regionOf),
			})
		}
	}
	var ids []string
	for c := range used {
		ids = append(ids, c)
	}
	sort.Strings(ids)
	out.Tool.Driver.Rules = []rule{}
	for _, c := range ids {
		rl := rule{ID: c, ShortDescription: message{c}, DefaultConfiguration: configuration{"warning"}}
		if in, ok := codes.Lookup(c); ok {
			rl.ShortDescription = message{in.Summary}
			rl.FullDescription = &multiformat{Text: plainText(in.Behaviour), Markdown: in.Behaviour}
			rl.Help = &multiformat{Text: plainText(in.FixNote), Markdown: in.FixNote}
			rl.HelpURI = codes.DocURL(r.DocsURL, c)
			rl.DefaultConfiguration = configuration{sarifLevel(in.Severity)}
		}
		out.Tool.Driver.Rules = append(out.Tool.Driver.Rules, rl)
	}
	doc := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs":    []run{out},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
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
