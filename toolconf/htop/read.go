// Package htop reads pcp-htop's meter, column and screen config files
// exactly as the htop that a PCP release vendors reads them (its own
// line parser in pcp/PCPDynamicMeter.c, PCPDynamicColumn.c and
// PCPDynamicScreen.c, not an INI library): which sections it accepts,
// which keys it uses and which it drops without a word, and the derived
// metrics it registers with pmRegisterDerivedMetric. A File lists those
// expressions, each with the name htop registers it under, its exact text
// and where it is in the file, so that the one analysis pipeline can check
// them and put its findings on the file's own columns; and the reader's
// own findings (Problem) about everything else.
//
// The rules per release are in Rules; the facts behind them, with the
// messages pcp-htop prints, in docs/htop.md.
package htop

import (
	"bytes"
	"fmt"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"path/filepath"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Kind is the kind of an htop config file, from the directory it is in.
type Kind int

// The kinds, in the order pcp-htop reads them.
const (
	Meter Kind = iota + 1
	Column
	Screen
)

func (k Kind) String() string {
	switch k {
	case Meter:
		return "meter"
	case Column:
		return "column"
	case Screen:
		return "screen"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Dir is the directory pcp-htop reads files of the kind from: "meters",
// "columns" or "screens" (under $PCP_HTOP_DIR, ~/.config/htop,
// $PCP_SYSCONF_DIR/htop and $PCP_SHARE_DIR/htop).
func (k Kind) Dir() string { return k.String() + "s" }

// KindOf tells a file's kind from the directory it is in, as pcp-htop
// finds it: a file in a "meters", "columns" or "screens" directory.
func KindOf(path string) (Kind, bool) {
	switch filepath.Base(filepath.Dir(path)) {
	case "meters":
		return Meter, true
	case "columns":
		return Column, true
	case "screens":
		return Screen, true
	}
	return 0, false
}

// nameSize is sizeof(name) of htop's DynamicMeter, DynamicColumn and
// DynamicScreen: a name is cut to 31 bytes, and a screen column's
// "SCREEN:COLUMN" must fit too.
const nameSize = 32

// progname is pmGetProgname() in every message pcp-htop prints.
const progname = "pcp-htop"

// Expr is one expression htop passes to pmRegisterDerivedMetric.
type Expr struct {
	// Name is the metric name it is registered under:
	// htop.meter.METER.X, htop.column.COLUMN or htop.screen.SCREEN.X.
	Name string
	// Text is the expression exactly as htop passes it. htop has no
	// continuation lines, so it is one stretch of the file: Text[i] is
	// file byte Off+i (see Offset).
	Text string
	Off  int
	// KeyOff, KeyEnd are the key's bytes ("one.metric", "metric").
	KeyOff, KeyEnd int
	// Line is the file's line (1-based) and HtopLine the number htop
	// counts for it, which its messages print: they differ only after a
	// NUL byte made htop read several lines as one.
	Line, HtopLine int
	// Start, End cover the line's text.
	Start, End int
	// Section is the section's name as htop stores it (31 bytes at most).
	Section string
	// Skip: htop never registers it (Why says why: a duplicate name
	// fails, a screen column's name is too long); its syntax is still
	// worth reading, for the editor.
	Skip bool
	Why  string
}

// Offset is the file offset of expression byte i (one past the end
// allowed).
func (e *Expr) Offset(i int) int { return e.Off + i }

// Problem is one finding of the reader at file bytes [Off, End).
type Problem struct {
	Off, End int
	Line     int // the file's line of Off, 1-based
	Code     string
	// Message is ours; Htop is what pcp-htop prints for it (line by line,
	// nil when it says nothing).
	Message string
	Htop    []string
	// Fatal: pcp-htop stops here (exit status 2, or a crash).
	Fatal bool
	// More, when positive, makes this a stand-in for More findings of
	// the code not listed one by one.
	More int
	// Fix, when set, is the one edit that resolves it.
	Fix *Fix
}

// Fix replaces file bytes [Off, End) with Text. Safe: it cannot change
// what the file means beyond the finding (a misspelt word htop ignores),
// so check --fix may apply it.
type Fix struct {
	Off, End int
	Text     string
	Safe     bool
}

// Entry is one "key = value" line htop reads in an accepted section.
type Entry struct {
	Key      string
	Value    string // trimmed; what htop stores
	KeyOff   int    // the key is file bytes [KeyOff, KeyEnd())
	ValueOff int    // the value is file bytes [ValueOff, ValueEnd())
	Line     int
}

// KeyEnd is the file offset just past the key.
func (e *Entry) KeyEnd() int { return e.KeyOff + len(e.Key) }

// ValueEnd is the file offset just past the value.
func (e *Entry) ValueEnd() int { return e.ValueOff + len(e.Value) }

// Section is one "[NAME]" header and, when htop accepts it, its entries.
type Section struct {
	// Name is the text between "[" and the last "]"; Stored is what htop
	// keeps (the first 31 bytes).
	Name, Stored     string
	HeadOff, HeadEnd int
	Line             int
	// Accepted: htop made a meter, column or screen of it.
	Accepted bool
	Entries  []Entry
}

// File is one config file as one release's pcp-htop reads it.
type File struct {
	Path     string
	Kind     Kind
	Src      []byte
	Rules    Rules
	Sections []*Section
	// Entries are the key = value lines of accepted sections, in file
	// order (each Section's Entries are a piece of it).
	Entries  []Entry
	Exprs    []*Expr
	Problems []Problem
	// lineStarts[i] is the offset of line i+1.
	lineStarts []int
}

// Position is the 1-based line and byte column of file offset off.
func (f *File) Position(off int) (line, col int) {
	lo, hi := 0, len(f.lineStarts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if f.lineStarts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1, off - f.lineStarts[lo] + 1
}

// Reader reads the config files of one pcp-htop run in the order it reads
// them (its own directory first, then the system's), so that what one
// file defines shapes how the next reads: the first section of a name
// wins, and a metric name registered twice is fatal.
type Reader struct {
	Rules Rules
	// names are the stored names of the sections made so far, per kind.
	names [Screen + 1]map[string]defined[*Section]
	// registered are the metric names registered so far (every kind
	// shares libpcp's one table of global derived metrics).
	registered map[string]defined[*Expr]
}

// defined is something a file of the run defined first.
type defined[T any] struct {
	what T
	file *File
}

// NewReader returns a reader for release v's pcp-htop.
func NewReader(v pcpver.Version) *Reader {
	r := &Reader{Rules: RulesFor(v), registered: map[string]defined[*Expr]{}}
	for k := range r.names {
		r.names[k] = map[string]defined[*Section]{}
	}
	return r
}

// Read reads one file alone, as release v's pcp-htop reads it.
func Read(v pcpver.Version, kind Kind, path string, src []byte) *File {
	return NewReader(v).Read(kind, path, src)
}

// maxPerCode bounds the problems of one code listed for one file; the
// rest are counted in a stand-in (a file that is not an htop config has
// one on every line).
const maxPerCode = 100

// Read reads the next file of the run: its sections, expressions and
// problems. It never fails: bad input is a problem, and the work is linear
// in the size of src.
func (r *Reader) Read(kind Kind, path string, src []byte) *File {
	f := &File{Path: path, Kind: kind, Src: src, Rules: r.Rules}
	f.lineStarts = make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			f.lineStarts = append(f.lineStarts, i+1)
		}
	}
	// Every entry is a line with "=": one slice for all of them, sized
	// once, which the sections share.
	f.Entries = make([]Entry, 0, linesWith(src, '='))
	p := parser{r: r, f: f, text: string(src), counts: map[string]int{}}
	if !r.Rules.Reads(kind) {
		p.problem(0, 0, codes.HtopNotRead, fmt.Sprintf("PCP %s's pcp-htop reads no %s files (they arrived in %s): this file is not read at all", r.Rules.Version, kind, sinceText(kind)), nil, false)
		p.finish()
		return f
	}
	p.read()
	p.finish()
	return f
}

func sinceText(k Kind) string {
	switch k {
	case Meter:
		return "PCP 5.3.2"
	case Column:
		return "PCP 5.3.3"
	}
	return "PCP 6.1.0"
}

// parser is the state of one file's reading: htop's parseFile locals.
type parser struct {
	r *Reader
	f *File
	// text is the file as one string: keys, values and expressions are
	// pieces of it, not copies.
	text string
	// cursor is the index in File.lineStarts of the line lineOf last
	// answered.
	cursor int
	// sect is the section whose keys htop applies: nil before the first
	// header and after a rejected one (but, in columns before 7.1.1, the
	// column before a rejected header stays current).
	sect *object
	// inHeader is the last header read (accepted or not).
	inHeader *Section
	objects  []*object
	counts   map[string]int
	// stand-ins for codes over maxPerCode: index in f.Problems
	more map[string]int
}

// object is a meter, column or screen htop made, with what it holds.
type object struct {
	sec *Section
	// slots are a meter's metrics or a screen's columns by name X, in
	// order of first mention; a column has one slot, "".
	slots  []*slot
	byName map[string]*slot
	// firstEntry is the index in File.Entries of its first entry.
	firstEntry int
	keys       map[string]int // key -> line of its last setting, for duplicates
}

type slot struct {
	name      string
	off, end  int // X in the first key naming it
	metric    *Expr
	dropped   bool // a screen column whose name does not fit
	dropNoted bool
}

func (o *object) slot(name string, off, end int) *slot {
	if s := o.byName[name]; s != nil {
		return s
	}
	s := &slot{name: name, off: off, end: end}
	o.slots = append(o.slots, s)
	o.byName[name] = s
	return s
}

// lineOf is the file line of off. Offsets mostly come in file order, so
// a cursor that moves forward answers them without a search.
func (p *parser) lineOf(off int) int {
	starts := p.f.lineStarts
	if p.cursor >= len(starts) || starts[p.cursor] > off {
		l, _ := p.f.Position(off)
		p.cursor = l - 1
		return l
	}
	for p.cursor+1 < len(starts) && starts[p.cursor+1] <= off {
		p.cursor++
	}
	return p.cursor + 1
}

// over reports whether code has reached maxPerCode in this file; then it
// counts the finding at [off, end) in the stand-in, and the caller spends
// nothing on its message.
func (p *parser) over(code string, off, end int) bool {
	if p.counts[code] < maxPerCode {
		return false
	}
	p.problem(off, end, code, "", nil, false)
	return true
}

func (p *parser) problem(off, end int, code, msg string, htop []string, fatal bool) {
	p.counts[code]++
	if p.counts[code] > maxPerCode {
		if p.more == nil {
			p.more = map[string]int{}
		}
		i, ok := p.more[code]
		if !ok {
			p.f.Problems = append(p.f.Problems, Problem{Off: off, End: end, Line: p.lineOf(off), Code: code,
				Message: fmt.Sprintf("more findings of %s in this file, not listed one by one", code)})
			i = len(p.f.Problems) - 1
			p.more[code] = i
		}
		p.f.Problems[i].More++
		return
	}
	p.f.Problems = append(p.f.Problems, Problem{Off: off, End: end, Line: p.lineOf(off), Code: code, Message: msg, Htop: htop, Fatal: fatal})
}

func (p *parser) read() {
	src := p.f.Src
	htopLine := 0
	for pos := 0; pos < len(src); {
		l, ok := readLine(src, pos)
		if l.NUL && !ok {
			p.problem(l.End, l.End+1, codes.HtopNulByte, "a NUL byte: htop's line ends here, and it reads on over the following lines as part of this one, to the end of the file", nil, false)
		}
		if !ok {
			p.problem(l.Start, len(src), codes.HtopLostLine, "htop never reads this last line: its final read (1024 bytes at a time) ends exactly at the end of the file without a newline, and htop's String_readLine then drops the whole line; end the file with a newline", nil, false)
			break
		}
		htopLine++
		if l.NUL {
			p.problem(l.End, l.End+1, codes.HtopNulByte, "a NUL byte: htop's line ends here, and it reads on over the following lines (up to one whose 1024-byte chunk has a newline before any NUL) as part of this one, so they are lost; is this a binary file?", nil, false)
		}
		p.line(l, htopLine)
		pos = l.Next
	}
}

func (p *parser) line(l line, htopLine int) {
	src := p.f.Src
	a, b := trim(src, l.Off, l.End)
	if a == b || src[a] == '#' {
		return
	}
	s := splitLine(src, a, b, p.r.Rules.SplitFirst)
	if s.keyEnd > s.keyOff && src[s.keyOff] == '[' {
		p.header(s, a, b, htopLine)
		return
	}
	if p.sect == nil {
		// After a rejected header, that header's finding covers the
		// lines htop skips.
		if p.inHeader == nil && !p.over(codes.HtopOutsideSection, a, b) {
			p.problem(a, b, codes.HtopOutsideSection, "a line before any [section] header: htop ignores it", nil, false)
		}
		return
	}
	if !s.value {
		msg := "a line with no \"=\": htop ignores it"
		if s.rawOff > 0 {
			msg = "a key with an empty value: htop ignores the line"
		}
		if c := strings.IndexByte(p.text[a:b], ':'); p.warn(codes.HtopNoValue, a, b, "%s", msg) && s.rawOff == 0 && c > 0 {
			// "total.color: blue": the other INI files' delimiter.
			p.f.Problems[len(p.f.Problems)-1].Fix = &Fix{Off: a + c, End: a + c + 1, Text: " ="}
		}
		return
	}
	if s.cut >= 0 {
		p.warn(codes.HtopValueCut, s.cut, b, "PCP %s's pcp-htop splits the line at every \"=\" and keeps only the text before the second one: the value it uses is %q (7.1.1 and later take the whole rest of the line)", p.r.Rules.Version, short(string(src[s.valOff:s.valEnd])))
	}
	key := p.text[s.keyOff:s.keyEnd]
	e := Entry{Key: key, KeyOff: s.keyOff, Value: p.text[s.valOff:s.valEnd], ValueOff: s.valOff, Line: p.lineOf(a)}
	p.f.Entries = append(p.f.Entries, e)
	p.sect.sec.Entries = p.f.Entries[p.sect.firstEntry:len(p.f.Entries):len(p.f.Entries)]
	switch p.f.Kind {
	case Meter:
		p.meterKey(e, s, a, b, htopLine)
	case Column:
		p.columnKey(e, a, b, htopLine)
	case Screen:
		p.screenKey(e, a, b, htopLine)
	}
}

// header reads a "[NAME]" line: validate the name, check it is new, make
// the object.
func (p *parser) header(s split, a, b, htopLine int) {
	src := p.f.Src
	kind := p.f.Kind
	// The key (text before any "=", trimmed) is what htop looks at.
	nameOff := s.keyOff + 1
	rb := strings.LastIndexByte(string(src[nameOff:s.keyEnd]), ']')
	prev := p.sect
	if p.r.Rules.ColumnReset || kind != Column {
		p.sect = nil
	}
	if rb < 0 {
		raw := string(src[nameOff:s.keyEnd])
		sec := &Section{Name: raw, HeadOff: a, HeadEnd: b, Line: p.lineOf(a)}
		p.f.Sections = append(p.f.Sections, sec)
		p.inHeader = sec
		if p.over(codes.HtopBadName, a, b) {
			return
		}
		p.problem(a, b, codes.HtopBadName, fmt.Sprintf("no closing \"]\" on the %s name: htop prints an error and skips the section's lines%s", kind, p.leakNote(prev)),
			p.nameMessage("no closing brace on", raw, htopLine), false)
		return
	}
	name := string(src[nameOff : nameOff+rb])
	sec := &Section{Name: name, HeadOff: a, HeadEnd: b, Line: p.lineOf(a)}
	p.f.Sections = append(p.f.Sections, sec)
	p.inHeader = sec
	if bad := badNameByte(name); bad >= 0 {
		what := fmt.Sprintf("%q", name[bad:bad+1])
		if name[bad] >= 0x80 {
			what = fmt.Sprintf("byte 0x%02x", name[bad])
		}
		if p.over(codes.HtopBadName, nameOff+bad, nameOff+bad+1) {
			return
		}
		p.problem(nameOff+bad, nameOff+bad+1, codes.HtopBadName, fmt.Sprintf("a %s name must be a letter or \"_\" then letters, digits or \"_\" (it becomes part of a metric name and of htoprc), not %s: htop prints an error and skips the section's lines%s", kind, what, p.leakNote(prev)),
			p.nameMessage("invalid", name, htopLine), false)
		return
	}
	stored := name
	if len(stored) >= nameSize {
		stored = stored[:nameSize-1]
	}
	sec.Stored = stored
	if first, ok := p.r.names[kind][name]; ok {
		where := "earlier in this file"
		if first.file != p.f {
			where = "in a file htop reads before this one, " + first.file.Path + ","
		}
		p.warn(codes.HtopDuplicateSection, nameOff, nameOff+rb, "[%s] is already defined %s (line %d): the first definition wins and htop skips this section's lines without a word%s", name, where, first.what.Line, p.leakNote(prev))
		return
	}
	if len(name) >= nameSize {
		p.problem(nameOff, nameOff+rb, codes.HtopLongName, fmt.Sprintf("htop keeps only the first %d bytes of a %s name: this one is stored as %q (and a later name that starts with the same %d bytes is not recognised as the same one)", nameSize-1, kind, stored, nameSize-1), nil, false)
	}
	if name == "" {
		what := "its metrics are registered as htop.meter..X"
		switch kind {
		case Column:
			what = "htop never registers its metric, so the column has no values"
		case Screen:
			what = "its columns are registered as htop.screen..X"
		}
		p.problem(a, b, codes.HtopEmptyName, fmt.Sprintf("an empty %s name: htop accepts it, but %s", kind, what), nil, false)
	}
	sec.Accepted = true
	p.r.names[kind][stored] = defined[*Section]{sec, p.f}
	o := &object{sec: sec, keys: map[string]int{}, byName: map[string]*slot{}, firstEntry: len(p.f.Entries)}
	p.objects = append(p.objects, o)
	p.sect = o
}

// leakNote says where a rejected column section's keys go before 7.1.1.
func (p *parser) leakNote(prev *object) string {
	if p.f.Kind != Column || p.r.Rules.ColumnReset || prev == nil {
		return ""
	}
	return fmt.Sprintf("; but PCP %s's pcp-htop does not end the column before it, so the skipped section's keys set column [%s] (a metric line there registers htop.column.%s a second time, which is fatal)", p.r.Rules.Version, prev.sec.Name, prev.sec.Stored)
}

// badNameByte is the index of the first byte htop's name check refuses:
// a letter or "_" first, then letters, digits or "_" (-1: none).
func badNameByte(name string) int {
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return i
		}
	}
	return -1
}

