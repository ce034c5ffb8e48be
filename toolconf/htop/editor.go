package htop

// What the language server asks of the reader: the words pcp-htop knows
// in each kind of file, which it completes, and the section at a
// position. TestEditorWords holds the keys to the ones the reader
// accepts.

// MeterColors are the names htop's meter parser knows for X.color (the
// reader's own list).
var MeterColors = meterColors

// Keys are the keys a section of a file of kind k knows in the release
// of r: whole keys (caption, width, ...) and the attributes after "X."
// of a meter's metric or a screen's column (none for a column file).
func (r Rules) Keys(k Kind) (keys, attrs []string) {
	switch k {
	case Meter:
		return []string{"caption", "description", "type", "maximum"}, []string{"metric", "color", "label", "suffix"}
	case Column:
		keys = []string{"caption", "heading", "description", "width", "metric"}
		if r.ColumnOptions {
			keys = append(keys, "format", "instances", "default", "enabled")
		}
		return keys, nil
	}
	return []string{"heading", "caption", "sortKey", "sortDirection", "default", "enabled"},
		[]string{"metric", "heading", "caption", "description", "width", "format", "instances", "default"}
}

// SectionAt is the section file offset off is in: the one whose header
// is the last before it, nil before the first.
func (f *File) SectionAt(off int) *Section {
	var at *Section
	for _, s := range f.Sections {
		if s.HeadOff > off {
			break
		}
		at = s
	}
	return at
}
