package pmconfig

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// dstatDefaultWidth is a pcp-dstat plugin's width when it sets none.
const dstatDefaultWidth = 5

// DstatShown says how pcp-dstat shows the values of a column, def (a
// dstat.PLUGIN.KEY metric of the file, with descriptor desc), as its
// cprint does: the unit pmconfig converts to (KEY.unit, the plugin's unit,
// else the metric's own), a counter's rate per second, then time in
// seconds and space in bytes, printed by the plugin's printtype in its
// width, with a magnitude suffix (B k M G … in steps of 1024 for space,
// k M G … in steps of 1000 otherwise) only when the plugin sets no
// colorstep and the width has room for four digits. "" when def is not a
// column or its unit does not parse (check reports that).
func (d *Doc) DstatShown(def *grammar.Definition, desc pmapi.Desc) string {
	plugin, ok := d.columns[def]
	if !ok || d.Tool != Dstat {
		return ""
	}
	s := d.INI.Section(plugin)
	key := strings.TrimPrefix(def.Name, "dstat."+plugin+".")
	get := func(k string) (string, bool) {
		e := s.Get(k)
		if e == nil {
			return "", false
		}
		return strings.TrimSpace(e.Value.Text), true
	}
	units := desc.Units
	if u, ok := get(key + ".unit"); ok {
		units, ok = d.dstatUnits(u)
		if !ok {
			return ""
		}
	} else if u, ok := get("unit"); ok {
		units, ok = d.dstatUnits(u)
		if !ok {
			return ""
		}
	}
	printtype, set := get("printtype")
	if set && printtype != "" {
		printtype = printtype[:1]
	} else {
		printtype = dstatPrintType(desc.Type)
	}
	width := dstatDefaultWidth
	if w, ok := get("width"); ok {
		if n, ok := pyInt(w); ok {
			width = n
		}
	}
	_, colorstep := get("colorstep")
	return dstatShownText(units, desc.Sem == pmapi.SemCounter, printtype, width, colorstep)
}

// dstatUnits is pmParseUnitsStr of a unit string; false when it fails.
func (d *Doc) dstatUnits(s string) (pmapi.Units, bool) {
	u, _, err := d.parseUnits(s)
	return u, err == nil
}

// dstatPrintType is cprint's printtype for a plugin that sets none.
func dstatPrintType(t pmapi.Type) string {
	switch t {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64:
		return "d"
	case pmapi.TypeFloat, pmapi.TypeDouble:
		return "f"
	}
	return "s"
}

// dstatPrintTypes are what each printtype prints.
var dstatPrintTypes = map[string]string{
	"b": "whole numbers", "d": "whole numbers", "p": "whole numbers (a percentage: 100 and over in its own colour)",
	"f": "decimals", "s": "text", "t": "a time of day",
}

// dstatShownText words cprint's choices for one column.
func dstatShownText(u pmapi.Units, counter bool, printtype string, width int, colorstep bool) string {
	what, ok := dstatPrintTypes[printtype]
	if !ok {
		return fmt.Sprintf("printtype %q, which pcp-dstat does not know", printtype)
	}
	wide := fmt.Sprintf("%d characters wide (printtype %s)", width, printtype)
	if printtype == "s" || printtype == "t" {
		return what + ", " + wide
	}
	quantity, suffixes := dstatQuantity(u), "k M G T P E Z Y (steps of 1000)"
	if u.DimSpace != 0 {
		suffixes = "B k M G T P E Z Y (steps of 1024)"
	}
	if u.DimCount != 0 && u.ScaleCount != 0 {
		quantity += " multiplied by " + strconv.Itoa(int(u.ScaleCount)) + " (pcp-dstat multiplies by the count scale's exponent)"
	}
	if counter {
		quantity += " per second"
	}
	suffix := "no magnitude suffix (the plugin sets a colorstep: a value too wide is still divided to fit, unmarked)"
	if !colorstep {
		suffix = "a magnitude suffix " + suffixes
		if width < 4 {
			suffix = "no magnitude suffix (the width is under 4)"
		}
	}
	return fmt.Sprintf("%s as %s, %s, with %s", quantity, what, wide, suffix)
}

// dstatQuantity names what cprint's values of units u are in once it has
// scaled time to seconds and space to bytes: "bytes per second",
// "counts", "plain numbers".
func dstatQuantity(u pmapi.Units) string {
	var num, den []string
	for _, dim := range []struct {
		n           int8
		many, perOf string
	}{{u.DimSpace, "bytes", "byte"}, {u.DimTime, "seconds", "second"}, {u.DimCount, "counts", "count"}} {
		switch {
		case dim.n > 0:
			num = append(num, dim.many)
		case dim.n < 0:
			den = append(den, dim.perOf)
		}
	}
	if len(num) == 0 {
		num = []string{"plain numbers"}
	}
	q := strings.Join(num, " × ")
	for _, d := range den {
		q += " per " + d
	}
	return q
}
