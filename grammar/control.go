package grammar

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// The derived-metric controls, in libpcp's table order (an abbreviation
// names the first that it starts).
var controlNames = [...]string{"GLOBAL_LIMIT", "CONTEXT_LIMIT", "DEBUG_SYNTAX", "DEBUG_SEMANTICS", "DEBUG_EVAL", "OPTION_NOVALUE"}

// controlDefaults are libpcp's values before anything sets them.
var controlDefaults = [len(controlNames)]int32{-1, -1, 0, 0, 0, 0}

// controls are libpcp's derived-metric controls as a process has them
// (PCP 7.1.1+): a value per control and whether $PCP_DERIVED_CONTROL set
// it, which a config's #control line may then not change.
type controls struct {
	value   [len(controlNames)]int32
	isSet   [len(controlNames)]bool // something set it (its value perhaps the default)
	fromEnv [len(controlNames)]bool // $PCP_DERIVED_CONTROL was the first to set it
	// novalueSet says an item set option_novalue (to the value it had,
	// perhaps): the file then has a setting of its own.
	novalueSet bool
}

func newControls() controls { return controls{value: controlDefaults} }

// envControl is what $PCP_DERIVED_CONTROL does before any config is read:
// the controls it leaves and libpcp's warnings about it.
type envControl struct {
	controls controls
	findings []Diagnostic
	set      controlSet
}

// controlSet is what libpcp prints reading the control items of line
// (0: $PCP_DERIVED_CONTROL) under PCP_DEBUG=derive: its warnings and
// each item set, in order (DeriveDebug).
type controlSet struct {
	line  int32
	lines []string
}

// readEnvControl reads $PCP_DERIVED_CONTROL as release v's libpcp does
// when it first sets up derived metrics: nil when v has no controls or
// the variable is unset. Its findings sit at the start of the file they
// are reported with, worded as coming from the environment.
func readEnvControl(value *string, v pcpver.Version) *envControl {
	if value == nil || !v.Has(pcpver.ControlLines) {
		return nil
	}
	env := &envControl{controls: newControls()}
	at := Range{Start: Pos{Line: 1, Col: 1}, End: Pos{Line: 1, Col: 1}}
	debug := controlSet{}
	env.controls.apply(*value, true, func(sev Severity, msg, pcp string) {
		line := "Warning: $PCP_DERIVED_CONTROL: " + pcp
		env.findings = append(env.findings, Diagnostic{Range: at, Severity: SeverityWarning, Code: codes.Control,
			Message: "$PCP_DERIVED_CONTROL: " + msg, PCP: []string{line}})
		debug.lines = append(debug.lines, line)
	}, func(item string) {
		debug.lines = append(debug.lines, "Derived metric control: $PCP_DERIVED_CONTROL: "+item+" set")
	})
	env.set = debug
	return env
}

// startControls are the controls libpcp has when it starts reading f:
// those an earlier file of the path left, or else those
// $PCP_DERIVED_CONTROL set, whose warnings f then reports.
func (f *File) startControls(opts Options) controls {
	if opts.ctl != nil {
		c := *opts.ctl
		c.novalueSet = false
		return c
	}
	env := readEnvControl(opts.DerivedControl, opts.Version)
	if env == nil {
		return newControls()
	}
	f.Diagnostics = append(f.Diagnostics, env.findings...)
	if len(env.set.lines) > 0 {
		f.controlsSet = append(f.controlsSet, env.set)
	}
	if env.controls.fromEnv[optionNovalue] {
		on := env.controls.value[optionNovalue] == 1
		f.OptionNovalue = &on
	}
	return env.controls
}

// control parses a pcp7 "#control name=value,..." line.
func (r *configReader) control(ln *logicalLine, rg Range) {
	if len(ln.buf) <= 9 {
		return
	}
	// libpcp skips "#control" and one more byte.
	debug := controlSet{line: int32(rg.Start.Line)}
	r.ctl.apply(string(ln.buf[9:]), false, func(sev Severity, msg, pcp string) {
		kind := "Warning"
		if sev == SeverityError {
			kind = "Error"
		}
		line := r.prefix(kind) + pcp
		r.diag(rg, sev, codes.Control, msg, []string{line})
		debug.lines = append(debug.lines, line)
	}, func(item string) {
		debug.lines = append(debug.lines, fmt.Sprintf("[%s:%d] derived metric control: %s set", r.f.Path, r.lineno, item))
	})
	if len(debug.lines) > 0 && !r.final {
		r.f.controlsSet = append(r.f.controlsSet, debug)
	}
	if r.ctl.novalueSet || r.ctl.fromEnv[optionNovalue] {
		on := r.ctl.value[optionNovalue] == 1
		r.f.OptionNovalue = &on
	}
}

