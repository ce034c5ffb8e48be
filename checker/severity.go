package checker

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// severity is a finding code's default severity, as the registry of codes
// has it: the one place it is decided.
func severity(code string) grammar.Severity {
	if s, ok := severities[code]; ok {
		return s
	}
	// Unregistered (codes' tests forbid it): as the error it may be.
	return grammar.SeverityError
}

// severities is the registry's default severity of every code, read once
// (codes.Lookup scans the registry) and never changed.
var severities = func() map[string]grammar.Severity {
	out := map[string]grammar.Severity{}
	for _, in := range codes.All() {
		switch in.Severity {
		case codes.SevError:
			out[in.Code] = grammar.SeverityError
		case codes.SevWarning:
			out[in.Code] = grammar.SeverityWarning
		case codes.SevInfo:
			out[in.Code] = grammar.SeverityInfo
		case codes.SevHint:
			out[in.Code] = grammar.SeverityHint
		}
	}
	return out
}()
