package grammar

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
)

// control parses a pcp7 "#control name=value,..." line.
func (r *configReader) control(ln *logicalLine, rg Range) {
	if len(ln.buf) <= 9 {
		return
	}
	// libpcp skips "#control" and one more byte, then reads NAME=VALUE
	// items: the name runs to the next "=" (commas included), the value
	// is what strtol takes, and a "," goes on to the next item.
	for ns := string(ln.buf[9:]); ; {
		eq := strings.IndexByte(ns, '=')
		if eq < 0 {
			r.diag(rg, SeverityError, codes.Control, fmt.Sprintf("missing \"=\" in derived metric control %q: libpcp ignores the rest of the line", ns),
				[]string{r.prefix("Error") + fmt.Sprintf("missing '=' in derived metric control (%s)", ns)})
			return
		}
		name, vs := ns[:eq], ns[eq+1:]
		if vs == "" || vs[0] == ',' {
			r.diag(rg, SeverityWarning, codes.Control, fmt.Sprintf("missing value in derived metric control %q: libpcp ignores the rest of the line", ns),
				[]string{r.prefix("Warning") + fmt.Sprintf("missing value in derived metric control (%s)", ns)})
			return
		}
		value, n := cStrtol(vs)
		ve := vs[n:]
		if ve != "" && ve[0] != ',' {
			r.diag(rg, SeverityWarning, codes.Control, fmt.Sprintf("bad value %q for derived metric control %q: libpcp ignores the rest of the line", vs, name),
				[]string{r.prefix("Warning") + fmt.Sprintf("bad value (%s) for derived metric control (%s)", vs, name)})
			return
		}
		switch control := knownControl(name); {
		case control == "":
			r.diag(rg, SeverityWarning, codes.Control, fmt.Sprintf("unknown derived metric control %q (want global_limit, context_limit, debug_syntax, debug_semantics, debug_eval or option_novalue): libpcp ignores it", name),
				[]string{r.prefix("Warning") + fmt.Sprintf("unknown derived metric control (%s)", name)})
		default:
			if why := controlRefusal(control, value); why != "" {
				r.diag(rg, SeverityWarning, codes.Control, fmt.Sprintf("libpcp cannot set %s=%d: %s", strings.ToLower(control), value, why),
					[]string{r.prefix("Warning") + fmt.Sprintf("failed to set derived metric control %s=%d: %s", name, value, why)})
			} else if control == "OPTION_NOVALUE" {
				on := value == 1
				r.f.OptionNovalue = &on
			}
		}
		if ve == "" {
			return
		}
		ns = ve[1:]
	}
}

// controlRefusal is libpcp's pmErrStr for a control value it will not
// set while a config loads, or "".
func controlRefusal(control string, value int32) string {
	const badArg = "Bad value for function argument" // PM_ERR_ARG
	switch control {
	case "GLOBAL_LIMIT":
		if value != -1 && value <= 0 {
			return badArg
		}
	case "CONTEXT_LIMIT":
		// libpcp checks the range first; a value in range needs a
		// context, and configs load before any exists.
		if value != -1 && value <= 0 {
			return badArg
		}
		return "Attempt to use an illegal context" // PM_ERR_NOCONTEXT
	default: // the debug flags and option_novalue
		if value != 0 && value != 1 {
			return badArg
		}
	}
	return ""
}

// cStrtol is (int)strtol(s, &end, 10): the value truncated to 32 bits as
// C's cast does, and how many bytes strtol read (0 when s holds no number,
// as strtol leaves end at the start then).
func cStrtol(s string) (int32, int) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var v uint64
	for i < len(s) && isDigit(s[i]) {
		if v < 1<<62 {
			v = v*10 + uint64(s[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, 0
	}
	if v > 1<<63-1 {
		v = 1<<63 - 1 // strtol saturates at LONG_MAX
	}
	n := int64(v)
	if neg {
		n = -n
	}
	return int32(n), i
}

// knownControl is the control a name abbreviates (libpcp compares the
// name's length of each, in table order, ignoring case), or "".
func knownControl(name string) string {
	for _, c := range []string{"GLOBAL_LIMIT", "CONTEXT_LIMIT", "DEBUG_SYNTAX", "DEBUG_SEMANTICS", "DEBUG_EVAL", "OPTION_NOVALUE"} {
		if len(name) <= len(c) && strings.EqualFold(name, c[:len(name)]) {
			return c
		}
	}
	return ""
}
