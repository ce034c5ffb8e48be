package htop

import "github.com/pcp-derive-lsp/pcp-derive-lsp/codes"

// The finding codes of the htop reader. Their registry entries are Codes,
// written to move into codes/codes.go as they are.
const (
	CodeNotRead          = "htop-not-read"
	CodeNotHtop          = "htop-no-sections"
	CodeOutside          = "htop-outside-section"
	CodeBadName          = "htop-bad-name"
	CodeDuplicateSection = "htop-duplicate-section"
	CodeLongName         = "htop-long-name"
	CodeEmptyName        = "htop-empty-name"
	CodeNoValue          = "htop-no-value"
	CodeValueCut         = "htop-value-cut"
	CodeUnknownKey       = "htop-unknown-key"
	CodeUnknownColor     = "htop-unknown-color"
	CodeBadWidth         = "htop-bad-width"
	CodeBadValue         = "htop-bad-value"
	CodeInert            = "htop-inert-key"
	CodeDuplicateKey     = "htop-duplicate-key"
	CodeDuplicateMetric  = "htop-duplicate-metric"
	CodeNoMetric         = "htop-no-metric"
	CodeScreenColumnName = "htop-screen-column-name"
	CodeNUL              = "htop-nul-byte"
	CodeLostLine         = "htop-lost-line"
)

// ExampleKind is the kind of file each code's Example is (a meter file
// unless listed), for the analysis' example test: check it as
// /etc/pcp/htop/KIND.Dir()/example.
func ExampleKind(code string) Kind {
	switch code {
	case CodeBadWidth, CodeBadValue:
		return Column
	case CodeScreenColumnName:
		return Screen
	}
	return Meter
}

