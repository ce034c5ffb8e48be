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
	"path/filepath"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"

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
