package lsp

import (
	"bytes"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// toolSpot is where a position is in an INI line of a pmrep, pcp-dstat
// or pcp-htop file: in the key or the value of an entry, read from the
// text around the position and not from the tool's reading of the file,
// because the line being typed ("util.") is not an entry yet.
type toolSpot struct {
	// key is the entry's key: all of it for a position in the value,
	// what is typed of it up to the position in the key.
	key   string
	inKey bool
	// keyStart is the file offset of the key's first byte; valueStart
	// that of the value's on the position's line (after the delimiter
	// and blanks on the key's line, after the indent on a continuation
	// line).
	keyStart, valueStart int
	// delimited: the key's line has its delimiter already.
	delimited bool
}

// maxContinuation bounds the lines read back from a continuation line to
// its key's line: a value of more lines is not completed.
const maxContinuation = 1000

// toolSpotAt reads the spot at file offset off. delims are the bytes
// that end a key ("=:" for pmconfig, "=" for htop); configparser says
// the file is read by configparser's rules: an indented line continues
// the value above, and a line ends where Python's universal newlines end
// it, at a lone "\r" too (htop trims every line, has no continuation and
// reads to "\n"). ok is false on a section header, a comment or a blank
// line, where nothing is completed.
func toolSpotAt(text *grammar.Text, off int, delims string, configparser bool) (spot toolSpot, ok bool) {
	lines := toolLines{text, configparser}
	line, start := lines.of(off)
	cur := text.Slice(start, off)
	indented := len(cur) > 0 && (cur[0] == ' ' || cur[0] == '\t')
	if configparser && indented {
		// A continuation line: the value of the key line above it.
		for l := line - 1; l >= 0 && l >= line-maxContinuation; l-- {
			b := bytes.TrimRight(lines.bytes(l), "\r\n")
			if len(bytes.TrimSpace(b)) == 0 || b[0] == ' ' || b[0] == '\t' || isComment(b) {
				continue
			}
			k := bytes.IndexAny(b, delims)
			if b[0] == '[' || k < 0 {
				return toolSpot{}, false
			}
			lead := len(cur) - len(bytes.TrimLeft(cur, " \t"))
			return toolSpot{key: string(bytes.TrimSpace(b[:k])), keyStart: lines.start(l), valueStart: start + lead, delimited: true}, true
		}
		return toolSpot{}, false
	}
	whole := bytes.TrimRight(lines.bytes(line), "\r\n")
	lead := len(whole) - len(bytes.TrimLeft(whole, " \t"))
	body := whole[lead:]
	if len(body) > 0 && (body[0] == '[' || isComment(body)) {
		return toolSpot{}, false
	}
	spot.keyStart = start + lead
	k := bytes.IndexAny(body, delims)
	if k < 0 || spot.keyStart+k >= off {
		spot.inKey, spot.delimited = true, k >= 0
		spot.key = string(text.Slice(spot.keyStart, max(off, spot.keyStart)))
		return spot, true
	}
	spot.key = string(bytes.TrimSpace(body[:k]))
	spot.delimited = true
	v := k + 1
	for v < len(body) && (body[v] == ' ' || body[v] == '\t') {
		v++
	}
	spot.valueStart = min(spot.keyStart+v, off)
	return spot, true
}

// toolLines reads a tool file's lines as the tool does: by Python's
// universal newlines ("\n", "\r\n" or a lone "\r": the client's lines)
// for configparser, to "\n" for htop.
type toolLines struct {
	text      *grammar.Text
	universal bool
}

// of is the line of offset off and the offset where it starts.
func (l toolLines) of(off int) (line, start int) {
	if l.universal {
		return l.text.LSPLineOf(off)
	}
	return l.text.LineOf(off)
}

// bytes is a line's bytes with its ending.
func (l toolLines) bytes(line int) []byte {
	if l.universal {
		return l.text.LSPLineBytes(line)
	}
	return l.text.LineBytes(line)
}

// start is the offset where a line starts.
func (l toolLines) start(line int) int {
	if l.universal {
		return l.text.LSPLineStart(line)
	}
	return l.text.LineStart(line)
}

// isComment is whether an INI line (without its indent) is a full-line
// comment: "#" or ";" for configparser, "#" for htop (which skips ";"
// lines as keys without "=").
func isComment(b []byte) bool { return len(b) > 0 && (b[0] == '#' || b[0] == ';') }
