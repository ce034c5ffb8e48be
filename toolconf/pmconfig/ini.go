// Package pmconfig reads the INI files of the PCP tools built on PCP's
// Python pmconfig module, pmrep (and pcp2*) and pcp-dstat, exactly as
// Python's configparser reads them as pmconfig sets it up (strict,
// case-sensitive keys, "=" and ":" delimiters, full-line "#"/";"
// comments, continuation lines, BasicInterpolation for pmrep), and turns
// their metric specs into what the tool would do: the derived metrics it
// registers (a grammar.File of pmRegisterDerived calls, which the one
// analysis pipeline checks like any config) and the findings about
// everything else. Every value keeps a map back to the file, so a finding
// inside a formula points at its column in the INI file.
package pmconfig

import (
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a stretch of a value that is contiguous in the file: value byte
// At is file offset Off.
type Span struct{ At, Off int }

// Value is an option's raw value as configparser joins it: each line
// stripped, lines joined with "\n", the end stripped. Spans map it back to
// the file (a "\n" joiner maps to the byte after its line's text).
type Value struct {
	Text  string
	Spans []Span
	// End is the file offset just past the value's last byte.
	End int
}

// Offset is the file offset of value byte i (one past the end allowed).
func (v Value) Offset(i int) int {
	if len(v.Spans) == 0 {
		return v.End
	}
	if i >= len(v.Text) {
		return v.End
	}
	k := len(v.Spans) - 1
	for k > 0 && v.Spans[k].At > i {
		k--
	}
	return v.Spans[k].Off + i - v.Spans[k].At
}

// Entry is one "key = value" of a section.
type Entry struct {
	Key            string
	KeyOff, KeyEnd int // the key's bytes in the file
	Line           int // the key's line (1-based)
	Value          Value
	// Start and End cover the entry, continuation lines included.
	Start, End int
}

// Section is one "[name]" of a file, or the [DEFAULT] keys.
type Section struct {
	Name             string
	HeadOff, HeadEnd int // the "[name]" header's bytes
	Line             int
	Entries          []*Entry // in file order
	byKey            map[string]*Entry
}

// Get is the entry of key, nil when the section has none.
func (s *Section) Get(key string) *Entry {
	if s == nil {
		return nil
	}
	return s.byKey[key]
}

// Problem is something configparser refuses, at file bytes [Off, End).
type Problem struct {
	Off, End int
	Line     int
	Code     string
	Message  string // ours
	// Python is the exception's own text (str(error)), for the tool's
	// words; Fatal says configparser stops reading there.
	Python string
	Fatal  bool
}

// INI is one file as configparser reads it.
type INI struct {
	Path     string
	Src      []byte
	Default  *Section   // [DEFAULT]; nil when the file has none
	Sections []*Section // other sections, in order of first appearance
	Problems []Problem
	byName   map[string]*Section
}

// Containing is the section whose header or lines hold byte off, nil
// before the first one.
func (ini *INI) Containing(off int) *Section {
	var in *Section
	for _, s := range ini.Sections {
		if s.HeadOff > off {
			break
		}
		in = s
	}
	return in
}

// Section returns the named section (not DEFAULT), nil when absent.
func (f *INI) Section(name string) *Section { return f.byName[name] }

// maxLineProblems bounds the parsing errors listed for one file: a file
// that is not INI at all has one on every line.
const maxLineProblems = 100

// ReadINI reads src as configparser.ConfigParser.read_file does with
// pmconfig's settings (optionxform = str, strict, empty lines allowed in
// values). Unlike configparser it goes on after a fatal error, so that one
// run lists every problem; the Problem says when the tool stops there.
func ReadINI(path string, src []byte) *INI {
	f := &INI{Path: path, Src: src, byName: map[string]*Section{}}
	r := iniReader{f: f, added: map[string]bool{}}
	if bad := firstInvalidUTF8(src); bad >= 0 {
		line := 1 + strings.Count(string(src[:bad]), "\n")
		f.Problems = append(f.Problems, Problem{Off: bad, End: bad + 1, Line: line, Code: codes.INIEncoding, Fatal: true,
			Message: "the file is not valid UTF-8 here: Python cannot decode it, and the tool stops with a UnicodeDecodeError traceback",
			Python:  fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x", src[bad])})
	}
	lineno := 0
	for off := 0; off < len(src); {
		end, next := lineEnd(src, off)
		lineno++
		r.line(lineno, off, end, next)
		off = next
	}
	r.finishValue()
	if r.parseErrors > maxLineProblems {
		f.Problems = append(f.Problems, Problem{Off: r.lastErr, End: r.lastErr, Line: r.lastErrLine, Code: codes.INISyntax,
			Message: fmt.Sprintf("%d more lines that are no section header, option or comment (not listed)", r.parseErrors-maxLineProblems)})
	}
	return f
}

// lineEnd finds the end of the line at off as Python's universal
// newlines read it ("\n", "\r\n" or a lone "\r"): end excludes the line
// break, next is where the next line starts.
func lineEnd(src []byte, off int) (end, next int) {
	for i := off; i < len(src); i++ {
		switch src[i] {
		case '\n':
			return i, i + 1
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				return i, i + 2
			}
			return i, i + 1
		}
	}
	return len(src), len(src)
}

func firstInvalidUTF8(src []byte) int {
	if utf8.Valid(src) {
		return -1
	}
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// IsPySpace is Python's str.isspace for one character: Go's unicode
// white space and the four information separators \x1c-\x1f.
func IsPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// strip returns the bounds of src[a:b] without Python white space at
// either end.
func strip(src []byte, a, b int) (int, int) {
	for a < b {
		r, n := utf8.DecodeRune(src[a:b])
		if !IsPySpace(r) {
			break
		}
		a += n
	}
	for b > a {
		r, n := utf8.DecodeLastRune(src[a:b])
		if !IsPySpace(r) {
			break
		}
		b -= n
	}
	return a, b
}

type iniReader struct {
	f      *INI
	cur    *Section // nil before the first header
	sect   string   // its name
	entry  *Entry   // the option whose value continuation lines extend
	pieces []piece  // its value's lines so far
	indent int      // configparser's indent_level, in characters
	// added are configparser's elements_added: sections and
	// "section\x00option" pairs read from this file.
	added       map[string]bool
	parseErrors int
	lastErr     int
	lastErrLine int
}

// piece is one line of a value: file bytes [off, end), or an empty line.
type piece struct{ off, end int }

func (r *iniReader) problem(p Problem) {
	r.f.Problems = append(r.f.Problems, p)
}

// parseError notes a line configparser cannot parse (why), a
// ParsingError that fails the whole file; past maxLineProblems such lines
// are only counted.
func (r *iniReader) parseError(a, b, lineno int, line []byte, why string) {
	r.parseErrors++
	r.lastErr, r.lastErrLine = a, lineno
	if r.parseErrors <= maxLineProblems {
		r.problem(Problem{Off: a, End: b, Line: lineno, Code: codes.INISyntax,
			Message: why + ": configparser fails the whole file with a ParsingError",
			Python:  fmt.Sprintf("\t[line %2d]: %s", lineno, PyRepr(string(line)))})
	}
}

// line reads one line [off, end) of the file, as the body of
// configparser's _read loop.
func (r *iniReader) line(lineno, off, end, next int) {
	src := r.f.Src
	a, b := strip(src, off, end)
	if a < b && (src[a] == '#' || src[a] == ';') {
		return // a full-line comment: not even an empty line of a value
	}
	if a == b {
		if r.entry != nil {
			r.pieces = append(r.pieces, piece{a, a}) // empty_lines_in_values
		}
		return
	}
	indent := 0
	for i := off; i < a; {
		_, n := utf8.DecodeRune(src[i:a])
		i += n
		indent++
	}
	if r.cur != nil && r.entry != nil && indent > r.indent {
		r.pieces = append(r.pieces, piece{a, b})
		r.entry.End = next
		return
	}
	r.indent = indent
	if name, ok := sectionHeader(src[a:b]); ok {
		r.finishValue()
		r.header(lineno, a, b, name)
		return
	}
	if r.cur == nil {
		r.finishValue()
		r.problem(Problem{Off: a, End: b, Line: lineno, Code: codes.INISyntax, Fatal: true,
			Message: "a line before any [section] header: configparser stops here with MissingSectionHeaderError",
			Python:  fmt.Sprintf("File contains no section headers.\nfile: %s, line: %d\n%s", PyRepr(r.f.Path), lineno, PyRepr(string(src[off:next])))})
		r.entry = nil
		return
	}
	d := delimiter(src, a, b)
	if d < 0 {
		// A parsing error; the option before stays current (optname is
		// not reset), so deeper lines still continue it.
		r.parseError(a, b, lineno, src[off:next], "neither a [section] header, nor key = value, nor a comment")
		return
	}
	r.finishValue()
	ka, kb := strip(src, a, d)
	va, vb := strip(src, d+1, b)
	key := string(src[ka:kb])
	if key == "" {
		r.parseError(a, b, lineno, src[off:next], "the line has no key before its delimiter")
	}
	e := &Entry{Key: key, KeyOff: ka, KeyEnd: kb, Line: lineno, Start: a, End: next}
	pair := r.sect + "\x00" + key
	if r.added[pair] {
		r.problem(Problem{Off: ka, End: kb, Line: lineno, Code: codes.INIDuplicate, Fatal: true,
			Message: fmt.Sprintf("option %q is already set in [%s] of this file: configparser (strict) refuses the file", key, r.sect),
			Python:  fmt.Sprintf("While reading from %s [line %2d]: option %s in section %s already exists", PyRepr(r.f.Path), lineno, PyRepr(key), PyRepr(r.sect))})
		// Read on for its continuation lines, but keep the first.
		r.entry, r.pieces = e, append(r.pieces[:0], piece{va, vb})
		r.entry.Key = "\x00dup"
		return
	}
	r.added[pair] = true
	if old := r.cur.byKey[key]; old != nil {
		// Set by an earlier file (or [DEFAULT] merged): replaced.
		for i, x := range r.cur.Entries {
			if x == old {
				r.cur.Entries = append(r.cur.Entries[:i], r.cur.Entries[i+1:]...)
				break
			}
		}
	}
	r.cur.Entries = append(r.cur.Entries, e)
	r.cur.byKey[key] = e
	r.entry, r.pieces = e, append(r.pieces[:0], piece{va, vb})
}

// header starts the section name read from bytes [a, b).
func (r *iniReader) header(lineno, a, b int, name string) {
	r.entry = nil
	r.sect = name
	if name == "DEFAULT" {
		if r.f.Default == nil {
			r.f.Default = &Section{Name: name, HeadOff: a, HeadEnd: b, Line: lineno, byKey: map[string]*Entry{}}
		}
		r.cur = r.f.Default
		return
	}
	if s := r.f.byName[name]; s != nil {
		if r.added[name] {
			r.problem(Problem{Off: a, End: b, Line: lineno, Code: codes.INIDuplicate, Fatal: true,
				Message: fmt.Sprintf("section [%s] is already in this file: configparser (strict) refuses the file", name),
				Python:  fmt.Sprintf("While reading from %s [line %2d]: section %s already exists", PyRepr(r.f.Path), lineno, PyRepr(name))})
		}
		r.added[name] = true
		r.cur = s
		return
	}
	s := &Section{Name: name, HeadOff: a, HeadEnd: b, Line: lineno, byKey: map[string]*Entry{}}
	r.f.Sections = append(r.f.Sections, s)
	r.f.byName[name] = s
	r.added[name] = true
	r.cur = s
}

// finishValue joins the current option's lines into its value.
func (r *iniReader) finishValue() {
	e := r.entry
	if e == nil {
		return
	}
	r.entry = nil
	// The end is stripped: trailing empty lines go.
	n := len(r.pieces)
	for n > 1 && r.pieces[n-1].off == r.pieces[n-1].end {
		n--
	}
	var sb strings.Builder
	var spans []Span
	src := r.f.Src
	for i, p := range r.pieces[:n] {
		if i > 0 {
			// The joiner maps to the byte after the line before's text.
			sb.WriteByte('\n')
		}
		if p.end > p.off {
			if len(spans) == 0 || spans[len(spans)-1].Off+sb.Len()-spans[len(spans)-1].At != p.off {
				spans = append(spans, Span{At: sb.Len(), Off: p.off})
			}
			sb.Write(src[p.off:p.end])
		}
		if i == 0 && len(spans) == 0 {
			spans = append(spans, Span{At: 0, Off: p.off})
		}
	}
	last := r.pieces[n-1]
	e.Value = Value{Text: sb.String(), Spans: spans, End: last.end}
	r.pieces = r.pieces[:0]
}

// sectionHeader matches configparser's SECTCRE, \[(?P<header>.+)\], at
// the start of a stripped line: the name runs to the line's last "]".
func sectionHeader(line []byte) (string, bool) {
	if len(line) < 3 || line[0] != '[' {
		return "", false
	}
	k := strings.LastIndexByte(string(line), ']')
	if k < 2 {
		return "", false
	}
	return string(line[1:k]), true
}

// delimiter is the offset of the first "=" or ":" in [a, b), -1 for none.
func delimiter(src []byte, a, b int) int {
	for i := a; i < b; i++ {
		if src[i] == '=' || src[i] == ':' {
			return i
		}
	}
	return -1
}

// PyRepr renders s as Python's repr() of a str does.
func PyRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var sb strings.Builder
	sb.WriteByte(quote)
	for _, c := range s {
		switch {
		case c == rune(quote) || c == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c == utf8.RuneError:
			sb.WriteString(`\ufffd`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, c)
		case c >= 0x80 && c < 0xa0, c == 0xad:
			fmt.Fprintf(&sb, `\x%02x`, c)
		case !unicode.IsPrint(c) && c != ' ':
			if c > 0xffff {
				fmt.Fprintf(&sb, `\U%08x`, c)
			} else {
				fmt.Fprintf(&sb, `\u%04x`, c)
			}
		default:
			sb.WriteRune(c)
		}
	}
	sb.WriteByte(quote)
	return sb.String()
}

// SectionAt is the section file offset off is in: the one whose header
// is the last before it ([DEFAULT] included), nil before the first.
func (f *INI) SectionAt(off int) *Section {
	var at *Section
	for _, s := range append([]*Section{f.Default}, f.Sections...) {
		if s != nil && s.HeadOff <= off && (at == nil || s.HeadOff > at.HeadOff) {
			at = s
		}
	}
	return at
}