// nameMessage is what htop prints for a rejected name: two lines, the
// second the name in quotes (meters end it with a newline, columns and
// screens do not, so the next message runs on).
func (p *parser) nameMessage(what, name string, htopLine int) []string {
	return []string{
		fmt.Sprintf("%s: %s %s name at %s line %d", progname, what, p.f.Kind, p.f.Path, htopLine),
		`"` + name + `"`,
	}
}

// dupKey notes a key set twice in one object: the last setting wins.
func (p *parser) dupKey(e Entry, a, b int) {
	if line, ok := p.sect.keys[e.Key]; ok {
		p.warn(codes.HtopDuplicateKey, e.KeyOff, e.KeyEnd(), "%s is already set on line %d: htop uses this later value", e.Key, line)
	}
	p.sect.keys[e.Key] = e.Line
}

// register is htop's pmRegisterDerivedMetric call for a key's value.
func (p *parser) register(sl *slot, name string, e Entry, a, b, htopLine int) {
	x := &Expr{Name: name, Text: e.Value, Off: e.ValueOff, KeyOff: e.KeyOff, KeyEnd: e.KeyEnd(), Line: e.Line, HtopLine: htopLine,
		Start: a, End: b, Section: p.sect.sec.Stored}
	p.f.Exprs = append(p.f.Exprs, x)
	if first, ok := p.r.registered[name]; ok {
		x.Skip, x.Why = true, "duplicate"
		if sl != nil && sl.metric == nil {
			sl.metric = x // htop did try: the fatal error is the finding
		}
		where := fmt.Sprintf("line %d", first.what.Line)
		if first.file != p.f {
			where = fmt.Sprintf("%s, line %d", first.file.Path, first.what.Line)
		}
		lib := LibpcpLines(name, e.Value, 0, "Duplicate global derived metric name")
		p.problem(e.KeyOff, e.KeyEnd(), codes.HtopDuplicateMetric, fmt.Sprintf("%s is already registered (%s): pmRegisterDerivedMetric fails with \"Duplicate global derived metric name\" and pcp-htop exits", name, where),
			FatalLines(p.f.Kind, p.f.Path, htopLine, lib), true)
		return
	}
	p.r.registered[name] = defined[*Expr]{x, p.f}
	if sl != nil && sl.metric == nil {
		sl.metric = x
	}
}