const optionNovalue = 5 // controlNames' OPTION_NOVALUE

// apply sets the controls of NAME=VALUE items as libpcp's
// do_control_options does, telling warn of each item it refuses (its
// severity, our message and libpcp's, without libpcp's prefix): the name
// runs to the next "=" (commas included), the value is what strtol
// takes, and a "," goes on to the next item. fromEnv says the items are
// $PCP_DERIVED_CONTROL's (a missing "=" is then a warning, not an error).
// set, when not nil, is told of each item set, as written
// ("option_novalue=1").
func (c *controls) apply(items string, fromEnv bool, warn func(sev Severity, msg, pcp string), set func(item string)) {
	for ns := items; ; {
		eq := strings.IndexByte(ns, '=')
		if eq < 0 {
			sev := SeverityError
			if fromEnv {
				sev = SeverityWarning
			}
			warn(sev, fmt.Sprintf("missing \"=\" in derived metric control %q: libpcp ignores the rest of the line", ns),
				fmt.Sprintf("missing '=' in derived metric control (%s)", ns))
			return
		}
		name, vs := ns[:eq], ns[eq+1:]
		if vs == "" || vs[0] == ',' {
			warn(SeverityWarning, fmt.Sprintf("missing value in derived metric control %q: libpcp ignores the rest of the line", ns),
				fmt.Sprintf("missing value in derived metric control (%s)", ns))
			return
		}
		value, n := cStrtol(vs)
		ve := vs[n:]
		if ve != "" && ve[0] != ',' {
			warn(SeverityWarning, fmt.Sprintf("bad value %q for derived metric control %q: libpcp ignores the rest of the line", vs, name),
				fmt.Sprintf("bad value (%s) for derived metric control (%s)", vs, name))
			return
		}
		switch k := knownControl(name); {
		case k < 0:
			warn(SeverityWarning, fmt.Sprintf("unknown derived metric control %q (want global_limit, context_limit, debug_syntax, debug_semantics, debug_eval or option_novalue): libpcp ignores it", name),
				fmt.Sprintf("unknown derived metric control (%s)", name))
		default:
			if why := c.setControl(k, value, fromEnv); why != "" {
				warn(SeverityWarning, fmt.Sprintf("libpcp cannot set %s=%d: %s", strings.ToLower(controlNames[k]), value, why),
					fmt.Sprintf("failed to set derived metric control %s=%d: %s", name, value, why))
			} else if set != nil {
				set(fmt.Sprintf("%s=%d", name, value))
			}
		}
		if ve == "" {
			return
		}
		ns = ve[1:]
	}
}

// setControl is libpcp's setderivedcontrol while a config loads: the value the
// control has already is accepted as it is; one that differs from what
// $PCP_DERIVED_CONTROL set is refused to a config, then the value's range
// is checked. It returns libpcp's pmErrStr of a refusal, or "".
func (c *controls) setControl(k int, value int32, fromEnv bool) string {
	const badArg = "Bad value for function argument" // PM_ERR_ARG
	if controlNames[k] != "CONTEXT_LIMIT" {          // its value needs a context, and configs load before any exists
		if c.value[k] == value {
			if !c.isSet[k] { // the first setter wins, even of the value it had
				c.isSet[k], c.fromEnv[k] = true, fromEnv
			}
			c.novalueSet = c.novalueSet || k == optionNovalue
			return ""
		}
		if c.fromEnv[k] && !fromEnv {
			// "the setting from the environment always wins"
			return "Try again. Information not currently available" // PM_ERR_AGAIN
		}
	}
	switch controlNames[k] {
	case "GLOBAL_LIMIT":
		if value != -1 && value <= 0 {
			return badArg
		}
	case "CONTEXT_LIMIT":
		// libpcp checks the range first; a value in range needs a
		// context.
		if value != -1 && value <= 0 {
			return badArg
		}
		return "Attempt to use an illegal context" // PM_ERR_NOCONTEXT
	default: // the debug flags and option_novalue
		if value != 0 && value != 1 {
			return badArg
		}
	}
	c.value[k], c.isSet[k], c.fromEnv[k] = value, true, fromEnv
	c.novalueSet = c.novalueSet || k == optionNovalue
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

// knownControl is the index in controlNames of the control a name
// abbreviates (libpcp compares the name's length of each, in table order,
// ignoring case), or -1.
func knownControl(name string) int {
	for k, c := range controlNames {
		if len(name) <= len(c) && strings.EqualFold(name, c[:len(name)]) {
			return k
		}
	}
	return -1
}
