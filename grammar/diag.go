package grammar

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
)

// Severity ranks a diagnostic: the module's one severity (codes.Severity),
// whose values follow LSP's DiagnosticSeverity so the language server can
// pass them through unchanged.
type Severity = codes.Severity

// The severities, most severe first.
const (
	SeverityError   = codes.SevError
	SeverityWarning = codes.SevWarning
	SeverityInfo    = codes.SevInfo
	SeverityHint    = codes.SevHint
)

// Pos is a position in a config file, on libpcp's lines (to "\n"): Line
// and Col are 1-based, Col counts bytes; Col16 is the 0-based column in
// UTF-16 code units, which LSP clients count by default. A client also
// ends a line at a lone "\r": File.Position converts a Pos to its
// position. It holds no byte offset into the
// file (File.OffsetOf gives it): an edit of one line then leaves every
// position on the other lines as it was, so the definitions, attributes
// and findings after an editor's keystroke are the earlier version's own
// values, not copies moved by the change's length.
type Pos struct {
	Line  int32
	Col   int32
	Col16 int32
}

// Compare orders positions of one file: -1 when p is before q, 0 when
// they are the same place, +1 when p is after q.
func (p Pos) Compare(q Pos) int {
	if c := cmp.Compare(p.Line, q.Line); c != 0 {
		return c
	}
	return cmp.Compare(p.Col, q.Col)
}

// Before reports whether p is before q in their file.
func (p Pos) Before(q Pos) bool { return p.Compare(q) < 0 }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Range is a half-open span [Start, End) of a file.
type Range struct {
	Start, End Pos
}

// Diagnostic is one finding about a config file. Code is stable across
// releases (users suppress by it); Message is for humans. PCP, when set, is
// what libpcp itself prints for the same problem, line by line, so that
// `check --format pcp` can reproduce libpcp's stderr byte for byte.
type Diagnostic struct {
	Range    Range
	Severity Severity
	Code     string
	Message  string
	PCP      []string
	// Related points at other places that explain the finding (an
	// operand's metadata, the earlier definition of a duplicate).
	Related []Related
	// Fixes are edits that would resolve it (quick fixes in an editor).
	Fixes []Fix
	// More, when positive, makes this finding a stand-in for More
	// findings of its code and severity in the file that are not listed
	// one by one (FindingCap: Options.MaxPerCode, and the checker's); it
	// sits where the first of them is.
	More int
}

// Count is how many findings d stands for: one, or More for a stand-in.
func (d *Diagnostic) Count() int {
	if d.More > 0 {
		return d.More
	}
	return 1
}

// Related is a location and a note about it.
type Related struct {
	Range   Range
	Message string
}

// Fix is one way to resolve a diagnostic: a title and text edits.
type Fix struct {
	Title string
	Edits []Edit
	// Safe marks a fix that cannot change what the user meant (quotes
	// libpcp would keep in an instance name, a misspelt finding code):
	// check --fix applies it without asking. Fixes that choose between
	// meanings (a guess at a metric name, a rescale) are for editors.
	Safe bool
}

// Edit replaces Range with NewText.
type Edit struct {
	Range   Range
	NewText string
}

// Within reports whether p lies inside r (inclusive of r's end).
func (p Pos) Within(r Range) bool { return p.Compare(r.Start) >= 0 && p.Compare(r.End) <= 0 }

// FindingCap counts a file's findings by code and severity, and past Max
// of a kind keeps them only as a count in one stand-in (Diagnostic.More)
// where the first of them is. Findings Suppressed reports (a suppression
// comment turns them off) are not counted. The zero value caps nothing.
type FindingCap struct {
	Max        int // 0: no cap
	Suppressed func(*File, Diagnostic) bool
	kinds      kindTable
	listed     []int         // by kind
	omitted    []*Diagnostic // by kind: the stand-in, nil while none is omitted
}

type findingKind struct {
	code string
	sev  Severity
}

// kindTable numbers the kinds of findings met, in the order met. A file
// has a handful (the codes are the registry's, some sixty), and a look-up
// is a comparison or two, the codes being the same strings: a map hashed
// the code of every finding, 12,500 of them twice on each keystroke in a
// document over the cap.
type kindTable struct {
	kinds []findingKind
	last  int
}

// index is the number of d's kind, and whether it is new.
func (t *kindTable) index(d *Diagnostic) (int, bool) {
	if t.last < len(t.kinds) {
		if k := t.kinds[t.last]; k.sev == d.Severity && k.code == d.Code {
			return t.last, false
		}
	}
	for i, k := range t.kinds {
		if k.sev == d.Severity && k.code == d.Code {
			t.last = i
			return i, false
		}
	}
	t.kinds = append(t.kinds, findingKind{d.Code, d.Severity})
	t.last = len(t.kinds) - 1
	return t.last, true
}

// Omit reports whether d, a finding of f, is only counted (Max of its
// kind are listed), and counts it.
func (c *FindingCap) Omit(f *File, d Diagnostic) bool { return c.OmitAt(f, d, d.Range.Start) }

