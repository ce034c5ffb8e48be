package checker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// renderNode renders a failing node as libpcp does.
func renderNode(n grammar.Node) string {
	if c, ok := n.(*colonNode); ok {
		return grammar.LibpcpLeaf(c.t.Then) + " : " + grammar.LibpcpLeaf(c.t.Else)
	}
	return grammar.LibpcpRendering(n)
}

// descText is DescText(d), remembered for the run: the semantic errors
// of a generated config describe the same few descriptors again and
// again, and formatting each anew shows in a big check's profile. At
// most maxDescTexts are kept.
func (c *checkRun) descText(d pmapi.Desc) string {
	d.PMID = 0 // not in the text
	if t, ok := c.descTexts[d]; ok {
		return t
	}
	t := DescText(d)
	if c.descTexts == nil {
		c.descTexts = map[pmapi.Desc]string{}
	}
	if len(c.descTexts) < maxDescTexts {
		c.descTexts[d] = t
	}
	return t
}

// DescText is a one-line summary of a descriptor for messages and hovers.
func DescText(d pmapi.Desc) string {
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	indom := "singular"
	if d.InDom != pmapi.InDomNull {
		indom = "indom " + d.InDom.String()
	}
	return fmt.Sprintf("%s %s, units %s, %s", typeText(d.Type), d.Sem, units, indom)
}

func typeText(t pmapi.Type) string {
	switch t {
	case pmapi.Type32:
		return "32-bit int"
	case pmapi.TypeU32:
		return "32-bit unsigned int"
	case pmapi.Type64:
		return "64-bit int"
	case pmapi.TypeU64:
		return "64-bit unsigned int"
	case pmapi.TypeFloat:
		return "float"
	case pmapi.TypeDouble:
		return "double"
	case pmapi.TypeString:
		return "string"
	case pmapi.TypeAggregate, pmapi.TypeAggregateStatic:
		return "aggregate"
	case pmapi.TypeEvent:
		return "event record array"
	case pmapi.TypeHighresEvent:
		return "highres event record array"
	}
	return t.String()
}

// constDesc is the descriptor libpcp gives a literal, mkconst or novalue.
// With meta=M (PCP 6.2.2+) it starts from M's descriptor and the other
// keys override it, as libpcp's bind_desc does; indom= (7.1) sets the
// instance domain.
func constDesc(n grammar.Node, version pcpver.Version, lookup func(string) (pmapi.Desc, bool)) (pmapi.Desc, error) {
	d := pmapi.Desc{PMID: pmapi.PMIDNull, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
	var specs []grammar.Spec
	switch n := n.(type) {
	case *grammar.Number:
		d.Type = pmapi.TypeU32
		if n.Double() {
			d.Type = pmapi.TypeDouble
		}
		return d, nil
	case *grammar.Mkconst:
		d.Type = pmapi.TypeU32
		if n.Value.Double() {
			d.Type = pmapi.TypeDouble
		}
		specs = n.Specs
	case *grammar.Novalue:
		d.Type = pmapi.Type32
		specs = n.Specs
	}
	for _, s := range specs {
		if s.Key != "meta" {
			continue
		}
		m, ok := lookup(s.Value)
		if !ok && !version.Has(pcpver.UnknownOperandReported) {
			// Before 7.1 the metric silently does not bind.
			return d, &unboundMeta{name: s.Value, at: s.At}
		}
		if !ok {
			return d, &semErr{node: n, msg: "Unknown operand metric", rendering: "operand " + s.Value}
		}
		d.Type, d.InDom, d.Sem, d.Units = m.Type, m.InDom, m.Sem, m.Units
	}
	for _, s := range specs {
		switch s.Key {
		case "indom":
			d.InDom = pmapi.InDomNull
			if dom, serial, ok := strings.Cut(s.Value, "."); ok {
				a, _ := strconv.ParseUint(dom, 10, 32)
				b, _ := strconv.ParseUint(serial, 10, 32)
				d.InDom = pmapi.InDom(uint32(a)<<22 | uint32(b))
			}
		case "type":
			d.Type = specType(s.Value)
		case "semantics":
			if sem, ok := pmapi.ParseSem(strings.ToLower(s.Value)); ok {
				d.Sem = sem
			}
		case "units":
			u, _, err := grammar.ParseUnits(s.Value, version)
			if err != nil {
				return d, err
			}
			d.Units = u
		}
	}
	return d, nil
}

// specType is a "type=" spec's type: one of the arithmetic types in any
// case, else DOUBLE.
func specType(v string) pmapi.Type {
	if t, ok := pmapi.ParseType(strings.ToUpper(v)); ok && t.Arithmetic() {
		return t
	}
	return pmapi.TypeDouble
}

// ConvFactors is release v's pmConvScale: PCP 5.3.0 made a dimensionless
// side stand for count^1.
func ConvFactors(v pcpver.Version) func(from, to pmapi.Units) (int64, int64, error) {
	if v.Has(pcpver.DimensionlessIsCount) {
		return pmapi.ConvFactors
	}
	return pmapi.ConvFactorsStrict
}

// maxDescTexts bounds checkRun.descTexts.
const maxDescTexts = 1024
