package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Text from an input (a host name, a metric or instance name, help text,
// a config's own line) may hold bytes a terminal acts on instead of
// showing: ESC starts a sequence that can move the cursor, rewrite the
// screen or set the window title. Text output writes each of them as
// \xNN (ESC as \x1b): the C0 controls but tab (and, between lines,
// newline), DEL, the C1 controls U+0080 to U+009F, and bytes that are not
// UTF-8 (a lone 0x9b is CSI to an 8-bit terminal).

// Escape is s with the bytes a terminal would act on written as \xNN,
// newlines included (s is one field of a line).
func Escape(s string) string {
	if clean(s, false) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size, false) {
			for k := 0; k < size; k++ {
				appendHex(&b, s[i+k])
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s has nothing to escape.
func clean(s string, newlines bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			// Look closer only at what may need it.
			for i < len(s) {
				r, size := utf8.DecodeRuneInString(s[i:])
				if unsafe(r, size, newlines) {
					return false
				}
				i += size
			}
			return true
		}
	}
	return true
}

// unsafe reports a rune (of size bytes) a terminal would act on; newline
// passes when newlines.
func unsafe(r rune, size int, newlines bool) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true // not UTF-8
	case r == '\t', r == '\n' && newlines:
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	}
	return false
}

func appendHex(b *strings.Builder, c byte) {
	const hex = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// Escaper is a writer that escapes what it is given as Escape does,
// newlines kept: for text output whose every line may carry input (the
// describe, eval, explain and fleet text formats). A rune split between
// two writes is put together first; Flush escapes one the output ended
// in the middle of.
type Escaper struct {
	w     io.Writer
	carry []byte // the start of a rune the last write ended in
	out   strings.Builder
}

// NewEscaper escapes what is written to it onto w.
func NewEscaper(w io.Writer) *Escaper { return &Escaper{w: w} }

// Write implements io.Writer.
func (e *Escaper) Write(p []byte) (int, error) {
	data := p
	if len(e.carry) > 0 {
		data = append(e.carry, p...)
		e.carry = nil
	}
	e.out.Reset()
	i := 0
	for i < len(data) {
		if c := data[i]; c < utf8.RuneSelf {
			if unsafe(rune(c), 1, true) {
				appendHex(&e.out, c)
			} else {
				e.out.WriteByte(c)
			}
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) {
			e.carry = append([]byte(nil), data[i:]...)
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		if unsafe(r, size, true) {
			for k := 0; k < size; k++ {
				appendHex(&e.out, data[i+k])
			}
		} else {
			e.out.Write(data[i : i+size])
		}
		i += size
	}
	if _, err := io.WriteString(e.w, e.out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes, escaped, the incomplete rune the output ended in.
func (e *Escaper) Flush() error {
	if len(e.carry) == 0 {
		return nil
	}
	var b strings.Builder
	for _, c := range e.carry {
		appendHex(&b, c)
	}
	e.carry = nil
	_, err := io.WriteString(e.w, b.String())
	return err
}