// meterColors are the names htop's meter parser knows for X.color.
var meterColors = []string{"gray", "darkgray", "red", "green", "blue", "cyan", "magenta", "yellow", "white"}

func (p *parser) meterKey(e Entry, s split, a, b, htopLine int) {
	switch e.Key {
	case "caption", "description":
		p.dupKey(e, a, b)
		return
	case "type", "maximum":
		p.dupKey(e, a, b)
		raw := p.text[s.rawOff:s.rawEnd]
		if e.Key == "type" && raw != "bar" && raw != "text" && raw != "graph" && raw != "led" {
			p.warn(codes.HtopInertKey, e.ValueOff, e.ValueEnd(), "htop compares the untrimmed text %q with bar, text, graph and led, and no release uses a meter's type anyway: the line does nothing", short(raw))
		} else {
			p.warn(codes.HtopInertKey, e.KeyOff, e.KeyEnd(), "htop stores a meter's %s but never uses it: the line does nothing", e.Key)
		}
		return
	}
	dot := strings.IndexByte(e.Key, '.')
	if dot < 0 {
		p.warn(codes.HtopUnknownKey, e.KeyOff, e.KeyEnd(), "htop ignores the meter key %q: a meter knows caption, description, type, maximum and X.metric, X.color, X.label, X.suffix", short(e.Key))
		return
	}
	x, attr := e.Key[:dot], e.Key[dot+1:]
	sl := p.sect.slot(x, e.KeyOff, e.KeyOff+dot)
	switch attr {
	case "metric":
		p.register(sl, "htop.meter."+p.sect.sec.Stored+"."+x, e, a, b, htopLine)
	case "color":
		p.dupKey(e, a, b)
		if !contains(meterColors, e.Value) {
			if p.warn(codes.HtopUnknownColor, e.ValueOff, e.ValueEnd(), "htop knows no colour %q and ignores the line silently (the metric keeps the default colour)%s; the colours are %s", short(e.Value), suggest(e.Value, meterColors), strings.Join(meterColors, ", ")) {
				p.fixLast(e.ValueOff, e.ValueEnd(), nearest(e.Value, meterColors))
			}
		}
	case "label", "suffix":
		p.dupKey(e, a, b)
	default:
		if p.warn(codes.HtopUnknownKey, e.KeyOff+dot+1, e.KeyEnd(), "htop ignores %q after %s. (a meter metric knows metric, color, label and suffix)%s, though the line still adds a metric %s to the meter", short(attr), short(x), suggest(attr, []string{"metric", "color", "label", "suffix"}), short(x)) {
			p.fixLast(e.KeyOff+dot+1, e.KeyEnd(), nearest(attr, []string{"metric", "color", "label", "suffix"}))
		}
	}
}

