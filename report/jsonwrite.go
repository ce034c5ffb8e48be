package report

import (
	"strconv"
	"unicode/utf8"
)

// appendDiag appends d as encoding/json's MarshalIndent(d, prefix, "  ")
// writes it, byte for byte (TestAppendDiagIsMarshalIndent), without the
// reflection: a check of a big config writes a finding or more per
// definition, and encoding/json cost as much as the rest of the report.
func appendDiag(b []byte, prefix string, d *jsonDiag) []byte {
	in1, in2, in3 := prefix+"  ", prefix+"    ", prefix+"      "
	b = append(b, "{\n"...)
	b = append(append(b, in1...), "\"range\": {\n"...)
	b = appendPos(append(append(b, in2...), "\"start\": "...), in2, &d.Range.Start, in3)
	b = append(b, ",\n"...)
	b = appendPos(append(append(b, in2...), "\"end\": "...), in2, &d.Range.End, in3)
	b = append(append(append(b, '\n'), in1...), "},\n"...)
	b = appendString(append(append(b, in1...), "\"severity\": "...), d.Severity)
	b = appendString(append(append(b, ",\n"...), in1...), "code")
	b = appendString(append(b, ": "...), d.Code)
	b = appendString(append(append(b, ",\n"...), in1...), "message")
	b = appendString(append(b, ": "...), d.Message)
	if len(d.PCP) > 0 {
		b = append(append(append(b, ",\n"...), in1...), "\"pcp\": [\n"...)
		for i, s := range d.PCP {
			b = appendString(append(b, in2...), s)
			if i < len(d.PCP)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(append(b, in1...), ']')
	}
	if d.More > 0 {
		b = append(append(append(b, ",\n"...), in1...), "\"more\": "...)
		b = strconv.AppendInt(b, int64(d.More), 10)
	}
	return append(append(append(b, '\n'), prefix...), '}')
}

// appendPos appends a position object opened at indent (its members at
// inner).
func appendPos(b []byte, indent string, p *jsonPos, inner string) []byte {
	b = append(append(append(b, "{\n"...), inner...), "\"line\": "...)
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(append(append(b, ",\n"...), inner...), "\"column\": "...)
	b = strconv.AppendInt(b, int64(p.Column), 10)
	b = append(append(append(b, ",\n"...), inner...), "\"offset\": "...)
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	b = append(append(append(b, ",\n"...), inner...), "\"utf16Column\": "...)
	b = strconv.AppendInt(b, int64(p.UTF16), 10)
	return append(append(append(b, '\n'), indent...), '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json escapes
// it (HTML-safe: <, > and & as \u003c and so on; invalid UTF-8 as
// \ufffd; U+2028 and U+2029 escaped).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}
