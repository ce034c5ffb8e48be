// Package codes is the registry of finding codes: every code a finding
// can carry, with its default severity, a one-line summary, the libpcp
// behaviour behind it, an example config that gets it and the same config
// fixed. Outputs (SARIF rules, the server's links), suppression comments,
// project rules and the documentation (docs/codes/, generated from here)
// read it, so a code is spelt, and described, in one place.
package codes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/editdist"
)

// Severity is how serious a finding is: the one severity of the module
// (a finding's, grammar.Severity, is this type; the registry's default,
// the project's rules and the flags all speak it). The numbers are LSP's
// DiagnosticSeverity: the server passes one as it is.
type Severity int

// Severities, most severe first.
const (
	SevError   Severity = 1
	SevWarning Severity = 2
	SevInfo    Severity = 3
	SevHint    Severity = 4
)

// severityNames are the severities as users spell them in rules and
// flags, and as outputs print them.
var severityNames = [...]string{SevError: "error", SevWarning: "warning", SevInfo: "info", SevHint: "hint"}

func (s Severity) String() string {
	if s >= SevError && s <= SevHint {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads a severity as users spell it: error, warning, info
// or hint.
func ParseSeverity(name string) (Severity, bool) {
	for s := SevError; s <= SevHint; s++ {
		if severityNames[s] == name {
			return s, true
		}
	}
	return 0, false
}

// Kind groups codes by who decides the finding.
type Kind string

// Kinds, in the order the documentation lists them.
const (
	// File: how libpcp reads the config file (pmLoadDerivedConfig).
	File Kind = "The config file as libpcp reads it"
	// Verdict: libpcp's own verdicts, parsing and binding.
	Verdict Kind = "libpcp's verdicts"
	// Advice: what libpcp accepts but does not do as meant.
	Advice Kind = "Advice: accepted by libpcp, not doing what it says"
	// Tools: the INI files of pmrep and pcp-dstat (pmconfig) and
	// pcp-htop's meters, columns and screens (toolconf/htop), whose
	// formulas are checked like any definition.
	Tools Kind = "pmrep, pcp-dstat and pcp-htop files"
	// Ours: about pcp-derive-lsp itself.
	Ours Kind = "pcp-derive-lsp's own"
)

// Kinds lists the kinds in documentation order.
var Kinds = []Kind{File, Verdict, Advice, Tools, Ours}

// Info describes one finding code.
type Info struct {
	Code string
	Kind Kind
	// Severity is the severity findings of this code have unless the
	// project's rules change it; SeverityNote says when one has another.
	Severity     Severity
	SeverityNote string
	// Summary is one line: what the finding says.
	Summary string
	// Behaviour is what libpcp does that makes this a finding (Markdown).
	Behaviour string
	// Example is a config that gets the finding when checked for Release
	// ("" for the latest) against the embedded metadata; it may hold
	// bytes an editor would not show (the documentation escapes them).
	Example, Release string
	// Fix is Example corrected, and FixNote how, in words (Markdown).
	Fix, FixNote string
	// NoExample says why the code has no example config.
	NoExample string
}

// DefaultDocsURL is where the code pages (docs/codes/CODE.md) are
// published: the project repository's docs.
const DefaultDocsURL = "https://github.com/pcp-derive-lsp/pcp-derive-lsp/blob/main/docs/codes/"

// DocURL is the address of a code's page under base (DefaultDocsURL when
// empty).
func DocURL(base, code string) string {
	if base == "" {
		base = DefaultDocsURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + code + ".md"
}

// The codes, one constant each, in the registry's order: emitters name a
// code by its constant (TestEveryEmittedCodeRegistered refuses a literal),
// so a misspelt code does not compile.
const (
	BinaryFile            = "binary-file"             // the file is not text
	TooLarge              = "too-large"               // the file is larger than the size limit
	NULByte               = "nul-byte"                // a NUL byte ends the line early for libpcp
	InvalidUTF8           = "invalid-utf8"            // the line is not valid UTF-8
	NoFinalNewline        = "no-final-newline"        // the last line has no newline, so libpcp never reads it
	Control               = "control"                 // a #control line is malformed
	MissingEquals         = "missing-equals"          // the line has no "="
	MissingName           = "missing-name"            // the derived metric name is missing
	IllegalName           = "illegal-name"            // the derived metric name is not a valid PCP metric name
	MissingExpr           = "missing-expr"            // the expression is missing
	MissingLParen         = "missing-lparen"          // an attribute line lacks "("
	MissingRParen         = "missing-rparen"          // an attribute line lacks ")"
	DuplicateName         = "duplicate-name"          // a derived metric of this name is already defined
	AttrMissingName       = "attr-missing-name"       // an attribute line has no attribute name
	AttrMissingValue      = "attr-missing-value"      // an attribute line has no value
	AttrUnterminated      = "attr-unterminated"       // a quoted attribute value never ends
	AttrExtraText         = "attr-extra-text"         // text after a quoted attribute value is ignored
	AttrUndefinedMetric   = "attr-undefined-metric"   // an attribute names a derived metric not defined before it
	AttrInvalid           = "attr-invalid"            // an attribute is unknown or set twice
	Syntax                = "syntax"                  // libpcp rejects the expression's syntax
	Dialect               = "dialect"                 // the construct needs a newer PCP than the target release
	Semantic              = "semantic"                // libpcp rejects the metric when it binds it
	UnknownMetric         = "unknown-metric"          // an operand names a metric the metadata source does not know
	PMDAMissing           = "pmda-missing"            // an operand belongs to a PCP PMDA that is not installed where the metadata came from
	Masked                = "masked"                  // a real metric of the same name hides the derived metric
	NoValue               = "no-value"                // the derived metric is registered but never has a value
	FilterOnSingular      = "filter-on-singular"      // an instance filter on a metric without instances never has a value
	UnknownInstance       = "unknown-instance"        // an instance filter names an instance the metric does not have now
	QuotedInstance        = "quoted-instance"         // an instance filter is written with quotes, which libpcp keeps as part of the name
	PatternMatchesNothing = "pattern-matches-nothing" // a matchinst() pattern matches none of the current instances
	PatternUnchecked      = "pattern-unchecked"       // a matchinst() pattern uses POSIX features that cannot be checked here
	RateOfInstant         = "rate-of-instant"         // rate() of an instantaneous or discrete value
	NestedDerived         = "nested-derived"          // an operand is itself a derived metric
	WrongValue            = "wrong-value"             // libpcp computes a value other than the expression suggests
	LibpcpCrash           = "libpcp-crash"            // the target release of libpcp crashes on this expression
	Suppression           = "suppression"             // a "# pcp-derive-lsp:" comment is malformed or names an unknown code
	Internal              = "internal"                // pcp-derive-lsp could not analyse the definition
	EmptyNow              = "empty-now"               // a valid derived metric has no values in the live source's latest sample
	HostUnreachable       = "host-unreachable"        // a host of a fleet check could not be checked: down, too slow or refusing
	DerivedOption         = "derived-option"
	HtopBadName           = "htop-bad-name"
	HtopBadValue          = "htop-bad-value"
	HtopBadWidth          = "htop-bad-width"
	HtopDuplicateKey      = "htop-duplicate-key"
	HtopDuplicateMetric   = "htop-duplicate-metric"
	HtopDuplicateSection  = "htop-duplicate-section"
	HtopEmptyName         = "htop-empty-name"
	HtopInertKey          = "htop-inert-key"
	HtopLongName          = "htop-long-name"
	HtopLostLine          = "htop-lost-line"
	HtopNoMetric          = "htop-no-metric"
	HtopNoSections        = "htop-no-sections"
	HtopNoValue           = "htop-no-value"
	HtopNotRead           = "htop-not-read"
	HtopNulByte           = "htop-nul-byte"
	HtopOutsideSection    = "htop-outside-section"
	HtopScreenColumnName  = "htop-screen-column-name"
	HtopUnknownColor      = "htop-unknown-color"
	HtopUnknownKey        = "htop-unknown-key"
	HtopValueCut          = "htop-value-cut"
	INIDuplicate          = "ini-duplicate"
	INIEncoding           = "ini-encoding"
	INIInterpolation      = "ini-interpolation"
	INISyntax             = "ini-syntax"
	PmrepEmptyValue       = "pmrep-empty-value"
	PmrepOption           = "pmrep-option"
	SpecCompactReversed   = "spec-compact-reversed"
	SpecIgnored           = "spec-ignored"
	SpecInstances         = "spec-instances"
	SpecKey               = "spec-key"
	SpecUndeclared        = "spec-undeclared"
	SpecUnit              = "spec-unit"
	SpecUnknownMetric     = "spec-unknown-metric"
	SpecValue             = "spec-value"
)

// registry lists every code, by kind.
var registry = []Info{
	// The config file as libpcp reads it.
	{
		Code: BinaryFile, Kind: File, Severity: SevError,
		Summary:   "the file is not text",
		Behaviour: "A derived metric config is text: a NUL byte in its first 8 KB marks it as something else (an archive, a compiled file) put where configs go. libpcp loads it all the same, line by line as C strings cut at every NUL (see `nul-byte`), defines whatever the fragments define and reports whatever errors they make. pcp-derive-lsp reports the file once with this code and then reads it as libpcp does: `--format pcp` prints libpcp's own messages for it, and the metrics it defines are known to the other files, `describe` and `eval`.",
		Example:   "m.a = 1\n\x00\x01\x02\x03",
		Fix:       "m.a = 1\n",
		FixNote:   "Move the file out of the config directory, or, if it is a config that got binary junk, remove the junk.",
	},
	{
		Code: TooLarge, Kind: File, Severity: SevError,
		Summary:   "the file is larger than the size limit",
		Behaviour: "libpcp reads any size, but no real config is tens of megabytes: a file that large is a log or a dump in the wrong place. pcp-derive-lsp skips a file above `check --max-size` (64 MB by default, the same for an editor buffer) rather than spend memory on it.",
		NoExample: "an example would be larger than the limit (64 MB by default).",
		FixNote:   "Split a generated config into files of a sane size, or raise `check --max-size` if the file really is a config.",
	},
	{
		Code: NULByte, Kind: File, Severity: SevError,
		Summary:   "a NUL byte ends the line early for libpcp",
		Behaviour: "libpcp reads a line with fgetc and then uses it as C strings, so a NUL byte ends what it sees: after the `=`, the expression or attribute value ends at the NUL, and what comes before it is parsed and defined alone (a quoted value goes on reading the lines that follow); before the `=`, the name ends there, with no trailing white space trimmed, while the expression after the `=` is still read; a line that starts with a NUL is not empty to libpcp (a `missing '='` or `name missing` error that prints an empty line). pcp-derive-lsp reports each such line and reads it exactly so (every release alike). (A NUL in the first 8 KB also makes the whole file a `binary-file`.)",
		NoExample: "a NUL byte cannot be shown in an example.",
		FixNote:   "Remove the NUL byte; it usually comes from a broken editor or a bad concatenation.",
	},
	{
		Code: InvalidUTF8, Kind: File, Severity: SevWarning,
		Summary:   "the line is not valid UTF-8",
		Behaviour: "libpcp passes the bytes through: help text that is not UTF-8 (Latin-1 from an old editor) reaches `pminfo -T` and every client as it is, and shows as garbage in UTF-8 terminals and tools. In an expression, such bytes are a syntax error anyway.",
		Example:   "m.a = hinv.ncpu\nm.a(oneline) = caf\xe9 count\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = café count\n",
		FixNote:   "Save the file as UTF-8 (`iconv -f latin1 -t utf-8`).",
	},
	{
		Code: NoFinalNewline, Kind: File, Severity: SevWarning,
		Summary:   "the last line has no newline, so libpcp never reads it",
		Behaviour: "libpcp only processes a line when it reads its newline. A last line without one is dropped without a word: the metric it defines does not exist, and nothing says why.",
		Example:   "m.a = hinv.ncpu\nm.b = hinv.ncpu * 2",
		Fix:       "m.a = hinv.ncpu\nm.b = hinv.ncpu * 2\n",
		FixNote:   "End the file with a newline (most editors have a setting for it).",
	},
	{
		Code: Control, Kind: File, Severity: SevWarning,
		SeverityNote: "an error when the line has no `=` at all, as libpcp says",
		Summary:      "a #control line is malformed",
		Behaviour:    "From PCP 7.1.1, a line starting `#control` sets derived metric controls (`global_limit`, `context_limit`, `debug_syntax`, `debug_semantics`, `debug_eval`, `option_novalue`), as `NAME=INTEGER` items separated by commas. libpcp stops at the first item it cannot use (no `=`, no value, a value that is not a whole number, an unknown name, a value out of range) and ignores the rest of the line. Before 7.1.1 the line is a comment.",
		Example:      "#control option_novalue=2\nm.a = hinv.ncpu\n",
		Fix:          "#control option_novalue=1\nm.a = hinv.ncpu\n",
		FixNote:      "Write each control as `name=value` with a value libpcp accepts: 0 or 1 for the debug flags and `option_novalue`, -1 or more than 0 for `global_limit`. `context_limit` cannot be set from a config.",
	},
	{
		Code: MissingEquals, Kind: File, Severity: SevError,
		Summary:   "the line has no \"=\"",
		Behaviour: "Every line that is not empty and does not start with `#` in its first column must be `name = expression` or `name(attribute) = value`. libpcp prints that the `=` is missing after the derived metric name, and skips the line. An indented comment and a line of only spaces are such lines too.",
		Example:   "mem.free.ratio mem.util.free / mem.physmem\n",
		Fix:       "mem.free.ratio = mem.util.free / mem.physmem\n",
		FixNote:   "Put `=` between the name and the expression; start comments in the first column.",
	},
	{
		Code: MissingName, Kind: File, Severity: SevError,
		Summary:   "the derived metric name is missing",
		Behaviour: "The text before `=` (or before `(` on an attribute line) is the metric's name; libpcp prints `derived metric name missing` when there is none and skips the line.",
		Example:   " = hinv.ncpu * 2\n",
		Fix:       "hinv.ncpu2 = hinv.ncpu * 2\n",
		FixNote:   "Name the metric before `=`.",
	},
	{
		Code: IllegalName, Kind: File, Severity: SevError,
		Summary:   "the derived metric name is not a valid PCP metric name",
		Behaviour: "A metric name is dot-separated parts that each start with a letter and go on with letters, digits or `_`. libpcp prints `illegal derived metric name` and skips the line.",
		Example:   "cats.9lives = 1\n",
		Fix:       "cats.lives9 = 1\n",
		FixNote:   "Start every part of the name with a letter; use `_` instead of `-`.",
	},
	{
		Code: MissingExpr, Kind: File, Severity: SevError,
		Summary:   "the expression is missing",
		Behaviour: "libpcp prints `expression missing` for `name =` with nothing after it, and skips the line.",
		Example:   "m.a =\n",
		Fix:       "m.a = hinv.ncpu\n",
		FixNote:   "Write the expression after `=`, or remove the line.",
	},
	{
		Code: MissingLParen, Kind: File, Severity: SevError,
		Summary:   "an attribute line lacks \"(\"",
		Behaviour: "An attribute line is `name(attribute) = value`. libpcp has a message for a `)` with no `(` before the `=` (`missing '(' before attribute`), but it checks the name first, and the `)` makes the name illegal: in practice the line gets `illegal-name`, here as in libpcp.",
		NoExample: "unreachable in practice, as in libpcp: the `)` makes the name an `illegal-name` first.",
		FixNote:   "Write the attribute in parentheses right after the name: `m.a(oneline) = text`.",
	},
	{
		Code: MissingRParen, Kind: File, Severity: SevError,
		Summary:   "an attribute line lacks \")\"",
		Behaviour: "An attribute line is `name(attribute) = value`; with a `(` and no `)` before the `=`, libpcp prints `missing ')' after attribute` and skips the line.",
		Example:   "m.a = hinv.ncpu\nm.a(oneline = CPUs\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = CPUs\n",
		FixNote:   "Close the parenthesis before `=`.",
	},
	{
		Code: DuplicateName, Kind: File, Severity: SevError,
		Summary:   "a derived metric of this name is already defined",
		Behaviour: "Names are global to a process: a second definition of a name, in the same file or any file loaded before it (`PCP_DERIVED_CONFIG=a:b:dir`), fails with `Duplicate global derived metric name` and the first one stays.",
		Example:   "m.a = hinv.ncpu\nm.a = hinv.ncpu * 2\n",
		Fix:       "m.a = hinv.ncpu\nm.b = hinv.ncpu * 2\n",
		FixNote:   "Rename one of the two, or remove the one not wanted (the quick fix removes the duplicate). Check files meant for different hosts with `check --separate`.",
	},
	{
		Code: AttrMissingName, Kind: File, Severity: SevError,
		Summary:   "an attribute line has no attribute name",
		Behaviour: "libpcp prints `attribute name missing` for `name() = value` and skips the line.",
		Example:   "m.a = hinv.ncpu\nm.a() = CPUs\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = CPUs\n",
		FixNote:   "Name the attribute: `oneline` or `helptext`.",
	},
	{
		Code: AttrMissingValue, Kind: File, Severity: SevError,
		Summary:   "an attribute line has no value",
		Behaviour: "libpcp prints `attribute value missing` when nothing (or only an opening quote) follows the `=` of an attribute line.",
		Example:   "m.a = hinv.ncpu\nm.a(oneline) =\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = CPUs\n",
		FixNote:   "Give the text after `=`, or remove the line.",
	},
	{
		Code: AttrUnterminated, Kind: File, Severity: SevError,
		Summary:   "a quoted attribute value never ends",
		Behaviour: "A value that starts with `\"` or `'` may span lines and ends at the same quote, unescaped. When it never ends, libpcp reads to the end of the file looking for it and prints `missing termination`: every definition after the attribute is lost.",
		Example:   "m.a = hinv.ncpu\nm.a(helptext) = 'CPUs online\nm.b = hinv.ncpu * 2\n",
		Fix:       "m.a = hinv.ncpu\nm.a(helptext) = 'CPUs online'\nm.b = hinv.ncpu * 2\n",
		FixNote:   "Close the quote; write a quote inside the value as `\\'` or `\\\"`.",
	},
	{
		Code: AttrExtraText, Kind: File, Severity: SevWarning,
		Summary:   "text after a quoted attribute value is ignored",
		Behaviour: "A quoted value ends at its closing quote; libpcp warns `extra text ... after attribute value will be ignored` and drops the rest of the line.",
		Example:   "m.a = hinv.ncpu\nm.a(oneline) = 'CPUs' online\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = 'CPUs online'\n",
		FixNote:   "Move the text inside the quotes, or remove it.",
	},
	{
		Code: AttrUndefinedMetric, Kind: File, Severity: SevError,
		Summary:   "an attribute names a derived metric not defined before it",
		Behaviour: "An attribute sets help text of a derived metric registered earlier in the config path. For any other name (misspelt, defined later, or a real metric) libpcp prints `cannot set attribute, derived metric (NAME) not defined` and the text is lost.",
		Example:   "m.a(oneline) = CPUs\nm.a = hinv.ncpu\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = CPUs\n",
		FixNote:   "Put attribute lines after the definition, and spell the name as it is defined.",
	},
	{
		Code: AttrInvalid, Kind: File, Severity: SevError,
		Summary:   "an attribute is unknown or set twice",
		Behaviour: "libpcp knows two attributes, `oneline` and `helptext` (case matters), each set once per metric: it prints `attribute (ATTR) is unknown` or `duplicate value for attribute` and ignores the line.",
		Example:   "m.a = hinv.ncpu\nm.a(units) = count\n",
		Fix:       "m.a = hinv.ncpu\nm.a(oneline) = CPUs (count)\n",
		FixNote:   "Use `oneline` or `helptext`, once each; units come from the expression (`rescale()`, `mkconst(units=...)`).",
	},
	// libpcp's verdicts.
	{
		Code: Syntax, Kind: Verdict, Severity: SevError,
		Summary:   "libpcp rejects the expression's syntax",
		Behaviour: "libpcp's parser (the same yacc grammar in every release, with a few words added over time) rejects the expression: it prints `pmRegisterDerived(NAME, ...) syntax error`, the expression with a caret, and a message, and the metric does not exist. The finding gives the same caret and message, from the same grammar.",
		Example:   "m.a = hinv.ncpu +\n",
		Fix:       "m.a = hinv.ncpu + 1\n",
		FixNote:   "Complete or correct the expression at the caret. A `#` after an expression is not a comment: comments start in the first column.",
	},
	{
		Code: Dialect, Kind: Verdict, Severity: SevError,
		Summary:   "the construct needs a newer PCP than the target release",
		Behaviour: "The language grew: `delta()`, `rate()` and `instant()` of an expression (6.3.0), `novalue()` and `meta=` (6.2.2), `indom=` (7.1.0), continuation lines (6.2.2), extra units (7.2.0). An older libpcp rejects these with a syntax error, so the metric does not exist on hosts of that release. The target release is `--pcp-version` (`pcpVersion` in the editor), by default the release the metadata source runs.",
		Example:   "a = delta(disk.dev.read + disk.dev.write)\n",
		Release:   "6.0",
		Fix:       "a = delta(disk.dev.read) + delta(disk.dev.write)\n",
		FixNote:   "Rewrite with what the target release has (here, one `delta()` per metric), or target the release the hosts really run; `check --pcp-version all` shows each definition's fate on every release.",
	},
	{
		Code: Semantic, Kind: Verdict, Severity: SevError,
		Summary:   "libpcp rejects the metric when it binds it",
		Behaviour: "When a tool first uses the metric, libpcp binds its operands and checks types, semantics, units and instance domains, in its own order, stopping at the first problem: it prints `Semantic error: derived metric NAME: ...` and the metric has no value in that tool. Also here: a derived metric inside another from PCP 6.2.2 (`Illegal nested derived metric`) and an operand without a descriptor (7.1+).",
		Example:   "network.total = network.interface.in.bytes * network.interface.out.bytes\n",
		Fix:       "network.total = network.interface.in.bytes + network.interface.out.bytes\n",
		FixNote:   "The message says which rule the operands break and what each operand is; counters only add and subtract, and a bare number is a 32-bit unsigned discrete constant (use `mkconst()` for another type, semantics or units).",
	},
	{
		Code: UnknownMetric, Kind: Verdict, Severity: SevError,
		Summary:   "an operand names a metric the metadata source does not know",
		Behaviour: "An operand that does not bind hides the derived metric: PCP before 7.1 says nothing at all (the metric is simply absent from `pminfo`), 7.1 and later print `Unknown operand metric`. From 6.2.2 an operand under `defined()` or in a `?:` branch may be missing.",
		Example:   "disk.dev.reads = delta(disk.dev.reda)\n",
		Fix:       "disk.dev.reads = delta(disk.dev.read)\n",
		FixNote:   "Correct the name (the finding suggests close ones), or, for a metric some hosts lack, guard it: `defined(M) ? EXPR : novalue()` (PCP 6.2.2+).",
	},
	{
		Code: PMDAMissing, Kind: Verdict, Severity: SevWarning,
		SeverityNote: "a hint for the further metrics of the same PMDA in a file, which point at the first",
		Summary:      "an operand belongs to a PCP PMDA that is not installed where the metadata came from",
		Behaviour:    "The operand is under the namespace of one of PCP's PMDAs (`mssql.*`, `proc.*`, ...) and the metadata source has no metric of that PMDA at all: on that host the PMDA is not installed, and libpcp hides every derived metric using it, as for an unknown metric. On a fleet that is often expected (PCP's own configs name many PMDAs), so it is a warning, once per PMDA, where a misspelt name under an installed PMDA is an `unknown-metric` error.",
		Example:      "sql.waits = mssql.os_wait_stats.wait_time\n",
		Fix:          "sql.waits = defined(mssql.os_wait_stats.wait_time) ? mssql.os_wait_stats.wait_time : novalue()\n",
		FixNote:      "Install the PMDA on the hosts that should have the metric, check against a host or archive that has it, or guard the metric with `defined()` so it has no value where the PMDA is missing.",
	},
	{
		Code: Masked, Kind: Verdict, Severity: SevWarning,
		Summary:   "a real metric of the same name hides the derived metric",
		Behaviour: "libpcp accepts a derived metric named like a real one, but when it binds, the real metric wins: the definition is silently ignored.",
		Example:   "kernel.all.load = 1\n",
		Fix:       "site.kernel.all.load = 1\n",
		FixNote:   "Give derived metrics names of their own (a site prefix is common).",
	},
	{
		Code: NoValue, Kind: Verdict, Severity: SevWarning,
		Summary:   "the derived metric is registered but never has a value",
		Behaviour: "A ternary with `novalue()` in both branches makes libpcp's grammar fail after it registered the metric: it exists as a 32-bit unsigned discrete metric without units, whatever the rest of the expression says, and its values are garbage or none (seen in 6.3.8 and 7.2.2).",
		Example:   "m.a = hinv.ncpu > 1 ? novalue() : novalue()\n",
		Fix:       "m.a = hinv.ncpu > 1 ? hinv.ncpu : novalue()\n",
		FixNote:   "Give at least one branch a value.",
	},
	// Advice: what libpcp accepts but does not do as meant.
	{
		Code: FilterOnSingular, Kind: Advice, Severity: SevWarning,
		Summary:   "an instance filter on a metric without instances never has a value",
		Behaviour: "libpcp accepts `metric[instance]` and `matchinst()` on a metric that has no instance domain, and the result never has a value.",
		Example:   "m.a = hinv.ncpu[cpu0]\n",
		Fix:       "m.a = hinv.ncpu\n",
		FixNote:   "Drop the filter, or filter the per-instance metric meant (`kernel.percpu.*`).",
	},
	{
		Code: UnknownInstance, Kind: Advice, Severity: SevWarning,
		Summary:   "an instance filter names an instance the metric does not have now",
		Behaviour: "libpcp looks the instance up by its full name or the part before the first space, and until an instance of that name exists the metric has no value. Instances come and go (disks, containers), so this is a warning about the metadata source's current instances.",
		Example:   "load.two = kernel.all.load[2 minute]\n",
		Fix:       "load.five = kernel.all.load[5 minute]\n",
		FixNote:   "Spell the instance as `pminfo -f METRIC` lists it (the finding suggests close names).",
	},
	{
		Code: QuotedInstance, Kind: Advice, Severity: SevError,
		Summary:   "an instance filter is written with quotes, which libpcp keeps as part of the name",
		Behaviour: "Between `[` and `]` libpcp takes every character literally, quotes included: `disk.dev.read[\"vda\"]` looks for an instance named `\"vda\"` with the quotes, which no PMDA has, so the metric never has a value (every release). It is an error unless the instance domain really has such a name.",
		Example:   "vda.reads = disk.dev.read[\"vda\"]\n",
		Fix:       "vda.reads = disk.dev.read[vda]\n",
		FixNote:   "Remove the quotes; escape a `]` in the name as `\\]`. `check --fix` does it.",
	},
	{
		Code: PatternMatchesNothing, Kind: Advice, Severity: SevWarning,
		Summary:   "a matchinst() pattern matches none of the current instances",
		Behaviour: "libpcp matches the pattern (POSIX extended, case-sensitive, unanchored) against each instance name cut at its first space: `kernel.all.load`'s `1 minute` is matched as `1`. A pattern that matches none of the current instances gives no values.",
		Example:   "sd.reads = matchinst(/^sd/, disk.dev.read)\n",
		Fix:       "vd.reads = matchinst(/^vd/, disk.dev.read)\n",
		FixNote:   "Test the pattern against `pminfo -f METRIC`'s instance names, remembering the cut at the first space.",
	},
	{
		Code: PatternUnchecked, Kind: Advice, Severity: SevWarning,
		Summary:   "a matchinst() pattern uses POSIX features that cannot be checked here",
		Behaviour: "libpcp uses POSIX `regexec`; character classes like `[[:alpha:]]`, collating elements, back references and backslashes in brackets behave differently in other regular expression engines, so the pattern was not matched against the instances. It may be right.",
		Example:   "named.reads = matchinst(/^[[:alpha:]]+$/, disk.dev.read)\n",
		Fix:       "named.reads = matchinst(/^[a-z]+$/, disk.dev.read)\n",
		FixNote:   "Nothing to do if the pattern is right; plain ranges (`[a-z]`) can be checked.",
	},
	{
		Code: RateOfInstant, Kind: Advice, Severity: SevWarning,
		Summary:   "rate() of an instantaneous or discrete value",
		Behaviour: "`rate()` divides the change since the last sample by the time between samples: meant for counters. Of a gauge (a load average, a queue length) it gives how fast the gauge moves, rarely what is wanted.",
		Example:   "load.rate = rate(kernel.all.load)\n",
		Fix:       "reads.rate = rate(disk.dev.read)\n",
		FixNote:   "Use the gauge itself, or `rate()` of the counter behind it.",
	},
	{
		Code: NestedDerived, Kind: Advice, Severity: SevWarning,
		Summary:   "an operand is itself a derived metric",
		Behaviour: "Before PCP 6.2.2, libpcp accepts a derived metric inside another: it binds and has metadata, but every fetch of it fails with `No PMCD agent for domain of request`. From 6.2.2 it is a `semantic` error (`Illegal nested derived metric`); a plain alias (`x = other`) is fine in every release.",
		Example:   "a.b = kernel.all.load + 1\nc.d = a.b * 2\n",
		Release:   "6.0",
		Fix:       "a.b = kernel.all.load + 1\nc.d = (kernel.all.load + 1) * 2\n",
		FixNote:   "Repeat the inner expression instead of naming its metric.",
	},
	{
		Code: WrongValue, Kind: Advice, Severity: SevWarning,
		Summary:   "libpcp computes a value other than the expression suggests",
		Behaviour: "Places where libpcp's arithmetic is not the arithmetic the expression reads as: a bare integer is unsigned 32-bit, so `0 - x` wraps around instead of going negative and a signed 32-bit metric compared with `0` compares as unsigned; `!x` works on 32-bit values only; division by a constant zero gives infinity; `*` and `/` of operands with opposite dimensions and different scales convert the wrong way (a libpcp bug).",
		Example:   "cpus.left = 0 - hinv.ncpu\n",
		Fix:       "cpus.left = mkconst(0, type=64) - hinv.ncpu\n",
		FixNote:   "The message names the case and the rewrite: a signed constant (`mkconst(N, type=32)` with a signed 32-bit metric, `type=64` with an unsigned one), `(x) == 0` for `!x`, swapped operands or `rescale()` for the units bug.",
	},
	{
		Code: LibpcpCrash, Kind: Advice, Severity: SevWarning,
		SeverityNote: "an error for a metric that depends on itself, which crashes libpcp as soon as it binds, and for an expression too deep for libpcp's stack",
		Summary:      "the target release of libpcp crashes on this expression",
		Behaviour:    "Some expressions crash the tool that fetches them with the libpcp of older releases: `(expr)[instance]` and `scalar()` of an expression with no values (fixed in 6.1.1), and derived metrics that depend on themselves through others (before 6.2.2). The config loads; `pmval`, `pmrep` or `pmlogger` die later. Every release crashes on an expression more than about 26,000 operators deep (a generated `a + b + c + ...` of that many terms): its parser takes any length of chain, but binding, checking and fetching walk the tree recursively and overflow the default 8 MB stack; past 25,000 levels the checker reports that as an error and does not check the expression further.",
		Example:      "vda.reads = (disk.dev.read)[vda]\n",
		Release:      "6.0",
		Fix:          "vda.reads = disk.dev.read[vda]\n",
		FixNote:      "Filter the metric itself rather than an expression, or target hosts on 6.1.1 or later; break dependency cycles.",
	},
	// Our own.
	// pmrep and pcp-dstat files (toolconf/pmconfig).
	{
		Code: INISyntax, Kind: Tools, Severity: SevError,
		Summary:   "a line configparser cannot read: no section header first, or neither a header, key = value nor a comment",
		Behaviour: "pmrep and pcp-dstat read their files with Python's configparser. A key before the first `[section]` stops it at once (`File contains no section headers.`); a line with no `=` or `:` (an indented comment counts as a comment, a stray word does not) fails the whole file with `Source contains parsing errors` after it is read. pmrep prints `Failed to read configuration file 'F', line N:` and the error; pcp-dstat shows a traceback.",
		Example:   "[s]\nhinv.ncpu\n",
		Fix:       "[s]\nhinv.ncpu = cpus\n",
		FixNote:   "Write `key = value`, or start the line with `#` or `;` to make it a comment.",
	},
	{
		Code: INIDuplicate, Kind: Tools, Severity: SevError,
		Summary:   "a section or key appears twice in one file",
		Behaviour: "pmconfig's configparser is strict: a second `[section]` of the same name, or a key set twice in one section of one file, stops the read with `section 'S' already exists` or `option 'K' in section 'S' already exists`. pmrep refuses the file; in pcp-dstat's directories one duplicate breaks every pcp-dstat run with `TypeError: 'str' object is not callable`. Across files (a pmrep directory) the later section replaces the earlier instead.",
		Example:   "[s]\nhinv.ncpu = cpus\nhinv.ncpu = n\n",
		Fix:       "[s]\nhinv.ncpu = cpus\n",
		FixNote:   "Keep one of the two; merge the sections.",
	},
	{
		Code: INIInterpolation, Kind: Tools, Severity: SevError,
		Summary:   "a % that pmrep's configparser interpolation refuses",
		Behaviour: "pmrep reads its files with interpolation: `%%` is a literal `%`, `%(key)s` is another key's value, and any other `%` raises `InterpolationSyntaxError` (an unknown key `InterpolationMissingOptionError`, a reference loop `InterpolationDepthError`). From PCP 6.0 every section of every file read is interpolated, so one bad `%` in a metricset nobody asked for stops every pmrep run, with a Python traceback that names neither file nor line. pcp-dstat does not interpolate.",
		Example:   "[s]\nhinv.ncpu = 50%\n",
		Fix:       "[s]\nhinv.ncpu = 50%%\n",
		FixNote:   "Write `%%` for a literal `%` (labels such as `%%idle`, `timefmt = %%H:%%M`); the quick fix doubles it.",
	},
	{
		Code: INIEncoding, Kind: Tools, Severity: SevError,
		Summary:   "the file is not UTF-8",
		Behaviour: "Python decodes the file as UTF-8 before configparser sees it: a byte that is not UTF-8 (Latin-1 from an old editor) stops pmrep and pcp-dstat with a `UnicodeDecodeError` traceback.",
		Example:   "[s]\nhinv.ncpu = caf\xe9\n",
		Fix:       "[s]\nhinv.ncpu = café\n",
		FixNote:   "Save the file as UTF-8 (`iconv -f latin1 -t utf-8`).",
	},
	{
		Code: PmrepOption, Kind: Tools, Severity: SevError,
		SeverityNote: "a warning for values pmrep reads without a word but not as meant (`header = on`, `type = rate`)",
		Summary:      "an option pmrep does not know, in the wrong place, or with a value it refuses or misreads",
		Behaviour:    "`[options]` holds option keys only: another key is `Unknown option K in [options].`; `[global]` holds metric specs only (`Section [global] contains options.`). Option values go through one converter: `true True y yes Yes` and `false False n no No` are booleans, anything else a number or a string, and most checks compare with 1, so `header = on` turns headers off. `width`, `precision`, `rank` and their kin must be whole numbers (`Non-negative integer expected.`), `output` stdout, csv or archive, `version` 1.",
		Example:      "[options]\nheaders = yes\n",
		Fix:          "[options]\nheader = yes\n",
		FixNote:      "Use the option names of pmrep.conf(5) and the spellings above; put metric specs in `[global]` or a metricset.",
	},
	{
		Code: PmrepEmptyValue, Kind: Tools, Severity: SevError,
		Summary:   "a key with no value",
		Behaviour: "From PCP 6.0 pmrep refuses a key with nothing after its `=`: `No value set for option K in [S].` for an option, `No value set for K in [S].` for a metric line. 5.2 took it silently.",
		Example:   "[s]\nhinv.ncpu =\n",
		Fix:       "[s]\nhinv.ncpu = cpus\n",
		FixNote:   "Give the value (for a metric line, the label or `,,,,` for none), or remove the line.",
	},
	{
		Code: DerivedOption, Kind: Tools, SeverityNote: "a warning when a list without \";\" has commas pmrep will cut at", Severity: SevError,
		Summary:   "an item of pmrep's derived option it cannot use",
		Behaviour: "`derived` is split on `;` (or, when it has none, on every `,`). An item starting with `/` or `.` is a derived config file for pmLoadDerivedConfig (a missing one stops pmrep: `Failed to load derived metric definitions from file`), any other must be `NAME=EXPR` (`Invalid syntax (expected metric=expression)`, so `derived = der.txt` fails where `./der.txt` works). Its expressions are registered like formulas and checked here at their columns.",
		Example:   "[options]\nderived = der.txt\n",
		Fix:       "[options]\nderived = m.a=hinv.ncpu\n",
		FixNote:   "Start a file's path with `/` or `./`; write expressions as `NAME=EXPR`, separated by `;`.",
	},
	{
		Code: SpecKey, Kind: Tools, Severity: SevError,
		Summary:   "a spec line pmconfig reads as something else: a misspelt spec word, a comma in a verbose spec, too many dots",
		Behaviour: "pmconfig tells a compact spec from a verbose one by the value's comma or the key's second dot-separated part: `util.lable = x` is a compact spec of a metric named `util.lable`, and `util.instances = a,b` one of `util.instances`, both failing later as `Invalid metric util.lable (PM_ERR_NAME Unknown metric name).`; `a.label.b = x` stops the read with `too many values to unpack (expected 2)`. The spec words are label, instances, unit, type, width, precision, limit and formula.",
		Example:   "[s]\nn = hinv.ncpu\nn.lable = cpus\n",
		Fix:       "[s]\nn = hinv.ncpu\nn.label = cpus\n",
		FixNote:   "Spell the spec word right (the quick fix does); match several instances with one regular expression, `(a|b)`.",
	},
	{
		Code: SpecUndeclared, Kind: Tools, Severity: SevError,
		Summary:   "a KEY.spec line before KEY = METRIC",
		Behaviour: "A verbose spec line belongs to the declaration `KEY = METRIC` above it in the section; pmrep refuses a spec whose key has none yet: `Undeclared metric key KEY.`",
		Example:   "[s]\nn.label = cpus\nn = hinv.ncpu\n",
		Fix:       "[s]\nn = hinv.ncpu\nn.label = cpus\n",
		FixNote:   "Declare `KEY = METRIC` first.",
	},
	{
		Code: SpecUnknownMetric, Kind: Tools, Severity: SevError,
		Summary:   "a spec's metric is not in the namespace",
		Behaviour: "pmrep looks every spec's metric (or namespace subtree) up once the formulas are registered, and stops at the first it cannot find: `Invalid metric NAME (PM_ERR_NAME Unknown metric name).` (`Unknown metric` from 7.1). With `ignore_unknown` it leaves it out instead. A formula whose operand is unknown ends the same way, naming the formula's metric, not the operand (the formula's own finding names it).",
		Example:   "[s]\nhinv.ncpus = cpus\n",
		Fix:       "[s]\nhinv.ncpu = cpus\n",
		FixNote:   "Correct the name (the quick fix offers the nearest ones), or install the PMDA that provides it.",
	},
	{
		Code: SpecCompactReversed, Kind: Tools, Severity: SevError,
		Summary:   "a compact spec written label = metric,...",
		Behaviour: "The compact form is `METRIC = label,instances,unit,type,width,precision,limit`: the key is the metric. Written the other way round, pmrep looks up the label as a metric and stops with `Invalid metric load (PM_ERR_NAME Unknown metric name).`",
		Example:   "[s]\nload = kernel.all.load,,,,8\n",
		Fix:       "[s]\nkernel.all.load = load,,,,8\n",
		FixNote:   "Swap the metric and the label (the quick fix does).",
	},
	{
		Code: SpecInstances, Kind: Tools, Severity: SevWarning,
		SeverityNote: "an error when the pattern is not a valid regular expression (pmrep stops)",
		Summary:      "an instance filter that matches no instance",
		Behaviour:    "pmrep matches each instance pattern as a number (an instance whose name starts with it), a process name, or else an anchored regular expression. A metric none of whose patterns match is dropped from the report without a word; when nothing is left pmrep says `No matching instances found.` A pattern that is no regular expression stops it: `Invalid regex 'P': ….`",
		Example:      "[s]\nl = kernel.all.load\nl.instances = 2 minutes\n",
		Fix:          "[s]\nl = kernel.all.load\nl.instances = 1 minute\n",
		FixNote:      "Match the instance names the metadata source lists (`pminfo -f METRIC`); the check is against the instances present now.",
	},
	{
		Code: SpecUnit, Kind: Tools, Severity: SevError,
		Summary:   "a unit libpcp cannot parse, or cannot convert the metric's units to",
		Behaviour: "A spec's unit goes to pmParseUnitsStr when pmrep sets the metric up; one it cannot parse stops pmrep with `PM_ERR_CONV Impossible value or scale conversion …: UNIT.` Then the fetchgroup is handed the column's label: the unit, with ` / s` added for a counter pmrep shows as a rate (not raw) when the unit has no `/`. Its dimensions must equal the metric's, or be them per unit of time (`MB/s` of a byte counter or gauge); any other unit (`sec` of a byte counter, `count` of a time counter, which becomes `count/s`) stops pmrep with `pmrep: Impossible value or scale conversion`, naming no metric, unless `ignore_incompat` makes it drop the metric without a word.",
		Example:   "[s]\nl = kernel.all.load\nl.unit = furlongs\n",
		Fix:       "[s]\nl = kernel.all.load\n",
		FixNote:   "Write units as pmParseUnitsStr(3) spells them: `KB`, `MB/s`, `ms`, `count x 10^3`.",
	},
	{
		Code: SpecValue, Kind: Tools, Severity: SevError,
		SeverityNote: "a warning for a type other than raw, which pmrep ignores",
		Summary:      "a spec value out of its domain",
		Behaviour:    "A spec's width must be a whole number of 0 or more and its precision a whole number: otherwise pmrep stops with `Non-negative integer expected: METRIC` once it finds the metric. Its type means something only when it is `raw`; any other text is silently the default. A `;` in a formula ends it, since pmconfig joins formulas into a `;`-separated list.",
		Example:      "[s]\nl = kernel.all.load\nl.width = wide\n",
		Fix:          "[s]\nl = kernel.all.load\nl.width = 8\n",
		FixNote:      "Give whole numbers; write `type = raw` or nothing.",
	},
	{
		Code: SpecIgnored, Kind: Tools, Severity: SevWarning,
		Summary:   "a spec pmrep reads and then ignores, or a formula it never registers",
		Behaviour: "pmrep ignores a metric's `limit` (the precision overwrites its slot; only the `limit_filter` option filters). It looks a formula's metric up before registering it, so a formula whose name is a metric already (a real one, one of the derived configs libpcp loads on its own, an earlier formula in the set or in `[global]`) is skipped without a word, even one libpcp would refuse.",
		Example:   "[s]\nl = kernel.all.load\nl.limit = 5\n",
		Fix:       "[s]\nl = kernel.all.load\n",
		FixNote:   "Remove the ignored spec; give each formula's metric its own name.",
	},
	// pcp-htop's meters, columns and screens (toolconf/htop; docs/htop.md).
	{
		Code: HtopNotRead, Kind: Tools, Severity: SevWarning,
		Summary:   "this release's pcp-htop does not read this kind of file",
		Behaviour: "pcp-htop reads meters from PCP 5.3.2, columns from 5.3.3 and screens from 6.1.0; older releases read no such file at all (PCP 5.2.6 has no dynamic meters, columns or screens).",
		NoExample: "no edit of the file fixes it: any meter checked for PCP 5.2.6 gets it.",
		FixNote:   "Check for the release the file is meant for, or upgrade PCP.",
	},
	{
		Code: HtopNoSections, Kind: Tools, Severity: SevError,
		Summary:   "no [section] header: htop reads nothing from the file",
		Behaviour: "htop's parser ignores every line before the first `[NAME]` header without a word, so a file without one (a binary file, a derived-metric config, anything else put in a meters/, columns/ or screens/ directory) defines nothing.",
		Example:   "load = kernel.all.load\n",
		Fix:       "[load]\ncaption = Load\nl.metric = kernel.all.load\n",
		FixNote:   "Start each meter, column or screen with a `[NAME]` header, or move the file out of htop's directory.",
	},
	{
		Code: HtopOutsideSection, Kind: Tools, Severity: SevWarning,
		Summary:   "a line before the first [section] header is ignored",
		Behaviour: "htop applies a key to the current meter, column or screen; before the first header there is none, and the line is dropped silently.",
		Example:   "caption = Load\n[load]\nl.metric = kernel.all.load\n",
		Fix:       "[load]\ncaption = Load\nl.metric = kernel.all.load\n",
		FixNote:   "Move the line under its header.",
	},
	{
		Code: HtopBadName, Kind: Tools, Severity: SevError,
		Summary:   "htop refuses the section name and skips the section",
		Behaviour: "A meter, column or screen name becomes part of a metric name and of htoprc, so htop accepts only a letter or `_` followed by letters, digits or `_`, up to the last `]` of the header. For anything else it prints `pcp-htop: invalid meter name at PATH line N` and the name in quotes (or `no closing brace on meter name`; `column`, `screen` for those files) and skips every line up to the next header. The message goes to stderr just as the full-screen display starts, so it is easily missed. In columns before PCP 7.1.1, the skipped lines go on setting the column before the header.",
		Example:   "[disk-io]\ncaption = Disk\nr.metric = disk.all.read\n",
		Fix:       "[disk_io]\ncaption = Disk\nr.metric = disk.all.read\n",
		FixNote:   "Use letters, digits and `_` only (a `-` is the usual culprit), and close the header with `]`.",
	},
	{
		Code: HtopDuplicateSection, Kind: Tools, Severity: SevWarning,
		Summary:   "the section name is already defined: htop skips this one",
		Behaviour: "htop reads its directories in order ($PCP_HTOP_DIR, ~/.config/htop, $PCP_SYSCONF_DIR/htop, $PCP_SHARE_DIR/htop) and keeps the first meter, column or screen of each name; a later one is skipped without a word. In columns before PCP 7.1.1 the skipped section's lines go on setting the column before it in the same file, and a `metric` line there registers that column's metric a second time, which is fatal (`htop-duplicate-metric`).",
		Example:   "[load]\nl.metric = kernel.all.load\n[load]\nm.metric = mem.util.free\n",
		Fix:       "[load]\nl.metric = kernel.all.load\n[mem]\nm.metric = mem.util.free\n",
		FixNote:   "Rename one of them (a user file meant to replace a shipped one replaces it whole: the shipped one is skipped).",
	},
	{
		Code: HtopLongName, Kind: Tools, Severity: SevWarning,
		Summary:   "htop cuts the section name to 31 bytes",
		Behaviour: "htop stores a name in 32 bytes: a longer one is cut, the metrics are registered under the cut name, and the check for an earlier definition compares the whole name with the cut ones, so two long names that share their first 31 bytes both pass it and then register the same metric names (fatal).",
		Example:   "[a_very_long_meter_name_for_the_disks]\nr.metric = disk.all.read\n",
		Fix:       "[disks]\nr.metric = disk.all.read\n",
		FixNote:   "Use a name of 31 bytes or fewer.",
	},
	{
		Code: HtopEmptyName, Kind: Tools, Severity: SevWarning,
		Summary:   "an empty section name `[]`",
		Behaviour: "htop's name check passes an empty name: a meter's metrics are then registered as `htop.meter..X`, a column's metric is never registered (the column has no values), and the meter or column cannot be chosen by name in htoprc. PCP 6.3.8's pcp-htop, given an empty name in each of its meter, column and screen files at once, was seen to corrupt its heap and abort (`realloc(): invalid next size`).",
		Example:   "[]\nr.metric = disk.all.read\n",
		Fix:       "[disk]\nr.metric = disk.all.read\n",
		FixNote:   "Name the section.",
	},
	{
		Code: HtopNoValue, Kind: Tools, Severity: SevWarning,
		Summary:   "a line without `=` or without a value is ignored",
		Behaviour: "htop splits each line at `=` and needs a value after it; `total.color: blue` (a `:` as in other INI files) or `x.metric =` is dropped silently.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.color: blue\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nl.color = blue\n",
		FixNote:   "Write `key = value`.",
	},
	{
		Code: HtopValueCut, Kind: Tools, Severity: SevWarning,
		Summary:   "before PCP 7.1.1, htop keeps only the text up to a second `=`",
		Behaviour: "pcp-htop up to PCP 7.1.0 splits a line at every `=` and uses the text between the first and the second as the value, silently: `one.metric = sample.long.one == 1 ? 10 : 20` registers `sample.long.one`, and `mkconst(1, type=double)` is cut after `type`. PCP 7.1.1 and later split at the first `=` only.",
		Example:   "[t]\none.metric = hinv.ncpu == 1 ? 10 : 20\n", Release: "6.0.3",
		Fix:     "[t]\none.metric = hinv.ncpu < 2 ? 10 : 20\n",
		FixNote: "Avoid `=` in values for these releases (`==`, `>=`, `<=` and `!=` all hold one): compare with `<` and `>` instead, and drop the spec list of `mkconst`.",
	},
	{
		Code: HtopUnknownKey, Kind: Tools, Severity: SevWarning,
		Summary:   "htop ignores the key",
		Behaviour: "htop compares each key with the few it knows and drops any other without a word: a meter knows `caption`, `description`, `type`, `maximum` and `X.metric`, `X.color`, `X.label`, `X.suffix`; a column `metric`, `heading`, `caption`, `description`, `width` and (PCP 6.1.0+) `format`, `instances`, `default`/`enabled`; a screen `heading`, `caption`, `sortKey`, `sortDirection`, `default`/`enabled` and per column `X.metric`, `X.heading`, `X.caption`, `X.description`, `X.width`, `X.format`, `X.instances`, `X.default`. An unknown `X.attr` in a meter or screen still adds an `X` with no metric.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.colour = red\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nl.color = red\n",
		FixNote:   "Spell the key as htop does (American `color`, case-sensitive `sortKey`).",
	},
	{
		Code: HtopUnknownColor, Kind: Tools, Severity: SevWarning,
		Summary:   "htop knows no such colour and ignores it",
		Behaviour: "A meter metric's colour must be one of `gray darkgray red green blue cyan magenta yellow white`, exactly (lower case); anything else leaves the default colour, silently.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.color = Red\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nl.color = red\n",
		FixNote:   "Use one of htop's colour names.",
	},
	{
		Code: HtopBadWidth, Kind: Tools, Severity: SevWarning,
		Summary:   "a column width htop does not use as written",
		Behaviour: "htop reads a width with `atoi` (`strtoul` before PCP 6.1.0): it stops at the first byte that is not a digit, so `8px` is 8 and `wide` is 0; a width of 0 or wider than 64 (28 before PCP 6.1.0) falls back to the default, 5 left-aligned. A negative width aligns left.",
		Example:   "[c]\nmetric = proc.psinfo.rss\nwidth = 100\n",
		Fix:       "[c]\nmetric = proc.psinfo.rss\nwidth = 10\n",
		FixNote:   "Give an integer from 1 to 64 (or -1 to -64).",
	},
	{
		Code: HtopBadValue, Kind: Tools, Severity: SevWarning,
		Summary:   "a value htop does not recognise",
		Behaviour: "htop compares `instances` with `true`/`True` only and `default`/`enabled` with `false`/`False` only, so `yes`, `1` or `TRUE` mean the other thing; a `format` other than `percent process command device cgroup` shows the column unformatted; `sortDirection` is read with `atoi`.",
		Example:   "[c]\nmetric = proc.psinfo.rss\ninstances = yes\n",
		Fix:       "[c]\nmetric = proc.psinfo.rss\ninstances = true\n",
		FixNote:   "Use the words htop compares with.",
	},
	{
		Code: HtopInertKey, Kind: Tools, Severity: SevInfo,
		Summary:   "htop stores the key but never uses it",
		Behaviour: "A meter's `type` and `maximum` are read (type compared untrimmed, so `type = bar` with blanks never matches) but no pcp-htop release uses them: the meter's mode is chosen in the setup screen.",
		Example:   "[load]\ntype = bar\nl.metric = kernel.all.load\n",
		Fix:       "[load]\nl.metric = kernel.all.load\n",
		FixNote:   "Remove the line, or keep it as documentation.",
	},
	{
		Code: HtopDuplicateKey, Kind: Tools, Severity: SevWarning,
		Summary:   "the key is set twice: htop uses the later value",
		Behaviour: "htop overwrites a setting silently each time it reads it again, so only the last line counts (for `metric` lines a repeat is fatal instead: `htop-duplicate-metric`).",
		Example:   "[load]\ncaption = Load\ncaption = CPU load\nl.metric = kernel.all.load\n",
		Fix:       "[load]\ncaption = CPU load\nl.metric = kernel.all.load\n",
		FixNote:   "Keep one.",
	},
	{
		Code: HtopDuplicateMetric, Kind: Tools, Severity: SevError,
		Summary:   "the metric name is registered twice: pcp-htop exits",
		Behaviour: "Each `X.metric` (or a column's `metric`) registers a global derived metric named after the meter, column or screen; a second one of the same name fails with `Duplicate global derived metric name`, which pcp-htop treats as a parse error: it prints `pcp-htop: failed to parse expression in PATH at line N`, libpcp's error and exits with status 2. It happens with a repeated `metric` line, two long names alike in their first 31 bytes, and, before PCP 7.1.1, a user column named like a shipped one that is not the first of its file.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.metric = kernel.all.load[1]\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nm.metric = kernel.all.load[1]\n",
		FixNote:   "Give each metric its own X (or each column its own section).",
	},
	{
		Code: HtopNoMetric, Kind: Tools, Severity: SevWarning,
		Summary:   "a meter, column or screen column with no metric",
		Behaviour: "A meter without `X.metric`, a column without `metric`, or an `X.label`/`X.color` (meters) or `X.heading` (screens) whose `X.metric` is missing: htop accepts it, but the meter shows nothing and the column never has a value.",
		Example:   "[load]\ncaption = Load\nl.color = red\n",
		Fix:       "[load]\ncaption = Load\nl.color = red\nl.metric = kernel.all.load\n",
		FixNote:   "Add the metric line (or check the spelling of X in the other lines).",
	},
	{
		Code: HtopScreenColumnName, Kind: Tools, Severity: SevError,
		Summary:   "`SCREEN:COLUMN` is longer than 31 bytes",
		Behaviour: "htop names a screen's column `SCREEN:COLUMN` in 32 bytes. From PCP 7.0.0 a column whose name does not fit is dropped without a word; PCP 6.1.0 to 6.3.x pcp-htop crashes (segmentation fault) reading the line.",
		Example:   "[processes_by_state]\nthe_process_identifier.metric = proc.psinfo.pid\n",
		Fix:       "[processes_by_state]\npid.metric = proc.psinfo.pid\n",
		FixNote:   "Shorten the screen or the column name.",
	},
	{
		Code: HtopNulByte, Kind: Tools, Severity: SevError,
		Summary:   "a NUL byte: htop's line ends there and the next lines are lost",
		Behaviour: "htop reads a line with fgets 1024 bytes at a time and looks for its newline with strrchr, which stops at a NUL: the line's text ends at the NUL, and htop reads on over the following lines as part of it until a chunk shows a newline before any NUL, so those lines are never read. A binary file put in htop's directory reads as a few fragments.",
		NoExample: "a NUL byte cannot be shown in an example.",
		FixNote:   "Remove the NUL byte, or the file if it is not an htop config.",
	},
	{
		Code: HtopLostLine, Kind: Tools, Severity: SevWarning,
		Summary:   "htop drops the last line",
		Behaviour: "When the last line of a file has no newline and its final 1024-byte read ends exactly at the end of the file (a 1024-byte last line, or the lines after a NUL), htop's String_readLine reads nothing more and returns no line at all: the text is lost.",
		NoExample: "the example would be a line of exactly 1024 bytes.",
		FixNote:   "End the file with a newline.",
	},
	// pcp-derive-lsp's own.
	{
		Code: Suppression, Kind: Ours, Severity: SevError,
		Summary:   "a \"# pcp-derive-lsp:\" comment is malformed or names an unknown code",
		Behaviour: "A comment line `# pcp-derive-lsp: ignore[CODE,...]` (or `ignore` for every code) before a definition suppresses its findings, in `check` and in the editor alike; libpcp sees an ordinary comment. A misspelt code would suppress nothing without a word, so a code the registry lacks, or a comment that is not of that form, is an error.",
		Example:   "# pcp-derive-lsp: ignore[unknown-metirc]\nm.a = disk.dev.reda\n",
		Fix:       "# pcp-derive-lsp: ignore[unknown-metric]\nm.a = disk.dev.reda\n",
		FixNote:   "Spell the code as listed in [the codes](README.md) (the quick fix and `check --fix` correct a near miss).",
	},
	{
		Code: Internal, Kind: Ours, Severity: SevError,
		Summary:   "pcp-derive-lsp could not analyse the definition",
		Behaviour: "pcp-derive-lsp's own parser or checker failed on a definition libpcp's grammar accepts: a bug in pcp-derive-lsp, not in the config. The finding says what failed; the definition is not checked further.",
		NoExample: "it reports a bug: no known config gets it.",
		FixNote:   "Please report it with the definition (https://github.com/pcp-derive-lsp/pcp-derive-lsp/issues); suppress it meanwhile with `# pcp-derive-lsp: ignore[internal]`.",
	},
	{
		Code: EmptyNow, Kind: Ours, Severity: SevInfo,
		Summary:   "a valid derived metric has no values in the live source's latest sample",
		Behaviour: "libpcp registers the metric and `pminfo -f` prints only `No value(s) available!`. The editor evaluates each definition on screen on the preview's cycle, as libpcp would, keeps every subexpression's values, and reports the subexpression where values vanish and why: an operand its PMDA returns nothing for, an instance name that does not exist, a `matchinst` pattern that matches nothing, operands that share no instance, a counter whose rate needs another sample, a guard that chose `novalue()`. `pcp-derive-lsp explain` prints the whole tree.",
		NoExample: "it needs live values: the editor's preview of a pmcd gives it, `check` never does.",
		FixNote:   "Follow the reason to the subexpression it names: `explain` (or the editor's *Explain this metric*) shows the values of every node. The metric may be right and the host simply has nothing to report now.",
	},
	{
		Code: HostUnreachable, Kind: Ours, Severity: SevError,
		Summary:   "a host of a fleet check could not be checked: down, too slow or refusing",
		Behaviour: "A fleet check (`check --hosts`, `--hosts-file`, `--archive-dir`, the server's `fleet` setting) asks every host for its metadata. A host that refuses the connection, does not answer within `--host-timeout`, or whose archive cannot be read gives no verdicts: its definitions are neither valid nor invalid there. libpcp has no such notion; pminfo would fail on that host alone.",
		NoExample: "it needs a fleet with a host that is down.",
		FixNote:   "Bring the host (its pmcd, or pmproxy in front of it) back, or leave it out of the list; `check --allow-unreachable` reports it without failing the check.",
	},
}

// Lookup returns the registry entry for code.
func Lookup(code string) (Info, bool) {
	if i, ok := byCode[code]; ok {
		return registry[i], true
	}
	return Info{}, false
}

// byCode indexes the registry by code (built once, never changed):
// every finding made asks for its code's default severity.
var byCode = func() map[string]int {
	out := make(map[string]int, len(registry))
	for i, in := range registry {
		out[in.Code] = i
	}
	return out
}()

// DefaultSeverity is a code's severity unless the project's rules change
// it; an unregistered code (the tests forbid one) is an error, as it may
// be.
func DefaultSeverity(code string) Severity {
	if in, ok := Lookup(code); ok {
		return in.Severity
	}
	return SevError
}

// All returns every code's entry, sorted by code.
func All() []Info {
	out := append([]Info(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// ByKind returns the codes of one kind, in registry order.
func ByKind(k Kind) []Info {
	var out []Info
	for _, in := range registry {
		if in.Kind == k {
			out = append(out, in)
		}
	}
	return out
}

// Closest returns the registered code nearest to a misspelt one (at most
// a third of its letters different), or "" when none is close.
func Closest(code string) string {
	best, bestDist := "", len(code)/3+1
	for _, in := range All() {
		if d := editdist.Distance(code, in.Code); d < bestDist {
			best, bestDist = in.Code, d
		}
	}
	return best
}
