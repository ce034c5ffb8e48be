package htop

// The words pcp-htop knows in each kind of file: the reader checks keys
// and colours against them, and the language server completes them.

// MeterColors are the names htop's meter parser knows for X.color.
var MeterColors = []string{"gray", "darkgray", "red", "green", "blue", "cyan", "magenta", "yellow", "white"}

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
