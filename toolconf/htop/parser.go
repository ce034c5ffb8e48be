package htop

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
)

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

// fixLast gives the last finding the edit of [off, end) to word, when
// word is not "".
func (p *parser) fixLast(off, end int, word string) {
	if word == "" || len(p.f.Problems) == 0 {
		return
	}
	p.f.Problems[len(p.f.Problems)-1].Fix = &Fix{Off: off, End: end, Text: word, Safe: true}
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