func (p *parser) columnKey(e Entry, a, b, htopLine int) {
	o := p.sect
	known := []string{"caption", "heading", "description", "width", "metric"}
	if p.r.Rules.ColumnOptions {
		known = append(known, "format", "instances", "default", "enabled")
	}
	if !contains(known, e.Key) {
		if p.warn(codes.HtopUnknownKey, e.KeyOff, e.KeyEnd(), "PCP %s's pcp-htop ignores the column key %q%s; a column knows %s", p.r.Rules.Version, short(e.Key), suggest(e.Key, known), strings.Join(known, ", ")) {
			p.fixLast(e.KeyOff, e.KeyEnd(), nearest(e.Key, known))
		}
		return
	}
	switch e.Key {
	case "metric":
		sl := o.slot("", e.KeyOff, e.KeyEnd())
		if o.sec.Stored == "" {
			return // PCPDynamicColumn_addMetric refuses an empty name
		}
		p.register(sl, "htop.column."+o.sec.Stored, e, a, b, htopLine)
		return
	case "width":
		p.width(e)
	case "format":
		p.format(e)
	case "instances":
		p.boolean(e, "true")
	case "default", "enabled":
		p.boolean(e, "false")
	}
	p.dupKey(e, a, b)
}

func (p *parser) screenKey(e Entry, a, b, htopLine int) {
	o := p.sect
	switch e.Key {
	case "heading", "caption", "sortKey":
		p.dupKey(e, a, b)
		return
	case "sortDirection":
		p.dupKey(e, a, b)
		if _, clean := atoi(e.Value); !clean {
			p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop reads sortDirection with atoi: %q is not an integer", short(e.Value))
		}
		return
	case "default", "enabled":
		p.dupKey(e, a, b)
		if !contains([]string{"true", "True", "false", "False"}, e.Value) {
			p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop knows true, True, false and False here and ignores %q (the screen stays enabled)", short(e.Value))
		}
		return
	}
	dot := strings.IndexByte(e.Key, '.')
	if dot < 0 {
		p.warn(codes.HtopUnknownKey, e.KeyOff, e.KeyEnd(), "htop ignores the screen key %q: a screen knows heading, caption, sortKey, sortDirection, default, enabled and X.metric, X.heading, X.caption, X.description, X.width, X.format, X.instances, X.default", short(e.Key))
		return
	}
	x, attr := e.Key[:dot], e.Key[dot+1:]
	sl := o.slot(x, e.KeyOff, e.KeyOff+dot)
	if len(x)+len(o.sec.Stored)+1 >= nameSize {
		sl.dropped = true
		if !sl.dropNoted {
			sl.dropNoted = true
			if p.r.Rules.ScreenNameCheck {
				p.problem(e.KeyOff, e.KeyOff+dot, codes.HtopScreenColumnName, fmt.Sprintf("%q is %d bytes, more than htop's %d: htop drops the column %s without a word", short(o.sec.Stored+":"+x), len(x)+len(o.sec.Stored)+1, nameSize-1, short(x)), nil, false)
			} else {
				p.problem(e.KeyOff, e.KeyOff+dot, codes.HtopScreenColumnName, fmt.Sprintf("%q is %d bytes, more than htop's %d: PCP %s's pcp-htop crashes (segmentation fault) reading this line", short(o.sec.Stored+":"+x), len(x)+len(o.sec.Stored)+1, nameSize-1, p.r.Rules.Version), nil, true)
			}
		}
		if attr == "metric" {
			x := &Expr{Name: "htop.screen." + o.sec.Stored + "." + x, Text: e.Value, Off: e.ValueOff, KeyOff: e.KeyOff, KeyEnd: e.KeyEnd(),
				Line: e.Line, HtopLine: htopLine, Start: a, End: b, Section: o.sec.Stored, Skip: true, Why: "name too long"}
			p.f.Exprs = append(p.f.Exprs, x)
		}
		return
	}
	switch attr {
	case "metric":
		p.register(sl, "htop.screen."+o.sec.Stored+"."+x, e, a, b, htopLine)
		return
	case "caption", "heading", "description":
	case "width":
		p.width(e)
	case "format":
		p.format(e)
	case "instances":
		p.boolean(e, "true")
	case "default":
		p.boolean(e, "false")
	default:
		known := []string{"metric", "heading", "caption", "description", "width", "format", "instances", "default"}
		if p.warn(codes.HtopUnknownKey, e.KeyOff+dot+1, e.KeyEnd(), "htop ignores %q after %s. (a screen column knows %s)%s, though the line still adds a column %s to the screen", short(attr), short(x), strings.Join(known, ", "), suggest(attr, known), short(x)) {
			p.fixLast(e.KeyOff+dot+1, e.KeyEnd(), nearest(attr, known))
		}
		return
	}
	p.dupKey(e, a, b)
}

