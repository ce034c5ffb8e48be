// Package rules holds a project's choices about findings: codes turned
// off and severities changed, from a project file found upward from the
// checked paths (like golangci-lint's and pint's) and from the command
// line. Every code named must be in the registry (package codes): a
// misspelt one is an error, never a silent no-op.
package rules

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/safeopen"
)

// FileName is the project file Find looks for.
const FileName = ".pcp-derive-lsp.yaml"

// maxFileSize bounds the project file read: it is a few lines. The YAML
// parser costs about 70 bytes a byte of a file of many short codes, so
// this cap keeps a hostile one within 20 times its size + 40 MB.
const maxFileSize = 256 << 10

// Rules says which codes are off and which have another severity.
type Rules struct {
	// Source is where the rules came from ("" for none), for messages.
	Source   string
	disabled map[string]bool
	severity map[string]grammar.Severity
}

// file is the project file's layout.
type file struct {
	Disable  []string          `yaml:"disable"`
	Enable   []string          `yaml:"enable"`
	Severity map[string]string `yaml:"severity"`
}

// Find returns the project file in dir or the nearest directory above
// it, or "" when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, FileName)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load reads a project file. Errors name the file and the line.
func Load(path string) (Rules, error) {
	src, err := safeopen.ReadFile(path, maxFileSize)
	if err != nil {
		return Rules{}, err
	}
	return Parse(path, src)
}

// Parse reads a project file's text; path names it in errors.
func Parse(path string, src []byte) (Rules, error) {
	r := Rules{Source: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	// One parse: the layout is decoded from the tree the lines come from.
	var f file
	if len(doc.Content) > 0 {
		top := doc.Content[0]
		if err := knownFields(top); err != nil {
			return r, fmt.Errorf("%s: %w", path, err)
		}
		if err := top.Decode(&f); err != nil {
			return r, fmt.Errorf("%s: %w", path, err)
		}
	}
	lines := scalarLines(&doc)
	var errs []error
	unlisted := 0
	fail := func(err error) {
		if len(errs) < maxListedErrors {
			errs = append(errs, err)
		} else {
			unlisted++
		}
	}
	check := func(code string) bool {
		if _, ok := codes.Lookup(code); ok {
			return true
		}
		if len(errs) < maxListedErrors {
			fail(fmt.Errorf("%s:%d: %s", path, lines[code], unknownCode(code)))
		} else {
			unlisted++ // not even a suggestion looked up for it
		}
		return false
	}
	for _, c := range f.Disable {
		if check(c) {
			r.Disable(c)
		}
	}
	for _, c := range f.Enable {
		if check(c) {
			r.Enable(c)
		}
	}
	for _, c := range sortedKeys(f.Severity) {
		if !check(c) {
			continue
		}
		if err := r.SetSeverity(c, f.Severity[c]); err != nil {
			fail(fmt.Errorf("%s:%d: %v", path, lines[f.Severity[c]], err))
		}
	}
	if unlisted > 0 {
		errs = append(errs, fmt.Errorf("%s: %d more unknown finding codes or bad severities are not listed", path, unlisted))
	}
	return r, errors.Join(errs...)
}

// knownFields refuses a key of the project file's mapping that file does
// not have, as yaml's KnownFields does when it decodes from text.
func knownFields(top *yaml.Node) error {
	if top.Kind != yaml.MappingNode {
		return nil // Decode says what is wrong with it
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch k := top.Content[i]; k.Value {
		case "disable", "enable", "severity":
		default:
			return fmt.Errorf("yaml: unmarshal errors:\n  line %d: field %s not found in type rules.file", k.Line, k.Value)
		}
	}
	return nil
}

// maxListedErrors bounds the errors a project file's check lists: a file
// of 140,000 misspelt codes is one mistake, not 140,000 lines to read.
const maxListedErrors = 100

// scalarLines maps each scalar value of a YAML tree to the line of its
// first occurrence, in one walk (a walk per value was quadratic).
func scalarLines(root *yaml.Node) map[string]int {
	lines := map[string]int{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode {
			if _, ok := lines[n.Value]; !ok {
				lines[n.Value] = n.Line
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return lines
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func unknownCode(code string) string {
	msg := fmt.Sprintf("unknown finding code %q", code)
	if alt := codes.Closest(code); alt != "" {
		msg += fmt.Sprintf("; did you mean %s?", alt)
	}
	return msg
}

// Disable turns a code off.
func (r *Rules) Disable(code string) {
	if r.disabled == nil {
		r.disabled = map[string]bool{}
	}
	r.disabled[code] = true
}

// Enable turns a code back on (the command line over the project file).
func (r *Rules) Enable(code string) { delete(r.disabled, code) }

// SetSeverity gives a code another severity: error, warning, info or hint.
func (r *Rules) SetSeverity(code, level string) error {
	sev, ok := codes.ParseSeverity(level)
	if !ok {
		return fmt.Errorf("severity %q for %s: want error, warning, info or hint", level, code)
	}
	if r.severity == nil {
		r.severity = map[string]grammar.Severity{}
	}
	r.severity[code] = sev
	return nil
}

// Flags applies command-line settings over r: disable and enable lists
// (comma-separated codes) and CODE=LEVEL severities.
func (r *Rules) Flags(disable, enable, severity []string) error {
	var errs []error
	eachCode := func(flag string, lists []string, apply func(string)) {
		for _, list := range lists {
			for _, c := range splitCodes(list) {
				if _, ok := codes.Lookup(c); !ok {
					errs = append(errs, fmt.Errorf("--%s: %s", flag, unknownCode(c)))
					continue
				}
				apply(c)
			}
		}
	}
	eachCode("disable", disable, r.Disable)
	eachCode("enable", enable, r.Enable)
	for _, s := range severity {
		code, level, ok := strings.Cut(s, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("--severity %q: want CODE=LEVEL", s))
			continue
		}
		if _, ok := codes.Lookup(code); !ok {
			errs = append(errs, fmt.Errorf("--severity: %s", unknownCode(code)))
			continue
		}
		if err := r.SetSeverity(code, level); err != nil {
			errs = append(errs, fmt.Errorf("--severity: %v", err))
		}
	}
	return errors.Join(errs...)
}

func splitCodes(list string) []string {
	return strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' })
}

// Neutral reports whether the rules change no finding: no code turned
// off, no severity changed (Apply returns its findings as they are).
func (r Rules) Neutral() bool { return len(r.disabled) == 0 && len(r.severity) == 0 }

// Apply drops disabled findings and changes severities. It returns a new
// slice (diags itself when the rules are Neutral); diags is not modified.
func (r Rules) Apply(diags []grammar.Diagnostic) []grammar.Diagnostic {
	if r.Neutral() {
		return diags
	}
	out := make([]grammar.Diagnostic, 0, len(diags))
	for _, d := range diags {
		if r.disabled[d.Code] {
			continue
		}
		if sev, ok := r.severity[d.Code]; ok {
			d.Severity = sev
		}
		out = append(out, d)
	}
	return out
}
