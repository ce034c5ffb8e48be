// Package codes is the registry of finding codes: every code a finding
// can carry, with a one-line summary. Outputs (SARIF rules), suppression
// comments and the server read it from here, so a code is spelt, and
// described, in one place.
package codes

import "sort"

// Info describes one finding code.
type Info struct {
	Code    string
	Summary string
}

// registry lists every code. Keep it sorted by kind: config-file layer,
// libpcp's verdicts, advice.
var registry = []Info{
	// The config file as libpcp reads it.
	{"binary-file", "the file is not text"},
	{"too-large", "the file is larger than the size limit"},
	{"nul-byte", "a NUL byte ends the line early for libpcp"},
	{"invalid-utf8", "the line is not valid UTF-8"},
	{"no-final-newline", "the last line has no newline, so libpcp never reads it"},
	{"control", "a #control line is malformed"},
	{"missing-equals", "the line has no \"=\""},
	{"missing-name", "the derived metric name is missing"},
	{"illegal-name", "the derived metric name is not a valid PCP metric name"},
	{"missing-expr", "the expression is missing"},
	{"missing-lparen", "an attribute line lacks \"(\""},
	{"missing-rparen", "an attribute line lacks \")\""},
	{"duplicate-name", "a derived metric of this name is already defined"},
	{"attr-missing-name", "an attribute line has no attribute name"},
	{"attr-missing-value", "an attribute line has no value"},
	{"attr-unterminated", "a quoted attribute value never ends"},
	{"attr-extra-text", "text after a quoted attribute value is ignored"},
	{"attr-undefined-metric", "an attribute names a derived metric not defined before it"},
	{"attr-invalid", "an attribute is unknown or set twice"},
	// libpcp's verdicts.
	{"syntax", "libpcp rejects the expression's syntax"},
	{"dialect", "the construct needs a newer PCP than the target release"},
	{"semantic", "libpcp rejects the metric when it binds it"},
	{"unknown-metric", "an operand names a metric the metadata source does not know"},
	{"pmda-missing", "an operand belongs to a PCP PMDA that is not installed where the metadata came from"},
	{"masked", "a real metric of the same name hides the derived metric"},
	{"no-value", "the derived metric is registered but never has a value"},
	// Advice: what libpcp accepts but does not do as meant.
	{"filter-on-singular", "an instance filter on a metric without instances never has a value"},
	{"unknown-instance", "an instance filter names an instance the metric does not have now"},
	{"quoted-instance", "an instance filter is written with quotes, which libpcp keeps as part of the name"},
	{"pattern-matches-nothing", "a matchinst() pattern matches none of the current instances"},
	{"pattern-unchecked", "a matchinst() pattern uses POSIX features that cannot be checked here"},
	{"rate-of-instant", "rate() of an instantaneous or discrete value"},
	{"nested-derived", "an operand is itself a derived metric"},
	{"wrong-value", "libpcp computes a value other than the expression suggests"},
	{"libpcp-crash", "the target release of libpcp crashes on this expression"},
	// Our own.
	{"suppression", "a \"# pcp-derive-lsp:\" comment is malformed or names an unknown code"},
	{"internal", "pcp-derive-lsp could not analyse the definition"},
	{"host-unreachable", "a host of a fleet check could not be checked: down, too slow or refusing"},
}

// Lookup returns the registry entry for code.
func Lookup(code string) (Info, bool) {
	for _, in := range registry {
		if in.Code == code {
			return in, true
		}
	}
	return Info{}, false
}

// All returns every code's entry, sorted by code.
func All() []Info {
	out := append([]Info(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Closest returns the registered code nearest to a misspelt one (at most
// a third of its letters different), or "" when none is close.
func Closest(code string) string {
	best, bestDist := "", len(code)/3+1
	for _, in := range All() {
		if d := distance(code, in.Code); d < bestDist {
			best, bestDist = in.Code, d
		}
	}
	return best
}

// distance is the Levenshtein distance of two short strings.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
