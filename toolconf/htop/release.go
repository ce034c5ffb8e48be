package htop

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"

// Rules is how one PCP release's pcp-htop (the htop it vendors) reads its
// config files. Each field is one change, dated from the vendored
// pcp/PCPDynamic*.c at each PCP tag (docs/htop.md).
type Rules struct {
	Version pcpver.Version
	// Meters, Columns, Screens: the release reads that kind of file
	// (5.3.2, 5.3.3, 6.1.0).
	Meters, Columns, Screens bool
	// SplitFirst: a line is split at its first "=" (7.1.1); before, at
	// every "=", and the value is the text up to the second one.
	SplitFirst bool
	// ColumnReset: a rejected column header ends the column before it
	// (7.1.1); before, the skipped section's keys go on setting the
	// previous column of the file.
	ColumnReset bool
	// ColumnOptions: columns know format, instances and default/enabled
	// (6.1.0), and a column's width may reach 64 instead of 28.
	ColumnOptions bool
	// ScreenNameCheck: a screen column whose "SCREEN:COLUMN" does not fit
	// htop's 32-byte name is dropped (7.0.0); before, pcp-htop crashes
	// (a NULL column is dereferenced).
	ScreenNameCheck bool
	// NovalueOption: pcp-htop sets PCP_DERIVED_OPTION_NOVALUE before it
	// registers anything (7.1.1), so an unknown operand of its
	// expressions becomes novalue() instead of failing the metric: the
	// analysis of its expressions must check them that way.
	NovalueOption bool
}

// RulesFor returns the rules of release v.
func RulesFor(v pcpver.Version) Rules {
	return Rules{
		Version:         v,
		Meters:          v.AtLeast(pcpver.Version{Major: 5, Minor: 3, Patch: 2}),
		Columns:         v.AtLeast(pcpver.Version{Major: 5, Minor: 3, Patch: 3}),
		Screens:         v.AtLeast(pcpver.Version{Major: 6, Minor: 1, Patch: 0}),
		SplitFirst:      v.AtLeast(pcpver.Version{Major: 7, Minor: 1, Patch: 1}),
		ColumnReset:     v.AtLeast(pcpver.Version{Major: 7, Minor: 1, Patch: 1}),
		ColumnOptions:   v.AtLeast(pcpver.Version{Major: 6, Minor: 1, Patch: 0}),
		ScreenNameCheck: v.AtLeast(pcpver.Version{Major: 7, Minor: 0, Patch: 0}),
		NovalueOption:   v.AtLeast(pcpver.Version{Major: 7, Minor: 1, Patch: 1}),
	}
}

// Reads reports whether the release reads files of kind k at all.
func (r Rules) Reads(k Kind) bool {
	switch k {
	case Meter:
		return r.Meters
	case Column:
		return r.Columns
	case Screen:
		return r.Screens
	}
	return false
}

// maxColumnWidth is DYNAMIC_MAX_COLUMN_WIDTH: a wider (or zero) width
// falls back to the default, -5.
func (r Rules) maxColumnWidth() int {
	if r.ColumnOptions {
		return 64
	}
	return 28
}