// OmitAt is Omit with whether a suppression comment turns d off judged
// as for a finding at at: its definition's start, for a reader that does
// not have the file's definitions yet.
func (c *FindingCap) OmitAt(f *File, d Diagnostic, at Pos) bool {
	if c.Max <= 0 {
		return false
	}
	if c.Suppressed != nil {
		judged := d
		judged.Range.Start = at
		if c.Suppressed(f, judged) {
			return false
		}
	}
	k := c.kind(&d)
	if c.listed[k] < c.Max {
		c.listed[k]++
		return false
	}
	s := c.omitted[k]
	if s == nil {
		s = &Diagnostic{Range: d.Range, Severity: d.Severity, Code: d.Code}
		c.omitted[k] = s
	}
	s.More++
	if d.Range.Start.Before(s.Range.Start) {
		s.Range = d.Range
	}
	return true
}

// OmitIfFull counts d and reports true when Max findings of its kind are
// listed already, so that Omit would only count it; otherwise it changes
// nothing and reports false.
func (c *FindingCap) OmitIfFull(f *File, d Diagnostic) bool {
	if c.Max <= 0 {
		return false
	}
	if c.listed[c.kind(&d)] < c.Max {
		return false
	}
	return c.Omit(f, d)
}

// kind is the number of d's kind, counted from now on.
func (c *FindingCap) kind(d *Diagnostic) int {
	k, isNew := c.kinds.index(d)
	if isNew {
		c.listed, c.omitted = append(c.listed, 0), append(c.omitted, nil)
	}
	return k
}

// StandIns are the stand-ins for the omitted findings, by code and
// severity.
func (c *FindingCap) StandIns() []Diagnostic {
	var out []Diagnostic
	for _, s := range c.omitted {
		if s == nil {
			continue
		}
		s := *s
		s.Message = fmt.Sprintf("%d more %s findings in this file are not listed (%d of a code are): check --max-per-code 0 lists every one", s.More, s.Code, c.Max)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(strings.Compare(a.Code, b.Code), cmp.Compare(a.Severity, b.Severity))
	})
	return out
}

// OverCap reports whether diags have more than limit findings of one
// code and severity that count against it (limit > 0; suppressed may be
// nil): a capped analysis would list limit of them and stand one in for
// the rest.
func OverCap(f *File, diags []Diagnostic, limit int, suppressed func(*File, Diagnostic) bool) bool {
	if limit <= 0 || len(diags) <= limit {
		return false
	}
	return overCap(f, slices.Values(diags), limit, suppressed)
}

func overCap(f *File, seq iter.Seq[Diagnostic], limit int, suppressed func(*File, Diagnostic) bool) bool {
	var kinds kindTable
	var n []int
	for d := range seq {
		if suppressed != nil && suppressed(f, d) {
			continue
		}
		k, isNew := kinds.index(&d)
		if isNew {
			n = append(n, 0)
		}
		if n[k]++; n[k] > limit {
			return true
		}
	}
	return false
}

// CapFindings is diags as a capped read or check of f would have listed
// them (FindingCap): at most limit findings of a code and severity, the
// first in diags' order, and a stand-in for the rest of each, the list
// then sorted by position (stable). diags is returned as it is, without
// a copy, when no kind has more than limit. It lets an analysis keep
// every finding, so that an edit can be analysed from the lines it
// touches, and still show what the capped analysis shows.
func CapFindings(f *File, diags []Diagnostic, limit int, suppressed func(*File, Diagnostic) bool) []Diagnostic {
	if !OverCap(f, diags, limit, suppressed) {
		return diags
	}
	return capped(f, slices.Values(diags), limit, suppressed)
}

// CapFindingsSeq is CapFindings of the findings seq yields (a checker
// report's shared list): the capped list and true when some kind has
// more than limit, nil and false when seq is listed as it is.
func CapFindingsSeq(f *File, seq iter.Seq[Diagnostic], limit int, suppressed func(*File, Diagnostic) bool) ([]Diagnostic, bool) {
	if limit <= 0 || !overCap(f, seq, limit, suppressed) {
		return nil, false
	}
	return capped(f, seq, limit, suppressed), true
}

// capped lists the findings of seq a capped analysis lists, and the
// stand-ins, sorted by position.
func capped(f *File, seq iter.Seq[Diagnostic], limit int, suppressed func(*File, Diagnostic) bool) []Diagnostic {
	c := FindingCap{Max: limit, Suppressed: suppressed}
	var out []Diagnostic
	for d := range seq {
		if !c.Omit(f, d) {
			out = append(out, d)
		}
	}
	// Sized for what is listed: a list sized for every finding (100,000)
	// would be kept by each version's shown findings.
	out = slices.Concat(out, c.StandIns())
	slices.SortStableFunc(out, func(a, b Diagnostic) int { return a.Range.Start.Compare(b.Range.Start) })
	return out
}
