package grammar

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"

// NewerConstruct is a construct that the target release's libpcp does not
// have: the feature, and where it is used.
type NewerConstruct struct {
	What    string // e.g. "novalue()"
	Feature pcpver.Feature
	At      Span
}

// Since is the release that introduced the construct.
func (c NewerConstruct) Since() pcpver.Version { return c.Feature.Since() }

// NewerConstructs lists, in source order, the constructs in a tree that
// release v does not accept.
func NewerConstructs(root Node, v pcpver.Version) []NewerConstruct {
	var out []NewerConstruct
	add := func(what string, f pcpver.Feature, at Span) {
		if !v.Has(f) {
			out = append(out, NewerConstruct{what, f, at})
		}
	}
	specs := func(ss []Spec) {
		for _, s := range ss {
			switch {
			case s.Key == "meta":
				add("meta= in a spec list", pcpver.MetaSpec, s.At)
			case s.Key == "indom":
				add("indom= in a spec list", pcpver.IndomSpec, s.At)
			case isDoubleLiteral(s.Value):
				add("a floating point spec value", pcpver.IndomSpec, s.ValueAt)
			case s.Key == "units" && needsExtraUnits(s.Value):
				add("extra units (temperature, voltage, current, power)", pcpver.ExtraUnits, s.ValueAt)
			}
		}
	}
	Walk(root, func(n Node) bool {
		switch n := n.(type) {
		case *Novalue:
			add("novalue()", pcpver.Novalue, n.At)
			specs(n.Specs)
		case *Mkconst:
			specs(n.Specs)
		case *Rescale:
			if needsExtraUnits(n.Units) {
				add("extra units (temperature, voltage, current, power)", pcpver.ExtraUnits, n.At)
			}
		case *Call:
			switch n.Func {
			case "delta", "rate", "instant":
				if m, ok := n.Arg.(*Metric); !ok || m.Inst != nil {
					add(n.Func+"() of an expression", pcpver.DeltaOfExpr, n.At)
				}
			}
		}
		return true
	})
	return out
}

func isDoubleLiteral(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.' && !dot:
			dot = true
		case !isDigit(s[i]):
			return false
		}
	}
	return dot
}