// width checks a column width as htop reads it (strtoul before 6.1.0,
// atoi since: both stop at the first byte that is not a digit): 0 or a
// width beyond DYNAMIC_MAX_COLUMN_WIDTH falls back to the default, -5.
func (p *parser) width(e Entry) {
	n, clean := atoi(e.Value)
	limit := p.r.Rules.maxColumnWidth()
	switch {
	case !clean:
		p.warn(codes.HtopBadWidth, e.ValueOff, e.ValueEnd(), "%q is not an integer: htop reads it as %d%s", short(e.Value), n, widthFallback(n, limit))
	case n == 0 || n > limit || n < -limit:
		p.warn(codes.HtopBadWidth, e.ValueOff, e.ValueEnd(), "a width must be 1 to %d (negative: left-aligned)%s", limit, widthFallback(n, limit))
	}
}

func widthFallback(n, limit int) string {
	if n == 0 || n > limit || n < -limit {
		return ", so htop uses its default width, 5 left-aligned"
	}
	return ""
}

// columnFormats are the formats htop's column code compares with.
var columnFormats = []string{"percent", "process", "command", "device", "cgroup"}

func (p *parser) format(e Entry) {
	if !contains(columnFormats, e.Value) {
		if p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop knows the formats %s and shows %q columns unformatted%s", strings.Join(columnFormats, ", "), short(e.Value), suggest(e.Value, columnFormats)) {
			p.fixLast(e.ValueOff, e.ValueEnd(), nearest(e.Value, columnFormats))
		}
	}
}

