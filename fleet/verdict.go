package fleet

import (
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Fate is what one libpcp does with one definition, in a word and a
// line: the cell of the matrices across releases (check --pcp-version
// A,B) and across hosts.
type Fate struct {
	// Status: "valid", "syntax" (rejected while loading), "semantic"
	// (rejected while binding), "hidden" (an operand does not bind and
	// libpcp drops the metric without a word), "masked" (a real metric
	// of the name is used instead), "crashes" (binding or fetching it
	// crashes the tool: an expression too deep) or "not-registered".
	Status  string `json:"status"`
	Desc    string `json:"metadata,omitempty"`
	Message string `json:"message,omitempty"`
}

// Class groups fates the way a fleet report counts them.
type Class int

const (
	Valid   Class = iota // the metric exists, as defined
	Invalid              // libpcp rejects it, and says why
	Absent               // libpcp drops it silently
	Masked               // a real metric of the name is used instead
)

func (c Class) String() string {
	return [...]string{"valid", "invalid", "absent", "masked"}[c]
}

// Class is the fate's class.
func (f Fate) Class() Class {
	switch f.Status {
	case "valid":
		return Valid
	case "hidden":
		return Absent
	case "masked":
		return Masked
	}
	return Invalid
}

// FateOf is release v's fate for definition d, given the check's report
// (nil when the check ran without metadata).
func FateOf(v pcpver.Version, d *grammar.Definition, rep *checker.Report) Fate {
	var f Fate
	if !d.Verdict.OK {
		f.Status, f.Message = "syntax", d.Verdict.Message
		return f
	}
	if !d.Registered {
		f.Status = "not-registered"
		return f
	}
	if rep == nil {
		f.Status = "valid"
		return f
	}
	m := rep.ByName.Metric(d.Name)
	if m == nil || m.Def != d {
		f.Status = "not-registered"
		return f
	}
	switch m.Status {
	case checker.Valid:
		f.Status, f.Desc = "valid", checker.DescText(m.Desc)
	case checker.Masked:
		f.Status, f.Message = "masked", "a real metric of this name hides it"
	case checker.SemanticError:
		f.Status, f.Message = "semantic", m.Rendering()+": "+m.Message()
	case checker.Crashes:
		f.Status, f.Message = "crashes", m.Message()
	case checker.Unbound:
		f.Status, f.Message = "hidden", "unknown operand "+strings.Join(m.Unknown(), ", ")
		if v.Has(pcpver.UnknownOperandReported) {
			f.Status = "semantic"
			f.Message = "operand " + m.Unknown()[0] + ": Unknown operand metric"
		}
	default:
		f.Status = m.Status.String()
	}
	return f
}