// Codes are the registry entries of the htop reader's codes, in the
// shape of codes/codes.go (Kind codes.File until the registry has a kind
// for the tools' files). Their Examples are files of ExampleKind, for
// Release "" (the latest) unless set.
var Codes = []codes.Info{
	{
		Code: CodeNotRead, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "this release's pcp-htop does not read this kind of file",
		Behaviour: "pcp-htop reads meters from PCP 5.3.2, columns from 5.3.3 and screens from 6.1.0; older releases read no such file at all (PCP 5.2.6 has no dynamic meters, columns or screens).",
		Example:   "[load]\ncaption = Load\nl.metric = kernel.all.load\n", Release: "5.2.6",
		FixNote: "Check for the release the file is meant for, or upgrade PCP.",
	},
	{
		Code: CodeNotHtop, Kind: codes.File, Severity: codes.SevError,
		Summary:   "no [section] header: htop reads nothing from the file",
		Behaviour: "htop's parser ignores every line before the first `[NAME]` header without a word, so a file without one (a binary file, a derived-metric config, anything else put in a meters/, columns/ or screens/ directory) defines nothing.",
		Example:   "load = kernel.all.load\n",
		Fix:       "[load]\ncaption = Load\nl.metric = kernel.all.load\n",
		FixNote:   "Start each meter, column or screen with a `[NAME]` header, or move the file out of htop's directory.",
	},
	{
		Code: CodeOutside, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "a line before the first [section] header is ignored",
		Behaviour: "htop applies a key to the current meter, column or screen; before the first header there is none, and the line is dropped silently.",
		Example:   "caption = Load\n[load]\nl.metric = kernel.all.load\n",
		Fix:       "[load]\ncaption = Load\nl.metric = kernel.all.load\n",
		FixNote:   "Move the line under its header.",
	},
	{
		Code: CodeBadName, Kind: codes.File, Severity: codes.SevError,
		Summary:   "htop refuses the section name and skips the section",
		Behaviour: "A meter, column or screen name becomes part of a metric name and of htoprc, so htop accepts only a letter or `_` followed by letters, digits or `_`, up to the last `]` of the header. For anything else it prints `pcp-htop: invalid meter name at PATH line N` and the name in quotes (or `no closing brace on meter name`; `column`, `screen` for those files) and skips every line up to the next header. The message goes to stderr just as the full-screen display starts, so it is easily missed. In columns before PCP 7.1.1, the skipped lines go on setting the column before the header.",
		Example:   "[disk-io]\ncaption = Disk\nr.metric = disk.all.read\n",
		Fix:       "[disk_io]\ncaption = Disk\nr.metric = disk.all.read\n",
		FixNote:   "Use letters, digits and `_` only (a `-` is the usual culprit), and close the header with `]`.",
	},
	{
		Code: CodeDuplicateSection, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "the section name is already defined: htop skips this one",
		Behaviour: "htop reads its directories in order ($PCP_HTOP_DIR, ~/.config/htop, $PCP_SYSCONF_DIR/htop, $PCP_SHARE_DIR/htop) and keeps the first meter, column or screen of each name; a later one is skipped without a word. In columns before PCP 7.1.1 the skipped section's lines go on setting the column before it in the same file, and a `metric` line there registers that column's metric a second time, which is fatal (`htop-duplicate-metric`).",
		Example:   "[load]\nl.metric = kernel.all.load\n[load]\nm.metric = mem.util.free\n",
		Fix:       "[load]\nl.metric = kernel.all.load\n[mem]\nm.metric = mem.util.free\n",
		FixNote:   "Rename one of them (a user file meant to replace a shipped one replaces it whole: the shipped one is skipped).",
	},
	{
		Code: CodeLongName, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "htop cuts the section name to 31 bytes",
		Behaviour: "htop stores a name in 32 bytes: a longer one is cut, the metrics are registered under the cut name, and the check for an earlier definition compares the whole name with the cut ones, so two long names that share their first 31 bytes both pass it and then register the same metric names (fatal).",
		Example:   "[a_very_long_meter_name_for_the_disks]\nr.metric = disk.all.read\n",
		Fix:       "[disks]\nr.metric = disk.all.read\n",
		FixNote:   "Use a name of 31 bytes or fewer.",
	},
	{
		Code: CodeEmptyName, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "an empty section name `[]`",
		Behaviour: "htop's name check passes an empty name: a meter's metrics are then registered as `htop.meter..X`, a column's metric is never registered (the column has no values), and the meter or column cannot be chosen by name in htoprc. PCP 6.3.8's pcp-htop, given an empty name in each of its meter, column and screen files at once, was seen to corrupt its heap and abort (`realloc(): invalid next size`).",
		Example:   "[]\nr.metric = disk.all.read\n",
		Fix:       "[disk]\nr.metric = disk.all.read\n",
		FixNote:   "Name the section.",
	},
	{
		Code: CodeNoValue, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "a line without `=` or without a value is ignored",
		Behaviour: "htop splits each line at `=` and needs a value after it; `total.color: blue` (a `:` as in other INI files) or `x.metric =` is dropped silently.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.color: blue\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nl.color = blue\n",
		FixNote:   "Write `key = value`.",
	},
	{
		Code: CodeValueCut, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "before PCP 7.1.1, htop keeps only the text up to a second `=`",
		Behaviour: "pcp-htop up to PCP 7.1.0 splits a line at every `=` and uses the text between the first and the second as the value, silently: `one.metric = sample.long.one == 1 ? 10 : 20` registers `sample.long.one`, and `mkconst(1, type=double)` is cut after `type`. PCP 7.1.1 and later split at the first `=` only.",
		Example:   "[t]\none.metric = kernel.all.load == 1 ? 10 : 20\n", Release: "6.0.3",
		FixNote: "Avoid `=` in values for these releases: compare with `>= 1 && <= 1`, `!(x != 1)`, or drop the spec list of `mkconst`.",
	},
	{
		Code: CodeUnknownKey, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "htop ignores the key",
		Behaviour: "htop compares each key with the few it knows and drops any other without a word: a meter knows `caption`, `description`, `type`, `maximum` and `X.metric`, `X.color`, `X.label`, `X.suffix`; a column `metric`, `heading`, `caption`, `description`, `width` and (PCP 6.1.0+) `format`, `instances`, `default`/`enabled`; a screen `heading`, `caption`, `sortKey`, `sortDirection`, `default`/`enabled` and per column `X.metric`, `X.heading`, `X.caption`, `X.description`, `X.width`, `X.format`, `X.instances`, `X.default`. An unknown `X.attr` in a meter or screen still adds an `X` with no metric.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.colour = red\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nl.color = red\n",
		FixNote:   "Spell the key as htop does (American `color`, case-sensitive `sortKey`).",
	},
	{
		Code: CodeUnknownColor, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "htop knows no such colour and ignores it",
		Behaviour: "A meter metric's colour must be one of `gray darkgray red green blue cyan magenta yellow white`, exactly (lower case); anything else leaves the default colour, silently.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.color = Red\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nl.color = red\n",
		FixNote:   "Use one of htop's colour names.",
	},
	{
		Code: CodeBadWidth, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "a column width htop does not use as written",
		Behaviour: "htop reads a width with `atoi` (`strtoul` before PCP 6.1.0): it stops at the first byte that is not a digit, so `8px` is 8 and `wide` is 0; a width of 0 or wider than 64 (28 before PCP 6.1.0) falls back to the default, 5 left-aligned. A negative width aligns left.",
		Example:   "[c]\nmetric = proc.psinfo.rss\nwidth = 100\n",
		Fix:       "[c]\nmetric = proc.psinfo.rss\nwidth = 10\n",
		FixNote:   "Give an integer from 1 to 64 (or -1 to -64).",
	},
	{
		Code: CodeBadValue, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "a value htop does not recognise",
		Behaviour: "htop compares `instances` with `true`/`True` only and `default`/`enabled` with `false`/`False` only, so `yes`, `1` or `TRUE` mean the other thing; a `format` other than `percent process command device cgroup` shows the column unformatted; `sortDirection` is read with `atoi`.",
		Example:   "[c]\nmetric = proc.psinfo.rss\ninstances = yes\n",
		Fix:       "[c]\nmetric = proc.psinfo.rss\ninstances = true\n",
		FixNote:   "Use the words htop compares with.",
	},
	{
		Code: CodeInert, Kind: codes.File, Severity: codes.SevInfo,
		Summary:   "htop stores the key but never uses it",
		Behaviour: "A meter's `type` and `maximum` are read (type compared untrimmed, so `type = bar` with blanks never matches) but no pcp-htop release uses them: the meter's mode is chosen in the setup screen.",
		Example:   "[load]\ntype = bar\nl.metric = kernel.all.load\n",
		Fix:       "[load]\nl.metric = kernel.all.load\n",
		FixNote:   "Remove the line, or keep it as documentation.",
	},
	{
		Code: CodeDuplicateKey, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "the key is set twice: htop uses the later value",
		Behaviour: "htop overwrites a setting silently each time it reads it again, so only the last line counts (for `metric` lines a repeat is fatal instead: `htop-duplicate-metric`).",
		Example:   "[load]\ncaption = Load\ncaption = CPU load\nl.metric = kernel.all.load\n",
		Fix:       "[load]\ncaption = CPU load\nl.metric = kernel.all.load\n",
		FixNote:   "Keep one.",
	},
	{
		Code: CodeDuplicateMetric, Kind: codes.File, Severity: codes.SevError,
		Summary:   "the metric name is registered twice: pcp-htop exits",
		Behaviour: "Each `X.metric` (or a column's `metric`) registers a global derived metric named after the meter, column or screen; a second one of the same name fails with `Duplicate global derived metric name`, which pcp-htop treats as a parse error: it prints `pcp-htop: failed to parse expression in PATH at line N`, libpcp's error and exits with status 2. It happens with a repeated `metric` line, two long names alike in their first 31 bytes, and, before PCP 7.1.1, a user column named like a shipped one that is not the first of its file.",
		Example:   "[load]\nl.metric = kernel.all.load\nl.metric = kernel.all.load[1]\n",
		Fix:       "[load]\nl.metric = kernel.all.load\nm.metric = kernel.all.load[1]\n",
		FixNote:   "Give each metric its own X (or each column its own section).",
	},
	{
		Code: CodeNoMetric, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "a meter, column or screen column with no metric",
		Behaviour: "A meter without `X.metric`, a column without `metric`, or an `X.label`/`X.color` (meters) or `X.heading` (screens) whose `X.metric` is missing: htop accepts it, but the meter shows nothing and the column never has a value.",
		Example:   "[load]\ncaption = Load\nl.color = red\n",
		Fix:       "[load]\ncaption = Load\nl.color = red\nl.metric = kernel.all.load\n",
		FixNote:   "Add the metric line (or check the spelling of X in the other lines).",
	},
	{
		Code: CodeScreenColumnName, Kind: codes.File, Severity: codes.SevError,
		Summary:   "`SCREEN:COLUMN` is longer than 31 bytes",
		Behaviour: "htop names a screen's column `SCREEN:COLUMN` in 32 bytes. From PCP 7.0.0 a column whose name does not fit is dropped without a word; PCP 6.1.0 to 6.3.x pcp-htop crashes (segmentation fault) reading the line.",
		Example:   "[processes_by_state]\nthe_process_identifier.metric = proc.psinfo.pid\n",
		Fix:       "[processes_by_state]\npid.metric = proc.psinfo.pid\n",
		FixNote:   "Shorten the screen or the column name.",
	},
	{
		Code: CodeNUL, Kind: codes.File, Severity: codes.SevError,
		Summary:   "a NUL byte: htop's line ends there and the next lines are lost",
		Behaviour: "htop reads a line with fgets 1024 bytes at a time and looks for its newline with strrchr, which stops at a NUL: the line's text ends at the NUL, and htop reads on over the following lines as part of it until a chunk shows a newline before any NUL, so those lines are never read. A binary file put in htop's directory reads as a few fragments.",
		NoExample: "a NUL byte cannot be shown in an example.",
		FixNote:   "Remove the NUL byte, or the file if it is not an htop config.",
	},
	{
		Code: CodeLostLine, Kind: codes.File, Severity: codes.SevWarning,
		Summary:   "htop drops the last line",
		Behaviour: "When the last line of a file has no newline and its final 1024-byte read ends exactly at the end of the file (a 1024-byte last line, or the lines after a NUL), htop's String_readLine reads nothing more and returns no line at all: the text is lost.",
		NoExample: "the example would be a line of exactly 1024 bytes.",
		FixNote:   "End the file with a newline.",
	},
}
