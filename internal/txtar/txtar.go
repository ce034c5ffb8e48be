// Package txtar reads and rewrites the txtar archives the tests keep their
// cases in (LSP marker tests, check cases, eval scripts): a comment, then sections
// that each start with a line "-- NAME --". It is the format of
// golang.org/x/tools/txtar, without the dependency.
package txtar

import (
	"fmt"
	"os"
	"strings"
)

// Archive is a parsed archive: its comment and its sections in order.
type Archive struct {
	Comment string
	Files   []File
}

// File is one section.
type File struct {
	Name string
	Data string
}

// Parse reads an archive's text.
func Parse(text string) *Archive {
	a := &Archive{}
	cur := &a.Comment
	for _, l := range strings.SplitAfter(text, "\n") {
		if name, ok := sectionName(l); ok {
			a.Files = append(a.Files, File{Name: name})
			cur = &a.Files[len(a.Files)-1].Data
			continue
		}
		*cur += l
	}
	return a
}

// ReadFile reads and parses an archive file.
func ReadFile(path string) (*Archive, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(b)), nil
}

func sectionName(line string) (string, bool) {
	l := strings.TrimSpace(line)
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(l, " --") || len(l) < len("-- x --") {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimPrefix(l, "-- "), " --"), true
}

// Map returns the sections by name (a later section of the same name
// wins).
func (a *Archive) Map() map[string]string {
	m := make(map[string]string, len(a.Files))
	for _, f := range a.Files {
		m[f.Name] = f.Data
	}
	return m
}

// Names lists the sections in order.
func (a *Archive) Names() []string {
	out := make([]string, len(a.Files))
	for i, f := range a.Files {
		out[i] = f.Name
	}
	return out
}

// Format writes the archive back as text.
func (a *Archive) Format() string {
	var b strings.Builder
	b.WriteString(a.Comment)
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n", f.Name)
		b.WriteString(f.Data)
		if f.Data != "" && !strings.HasSuffix(f.Data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// ReplaceLast makes the named section the archive's last one with data:
// how -update rewrites a golden section, which goes at the end.
func ReplaceLast(path, name, data string) error {
	a, err := ReadFile(path)
	if err != nil {
		return err
	}
	kept := a.Files[:0]
	for _, f := range a.Files {
		if f.Name != name {
			kept = append(kept, f)
		}
	}
	a.Files = append(kept, File{Name: name, Data: data})
	return os.WriteFile(path, []byte(a.Format()), 0o644)
}
