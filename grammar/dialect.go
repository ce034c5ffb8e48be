package grammar

import "fmt"

// Dialect selects which libpcp the language follows.
type Dialect int

const (
	// PCP7 is the latest PCP (7.2): novalue(), delta/rate/instant of any
	// expression, mkconst meta=/indom=, continuation lines, #control lines.
	PCP7 Dialect = iota
	// PCP6 is PCP 6.0–6.2, the libpcp Debian 12 ships (6.0.3).
	PCP6
)

func (d Dialect) String() string {
	switch d {
	case PCP6:
		return "pcp6"
	case PCP7:
		return "pcp7"
	}
	return fmt.Sprintf("dialect(%d)", int(d))
}

// ParseDialect reads "pcp6" or "pcp7".
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "pcp6":
		return PCP6, nil
	case "pcp7":
		return PCP7, nil
	}
	return PCP7, fmt.Errorf("unknown dialect %q (want pcp6 or pcp7)", s)
}

// NewerConstruct is a construct that a dialect's libpcp does not have.
type NewerConstruct struct {
	What    string // e.g. "novalue()"
	Version string // the PCP release that introduced it
	At      Span
}

// newerConstructs lists the pcp7 constructs in a tree that PCP 6.0–6.2
// reject, in source order.
func newerConstructs(root Node) []NewerConstruct {
	var out []NewerConstruct
	specs := func(ss []Spec) {
		for _, s := range ss {
			switch {
			case s.Key == "meta":
				out = append(out, NewerConstruct{"meta= in a spec list", "6.2.2", s.At})
			case s.Key == "indom":
				out = append(out, NewerConstruct{"indom= in a spec list", "7.1.0", s.At})
			case isDoubleLiteral(s.Value):
				out = append(out, NewerConstruct{"a floating point spec value", "7.1.0", s.ValueAt})
			case s.Key == "units" && needsExtraUnits(s.Value):
				out = append(out, NewerConstruct{"extra units (temperature, voltage, current, power)", "7.2.0", s.ValueAt})
			}
		}
	}
	Walk(root, func(n Node) bool {
		switch n := n.(type) {
		case *Novalue:
			out = append(out, NewerConstruct{"novalue()", "6.2.2", n.At})
			specs(n.Specs)
		case *Mkconst:
			specs(n.Specs)
		case *Rescale:
			if needsExtraUnits(n.Units) {
				out = append(out, NewerConstruct{"extra units (temperature, voltage, current, power)", "7.2.0", n.At})
			}
		case *Call:
			switch n.Func {
			case "delta", "rate", "instant":
				if _, ok := n.Arg.(*Metric); !ok || n.Arg.(*Metric).Inst != nil {
					out = append(out, NewerConstruct{n.Func + "() of an expression", "6.3.0", n.At})
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