// boolean checks a true/false value: htop compares with one word's two
// spellings (word and Word) and takes anything else as the other one.
func (p *parser) boolean(e Entry, word string) {
	if contains([]string{"true", "True", "false", "False"}, e.Value) {
		return
	}
	other := map[string]string{"true": "false", "false": "true"}[word]
	p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop compares %s with %s and %s only, so %q means %s", e.Key, word, strings.ToUpper(word[:1])+word[1:], short(e.Value), other)
}

// linesWith counts the lines of src that hold c.
func linesWith(src []byte, c byte) int {
	n := 0
	for len(src) > 0 {
		i := bytes.IndexByte(src, c)
		if i < 0 {
			break
		}
		n++
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		src = src[i+j+1:]
	}
	return n
}

// short is s for a message: at most 60 bytes of it.
func short(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:57] + "..."
}

// atoi reads n as C's atoi does (blanks, a sign, digits, stop at the
// first other byte); clean says the whole text was one integer.
func atoi(s string) (n int, clean bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n < 1<<31 {
			n = n*10 + int(s[i]-'0')
		}
		i++
		digits++
	}
	if neg {
		n = -n
	}
	return n, digits > 0 && i == len(s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest is ", did you mean X?" for the known word closest to s (case
// or one edit away), "" when none is.
func suggest(s string, known []string) string {
	if k := nearest(s, known); k != "" {
		return fmt.Sprintf(" (did you mean %q?)", k)
	}
	return ""
}

// nearest is the known word s is a case or one edit away from, "" for
// none.
func nearest(s string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, s) || editDistanceOne(strings.ToLower(s), k) {
			return k
		}
	}
	return ""
}

