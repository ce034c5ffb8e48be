package grammar

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"

// unitsError returns pmParseUnitsStr's message for a units string libpcp
// rejects, or "". (PCP 7.2's extra units, temperature and the like, are
// not parsed yet: both dialects use the 6.0 units grammar.)
func unitsError(s string, d Dialect) string {
	if _, _, err := pmapi.ParseUnits(s); err != nil {
		return err.Error()
	}
	return ""
}
