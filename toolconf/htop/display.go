package htop

import (
	"strconv"
	"strings"
)

// Display is what a file says about how pcp-htop shows one of its
// expressions: the keys of its meter metric, column or screen column
// (the last setting of each, as htop keeps it). describe words it with
// the expression's metadata.
type Display struct {
	Kind Kind
	// Label and Suffix are a meter metric's X.label and X.suffix.
	Label, Suffix string
	// Format, Width and Instances are a column's (or screen column's)
	// format, width and instances; WidthSet when the file sets a width
	// htop accepts (1 to its limit, negative: left-aligned).
	Format    string
	Width     int
	WidthSet  bool
	Instances bool
}

// DisplayOf is the Display of the registered expression named name;
// false when the file registers no such expression.
func (f *File) DisplayOf(name string) (Display, bool) {
	var ex *Expr
	for _, e := range f.Exprs {
		if e.Name == name && !e.Skip {
			ex = e
		}
	}
	if ex == nil {
		return Display{}, false
	}
	var sec *Section
	for _, s := range f.Sections {
		if s.Accepted && s.HeadOff <= ex.Off {
			sec = s
		}
	}
	if sec == nil {
		return Display{}, false
	}
	// X is the meter metric's or screen column's name; a column has none.
	x := ""
	if f.Kind != Column {
		key := string(f.Src[ex.KeyOff:ex.KeyEnd])
		x = strings.TrimSuffix(key, ".metric") + "."
	}
	d := Display{Kind: f.Kind}
	limit := 28
	if f.Rules.ColumnOptions {
		limit = 64
	}
	for _, e := range sec.Entries {
		key, ok := strings.CutPrefix(e.Key, x)
		if !ok || strings.Contains(key, ".") {
			continue
		}
		switch key {
		case "label":
			d.Label = e.Value
		case "suffix":
			d.Suffix = e.Value
		case "format":
			d.Format = e.Value
		case "instances":
			d.Instances = e.Value == "true" || e.Value == "True"
		case "width":
			n, err := strconv.Atoi(e.Value)
			d.Width, d.WidthSet = n, err == nil && n != 0 && n <= limit && n >= -limit
		}
	}
	return d, true
}