// fixLast gives the last finding the edit of [off, end) to word, when
// word is not "".
func (p *parser) fixLast(off, end int, word string) {
	if word == "" || len(p.f.Problems) == 0 {
		return
	}
	p.f.Problems[len(p.f.Problems)-1].Fix = &Fix{Off: off, End: end, Text: word, Safe: true}
}

// editDistanceOne reports whether a and b differ by one insertion,
// deletion, substitution or swap of neighbours.
func editDistanceOne(a, b string) bool {
	if a == b || len(a) > 64 {
		return false
	}
	if len(a) == len(b) {
		diff := []int{}
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		if len(diff) == 1 {
			return true
		}
		return len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a) != len(b)+1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	return a[i+1:] == b[i:]
}

// warn adds a finding of code over [off, end), its message formatted only
// when it is listed, and reports whether it was (false past maxPerCode,
// where a fix must not follow: the last problem is the stand-in). Past
// the cap the line is still read: only the finding is not listed.
func (p *parser) warn(code string, off, end int, format string, args ...any) bool {
	if p.over(code, off, end) {
		return false
	}
	p.problem(off, end, code, fmt.Sprintf(format, args...), nil, false)
	return true
}

// slotsReported: some slot of o lacks a metric (and has its own
// finding).
func slotsReported(o *object) bool {
	for _, sl := range o.slots {
		if !sl.dropped && sl.metric == nil {
			return true
		}
	}
	return false
}

