package cli

import (
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
)

// htopShown words how pcp-htop shows an expression whose file says d,
// with the expression's descriptor desc, as its PCPDynamicMeter and
// PCPDynamicColumn code does: a meter prints each metric's value in its
// text, after its label and before its suffix (a meter's type is stored
// and never used); a column's format, width and instances (PCP 6.1.0 on,
// columnOptions) come before its units.
func htopShown(d htop.Display, desc pmapi.Desc, columnOptions bool) string {
	if d.Kind == htop.Meter {
		s := "pcp-htop shows it in the meter's text"
		if d.Label != "" {
			s += fmt.Sprintf(" after the label %q", d.Label)
		}
		if d.Suffix != "" {
			s += fmt.Sprintf(" with the suffix %q", d.Suffix)
		}
		return s
	}
	what := "the column"
	if d.Kind == htop.Screen {
		what = "the screen's column"
	}
	if !columnOptions {
		return fmt.Sprintf("pcp-htop shows it in %s as %s", what, htopPlain(desc.Type))
	}
	var how string
	switch {
	case d.Instances:
		how = "its instance names"
	case desc.Type == pmapi.TypeString:
		how = "text" + map[string]string{
			"command": " in the command colour", "process": " in the process colour",
			"device": " without a leading /dev/", "cgroup": " as a shortened cgroup name",
		}[d.Format]
	case d.Format == "percent":
		how = "a percentage"
	case d.Format == "process":
		how = "a process ID"
	case d.WidthSet:
		how = fmt.Sprintf("a plain number %d wide (two decimals when it has a fraction), without a unit", d.Width)
	default:
		how = htopByUnits(desc.Units)
	}
	return fmt.Sprintf("pcp-htop shows it in %s as %s", what, how)
}

// htopByUnits is how a column without a format or width shows a number:
// by its units, normalised to bytes and seconds.
func htopByUnits(u pmapi.Units) string {
	switch {
	case u.DimSpace != 0 && u.DimTime != 0:
		return "a rate of bytes per second with a K, M, G … suffix"
	case u.DimSpace != 0:
		return "bytes with a K, M, G … suffix"
	case u.DimCount != 0:
		return "a count, large ones with a K, M, G … suffix"
	case u.DimTime != 0:
		return "a time (hours:minutes:seconds)"
	}
	return "a plain number"
}

// htopPlain is how pcp-htop before 6.1.0 shows a column: by its type,
// in its width.
func htopPlain(t pmapi.Type) string {
	switch t {
	case pmapi.TypeString:
		return "text, left-aligned in its width"
	case pmapi.TypeFloat, pmapi.TypeDouble:
		return "a decimal number, right-aligned in its width"
	}
	return "a whole number, right-aligned in its width"
}
