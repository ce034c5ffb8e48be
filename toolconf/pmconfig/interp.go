package pmconfig

import (
	"fmt"
	"strings"
)

// maxInterpolationDepth is configparser's MAX_INTERPOLATION_DEPTH.
const maxInterpolationDepth = 10

// maxInterpolated bounds what one value may expand to: ten levels of
// references that each repeat the next twice make a thousand copies.
const maxInterpolated = 1 << 20

// InterpError is an exception BasicInterpolation raises for a value,
// where in the file it arises.
type InterpError struct {
	Off, End int
	// Class is the Python exception's class (InterpolationSyntaxError,
	// InterpolationMissingOptionError, InterpolationDepthError), Python
	// its str(), Message ours.
	Class, Python, Message string
	// Doubled says that writing the "%" as "%%" is the fix.
	Doubled bool
}

func (e *InterpError) Error() string { return e.Message }

// Interpolate returns e's value in section s as ConfigParser.get returns
// it with BasicInterpolation: "%%" is "%", "%(name)s" the value of name
// in s or [DEFAULT], interpolated in turn. The result's spans map each
// piece to where it came from (a substituted value to its own entry).
func (f *INI) Interpolate(s *Section, e *Entry) (Value, *InterpError) {
	if strings.IndexByte(e.Value.Text, '%') < 0 {
		return e.Value, nil
	}
	in := interpolation{f: f, s: s, top: e}
	if err := in.some(e.Value, 1); err != nil {
		return Value{}, err
	}
	return Value{Text: in.out.String(), Spans: in.spans, End: e.Value.End}, nil
}

type interpolation struct {
	f     *INI
	s     *Section
	top   *Entry
	out   strings.Builder
	spans []Span
}

// emit appends text that starts at file offset off.
func (in *interpolation) emit(text string, off int) {
	if text == "" {
		return
	}
	if n := len(in.spans); n == 0 || in.spans[n-1].Off+in.out.Len()-in.spans[n-1].At != off {
		in.spans = append(in.spans, Span{At: in.out.Len(), Off: off})
	}
	in.out.WriteString(text)
}

// lookup is the entry a reference names: the section's, else [DEFAULT]'s.
func (in *interpolation) lookup(name string) *Entry {
	if e := in.s.Get(name); e != nil {
		return e
	}
	return in.f.Default.Get(name)
}

// some is BasicInterpolation._interpolate_some over v.
func (in *interpolation) some(v Value, depth int) *InterpError {
	if depth > maxInterpolationDepth {
		return &InterpError{Off: in.top.Value.Offset(0), End: in.top.Value.End, Class: "InterpolationDepthError",
			Python: fmt.Sprintf("Recursion limit exceeded in value substitution: option %s in section %s contains an interpolation key which cannot be substituted in %d steps. Raw value: %s",
				PyRepr(in.top.Key), PyRepr(in.s.Name), maxInterpolationDepth, PyRepr(in.top.Value.Text)),
			Message: fmt.Sprintf("%%(...)s references go more than %d levels deep (a loop?): configparser raises InterpolationDepthError", maxInterpolationDepth)}
	}
	rest := v.Text
	at := 0 // index of rest in v.Text
	for rest != "" {
		if in.out.Len() > maxInterpolated {
			return &InterpError{Off: in.top.Value.Offset(0), End: in.top.Value.End, Class: "InterpolationDepthError",
				Message: fmt.Sprintf("the value expands to more than %d bytes through its %%(...)s references", maxInterpolated)}
		}
		p := strings.IndexByte(rest, '%')
		if p < 0 {
			in.emit(rest, v.Offset(at))
			return nil
		}
		in.emit(rest[:p], v.Offset(at))
		rest, at = rest[p:], at+p
		switch {
		case len(rest) > 1 && rest[1] == '%':
			in.emit("%", v.Offset(at))
			rest, at = rest[2:], at+2
		case len(rest) > 1 && rest[1] == '(':
			close := strings.IndexByte(rest[2:], ')')
			if close <= 0 || 2+close+1 >= len(rest) || rest[2+close+1] != 's' {
				return &InterpError{Off: v.Offset(at), End: v.Offset(at + min(len(rest), 2)), Class: "InterpolationSyntaxError",
					Python:  "bad interpolation variable reference " + PyRepr(rest),
					Message: "\"%(\" starts a reference that is not %(name)s: configparser raises InterpolationSyntaxError (write %% for a literal %)", Doubled: true}
			}
			name := rest[2 : 2+close]
			end := 2 + close + 2
			ref := in.lookup(name)
			if ref == nil {
				return &InterpError{Off: v.Offset(at), End: v.Offset(at + end), Class: "InterpolationMissingOptionError",
					Python: fmt.Sprintf("Bad value substitution: option %s in section %s contains an interpolation key %s which is not a valid option name. Raw value: %s",
						PyRepr(in.top.Key), PyRepr(in.s.Name), PyRepr(name), PyRepr(in.top.Value.Text)),
					Message: fmt.Sprintf("%%(%s)s names no key of [%s] or [DEFAULT]: configparser raises InterpolationMissingOptionError", name, in.s.Name)}
			}
			if strings.IndexByte(ref.Value.Text, '%') >= 0 {
				if err := in.some(ref.Value, depth+1); err != nil {
					return err
				}
			} else {
				for _, sp := range spansOf(ref.Value) {
					in.emit(sp.text, sp.off)
				}
			}
			rest, at = rest[end:], at+end
		default:
			return &InterpError{Off: v.Offset(at), End: v.Offset(at + 1), Class: "InterpolationSyntaxError",
				Python:  "'%' must be followed by '%' or '(', found: " + PyRepr(rest),
				Message: "a lone \"%\": configparser's interpolation raises InterpolationSyntaxError (write %% for a literal %)", Doubled: true}
		}
	}
	return nil
}

type textAt struct {
	text string
	off  int
}

// spansOf cuts v into its contiguous pieces.
func spansOf(v Value) []textAt {
	var out []textAt
	for k, sp := range v.Spans {
		end := len(v.Text)
		if k+1 < len(v.Spans) {
			end = v.Spans[k+1].At
		}
		out = append(out, textAt{v.Text[sp.At:end], sp.Off})
	}
	return out
}