// finish adds the findings about what the file's objects lack, and one
// about a file htop reads nothing from.
func (p *parser) finish() {
	for _, o := range p.objects {
		sec := o.sec
		switch p.f.Kind {
		case Meter:
			has := false
			for _, sl := range o.slots {
				if sl.metric != nil {
					has = true
					continue
				}
				p.warn(codes.HtopNoMetric, sl.off, sl.end, "%s has no %s.metric line: htop adds it to meter [%s] anyway and it never has a value", short(sl.name), short(sl.name), short(sec.Name))
			}
			if !has && len(o.slots) == 0 {
				p.warn(codes.HtopNoMetric, sec.HeadOff, sec.HeadEnd, "meter [%s] has no X.metric line: it has nothing to show", short(sec.Name))
			}
		case Column:
			if len(o.slots) == 0 || o.slots[0].metric == nil {
				if sec.Stored == "" && len(o.slots) > 0 {
					continue // the empty name is the finding
				}
				p.warn(codes.HtopNoMetric, sec.HeadOff, sec.HeadEnd, "column [%s] has no metric line: htop offers the column, but it never has a value", short(sec.Name))
			}
		case Screen:
			any := false
			for _, sl := range o.slots {
				if sl.dropped {
					continue
				}
				if sl.metric != nil {
					any = true
					continue
				}
				p.warn(codes.HtopNoMetric, sl.off, sl.end, "screen column %s has no %s.metric line: htop adds it to screen [%s] anyway and it never has a value", short(sl.name), short(sl.name), short(sec.Name))
			}
			if !any && !slotsReported(o) {
				p.warn(codes.HtopNoMetric, sec.HeadOff, sec.HeadEnd, "screen [%s] has no X.metric line that htop reads: it has no columns", short(sec.Name))
			}
		}
	}
	if p.r.Rules.Reads(p.f.Kind) && len(p.f.Sections) == 0 && len(p.f.Problems) > 0 {
		p.f.Problems = append([]Problem{{Off: 0, End: 0, Line: 1, Code: codes.HtopNoSections,
			Message: fmt.Sprintf("no [section] header at all: htop reads nothing from this file (is it an htop %s file?)", p.f.Kind)}}, p.f.Problems...)
	}
}
