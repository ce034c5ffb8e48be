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
