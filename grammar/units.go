package grammar

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// unitsError returns pmParseUnitsStr's message for a units string libpcp
// rejects, or "". PCP 7.2 adds extra units (temperature and the like).
func unitsError(s string, v pcpver.Version) string {
	if _, _, err := ParseUnits(s, v); err != nil {
		return err.Error()
	}
	return ""
}

// ParseUnits parses a units string as release v's pmParseUnitsStr does.
func ParseUnits(s string, v pcpver.Version) (pmapi.Units, float64, error) {
	if v.Has(pcpver.ExtraUnits) {
		return pmapi.ParseUnitsExtra(s)
	}
	return pmapi.ParseUnits(s)
}

// needsExtraUnits reports a units string only PCP 7.2 accepts.
func needsExtraUnits(s string) bool {
	_, _, err6 := pmapi.ParseUnits(s)
	_, _, err7 := pmapi.ParseUnitsExtra(s)
	return err6 != nil && err7 == nil
}
