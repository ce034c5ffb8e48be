package grammar

import (
	"math"
	"sort"
	"sync/atomic"
	"weak"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// File is one parsed derived-metric config file (pmLoadDerivedConfig).
type File struct {
	Path string
	// Text is the file's bytes. An editor's version made by Reparse
	// shares all but the edited piece with the version before; Bytes
	// makes them one slice, once.
	Text    *Text
	Version pcpver.Version
	// Definitions are in file order. A version Reparse made shares all
	// but the edited line's with the version before (pvec.Vec.Splice):
	// a keystroke copied 100,000 pointers at 100,000 lines.
	Definitions pvec.Vec[*Definition]
	Attributes  []*Attribute
	Comments    []Range
	Diagnostics []Diagnostic
	// Leak is libpcp's matchinst lexer flag after the last definition; pass
	// it to the next file of a config path (Options.Leak).
	Leak bool
	// OptionNovalue is option_novalue (PCP 7.1.1+) as the file leaves
	// it: what $PCP_DERIVED_CONTROL set (Options.DerivedControl), or else
	// the last "#control option_novalue=0|1" of the file; nil when
	// neither sets it.
	OptionNovalue *bool
	// ctl are libpcp's controls after the file, for the next file of
	// the path.
	ctl controls
	// treeCleared says libpcp's last parse, on line treeLine (0: none
	// yet, the built-in event.missed's), failed, clearing its static parse
	// tree (configReader.parsed); staleTrees that a definition registers
	// or is refused by that state.
	treeCleared bool
	treeLine    int32
	staleTrees  bool
	// treeDef is the definition whose tree libpcp's last successful
	// parse left (nil: event.missed's), and staleOf the tree each
	// registered double novalue() got (StaleTree).
	treeDef *Definition
	staleOf map[*Definition]*Definition
	// specReset says libpcp has parsed a mkconst( (which resets its
	// static spec descriptor) before the file's end; specZero are the
	// definitions with novalue( parsed before any (File.SpecZero).
	specReset bool
	specZero  map[*Definition]bool
	// controlsSet are the control items libpcp set while reading the
	// file, $PCP_DERIVED_CONTROL's first (DeriveDebug).
	controlsSet []controlSet

	// nameIx is the index of names Reparse reads (names.go), built on
	// first use or carried over from the version before an edit.
	nameIx atomic.Pointer[nameIndex]
	// replaced is, for a file Reparse made by reading one line again,
	// which of its previous version's definitions the line's replaced
	// (ReplacedDefinitions); nil otherwise.
	replaced *replacedDefinitions
	// standIns says Diagnostics have a stand-in for findings past the
	// cap (Diagnostic.More): known when they are made, rather than
	// looked for among them on every keystroke (only a full read makes
	// them: Reparse gives up on a file over the cap).
	standIns bool
	// linesRead are the lines this version's read went through
	// (LinesRead).
	linesRead int
	// exprWords are the words of the definitions' expressions, listed
	// by a read that prefetched verdicts; nil otherwise (ExprWords).
	exprWords *exprWords
}

// exprWords is what File.ExprWords returns.
type exprWords struct {
	words    []string
	unlisted []*Definition
}

// ExprWords returns the values of the names and strings among the tokens
// of the file's definitions' expressions as Tokens lexes them (with
// libpcp's matchinst flag down, as EachToken(d.Expr, f.Version, false)),
// which the read listed while it parsed them: words, in file order,
// repeats left in, of every definition but the unlisted ones (an
// expression over several lines, one libpcp rejects, one read with the
// flag up), whose words a caller must find itself. ok is false when the
// read listed none (a small file, an editor's version of one): lex them
// all.
func (f *File) ExprWords() (words []string, unlisted []*Definition, ok bool) {
	if f.exprWords == nil {
		return nil, nil, false
	}
	return f.exprWords.words, f.exprWords.unlisted, true
}

// LinesRead is how many lines of the text the read that made f went
// through: every line for a whole read (ParseText), the lines an edit
// touched for one Reparse made from the version before (an Enter at line
// 50,000 of 100,000 reads one or two).
func (f *File) LinesRead() int { return f.linesRead }

// replacedDefinitions says prev.Definitions[from:oldTo] became
// Definitions[from:newTo], every other definition being prev's own.
// prev is weak: a strong one would keep every earlier version of an
// edited document alive, each through the next.
type replacedDefinitions struct {
	prev               weak.Pointer[File]
	from, oldTo, newTo int
	// dl is the lines the edit added (removed, when negative): those
	// after it are prev's copied dl lines further (MovedDefinitions).
	dl int32
}

// ReplacedDefinitions reports, for a file Reparse made from prev by
// reading the edited line again, that prev.Definitions[from:oldTo] became
// f.Definitions[from:newTo] and that every other definition is prev's
// own, so that a caller finds what changed without comparing the lists
// (ok is false for any other file, or another prev).
func (f *File) ReplacedDefinitions(prev *File) (from, oldTo, newTo int, ok bool) {
	r := f.replaced
	if r == nil || r.dl != 0 || prev == nil || r.prev.Value() != prev {
		return 0, 0, 0, false
	}
	return r.from, r.oldTo, r.newTo, true
}

// MovedDefinitions reports, for a file Reparse made from prev by reading
// again the lines of an edit that added dl lines (removed, when
// negative), that prev.Definitions[from:oldTo] became
// f.Definitions[from:newTo], that those before are prev's own, and those
// after are prev's copied dl lines further: the same but for their
// positions and libpcp line, sharing their syntax tree, in the same
// state of libpcp's parser (SpecZero). ok is false for any other file,
// or another prev.
func (f *File) MovedDefinitions(prev *File) (from, oldTo, newTo int, dl int32, ok bool) {
	r := f.replaced
	if r == nil || r.dl == 0 || prev == nil || r.prev.Value() != prev {
		return 0, 0, 0, 0, false
	}
	return r.from, r.oldTo, r.newTo, r.dl, true
}

// Definition is one "name = expression" line.
//
// Its fields are laid out for size (144 bytes): a big config has a
// million definitions, and each is live for as long as its file.
type Definition struct {
	Name string
	// Expr is the expression text libpcp parses: after "=", leading white
	// space skipped (and, in pcp7, continuation backslash-newlines removed).
	Expr string
	// Verdict is what libpcp's parser does with Expr.
	Verdict   Verdict
	NameRange Range
	Range     Range // the whole definition, continuation lines included
	Line      int32 // the line libpcp names in its messages
	// Registered reports that libpcp registers the metric (it parses and
	// the name is new). A file's final line without a newline is parsed but
	// never registered: libpcp does not read it.
	Registered bool

	leaked  bool // Tokens were lexed in libpcp's leaked matchinst state
	release packedVersion
	// exprBase and exprRuns are where each byte of Expr is, from
	// Range.Start (offsets, an offsetMap kept flat).
	exprBase int32
	exprRuns *[]offsetRun
	memo     *memoEntry // shared parse of the same text (Options.Memo)
	tree     treeCell   // without a memo
}

// offsets is where each byte of the definition's expression is.
func (d *Definition) offsets() offsetMap { return offsetMap{int(d.exprBase), d.exprRuns} }

// packedVersion is the release a definition was read by, in the six
// bytes its record has spare (a pointer to it took eight more).
type packedVersion [3]uint16

func packVersion(v pcpver.Version) packedVersion {
	c := func(n int) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }
	return packedVersion{c(v.Major), c(v.Minor), c(v.Patch)}
}

// version is the release whose rules the definition was read by.
func (d *Definition) version() pcpver.Version {
	return pcpver.Version{Major: int(d.release[0]), Minor: int(d.release[1]), Patch: int(d.release[2])}
}

// treeCell holds a syntax tree once built: one pointer, where a sync.Once
// and the tree beside it cost six words in every definition.
type treeCell struct{ p atomic.Pointer[treeResult] }

type treeResult struct {
	tree Node
	err  error
}

// Tree returns the expression's syntax tree, built on first use (the
// participle parse costs more than the rest of reading a file). The error
// says where parsing stopped when the expression is broken.
func (d *Definition) Tree() (Node, error) { return d.TreeWith(nil) }

// TreeWith is Tree taking participle's parse, if it builds the tree, from
// shapes: from an earlier definition of the same shape (Shapes).
//
// Two callers racing may both build the tree; both get the one stored
// first, so a definition's nodes are the same for everyone (the checker
// keys its findings by them).
func (d *Definition) TreeWith(shapes *Shapes) (Node, error) {
	cell := &d.tree
	if d.memo != nil {
		cell = &d.memo.tree
	}
	if r := cell.p.Load(); r != nil {
		return r.tree, r.err
	}
	tree, err := d.buildTree(shapes)
	cell.p.CompareAndSwap(nil, &treeResult{tree, err})
	r := cell.p.Load()
	return r.tree, r.err
}

func (d *Definition) buildTree(shapes *Shapes) (Node, error) {
	// The tree describes the text; libpcp's leaked lexer state is
	// reported by the verdict.
	toks, done := shapes.lex(d.Expr, d.version())
	defer done()
	return parseShared(d.Expr, toks, shapes)
}

// DropTree forgets the tree built by Tree (the next call builds it
// again), for a caller done with it that holds many definitions: check
// of a big config keeps only a window of trees at a time. A tree shared
// through a Memo is the memo's and stays.
func (d *Definition) DropTree() { d.tree.p.Store(nil) }

// Tokens lexes the expression as the verdict did (in libpcp's matchinst
// state at the definition), there even for broken text (for completion).
// They are lexed again on every call rather than kept: a definition's
// tokens would cost several times its text for as long as the file lives.
func (d *Definition) Tokens() []Token { return Tokens(d.Expr, d.version(), d.leaked) }

// ExprPos converts a byte offset in d.Expr to an offset in f, the file d
// is in (a definition kept across versions of an edited file has no
// offset of its own: see Pos).
func (f *File) ExprPos(d *Definition, i int) int {
	return f.OffsetOf(d.Range.Start) + d.offsets().fileOffset(i, len(d.Expr))
}

// ExprRange is the range of f covering the bytes [start, end) of d.Expr.
func (f *File) ExprRange(d *Definition, start, end int) Range {
	return Range{Start: f.Pos(f.ExprPos(d, start)), End: f.Pos(f.ExprPos(d, end))}
}

// offsetMap maps each byte of an expression to its offset in the file,
// counted from the definition's start (Range.Start), so that it stays
// true when an edit elsewhere moves the definition. The
// expression is the file's text with continuation backslash-newlines
// cut out, so it is a few contiguous runs of the file: one run in
// almost every definition, where a slice of offsets cost eight bytes per
// byte of expression. The first run is kept inline, so that a one-line
// definition needs no allocation for it.
// The expression's length, n, is the definition's to give.
type offsetMap struct {
	base int          // offset of the first byte: the first run's
	more *[]offsetRun // the runs after the first, nil for none
}

func (m offsetMap) runCount(n int) int {
	switch {
	case n == 0:
		return 0
	case m.more == nil:
		return 1
	}
	return 1 + len(*m.more)
}

func (m offsetMap) run(k int) offsetRun {
	if k == 0 {
		return offsetRun{0, m.base}
	}
	return (*m.more)[k-1]
}

// offsetRun is a stretch of the expression that is contiguous in the
// file: expression byte at maps to file offset off.
type offsetRun struct {
	at, off int
}

// fileOffset is the offset of expression byte i: 0 for an empty
// expression, the first byte's for i < 0, one past the last byte's for
// i at or past the end.
func (m offsetMap) fileOffset(i, n int) int {
	if n == 0 {
		return 0
	}
	if i >= n {
		return m.fileOffset(n-1, n) + 1
	}
	i = max(i, 0)
	k := sort.Search(m.runCount(n), func(k int) bool { return m.run(k).at > i }) - 1
	r := m.run(k)
	return r.off + i - r.at
}

// exprIndex is the index of the expression byte at offset offset;
// an offset in a cut-out continuation maps to the byte before it, one
// before the expression to 0, one just past it to its length, and
// anything else to -1.
func (m offsetMap) exprIndex(offset, n int) int {
	if n == 0 {
		return -1
	}
	if offset == m.fileOffset(n-1, n)+1 {
		return n
	}
	for k := range m.runCount(n) {
		r := m.run(k)
		end := n
		if k+1 < m.runCount(n) {
			end = m.run(k + 1).at
		}
		switch {
		case offset < r.off:
			return max(r.at-1, 0)
		case offset < r.off+end-r.at:
			return r.at + offset - r.off
		}
	}
	return -1
}

// Attribute is a "name(oneline) = ..." or "name(helptext) = ..." line.
type Attribute struct {
	Metric string
	Attr   string
	Value  string
	Range  Range
	Line   int
	// Applied reports that libpcp sets the attribute.
	Applied bool
}

// DefinitionAt returns the definition whose range contains the offset.
func (f *File) DefinitionAt(offset int) *Definition {
	return f.DefinitionAtPos(f.Pos(offset))
}

// DefinitionAtPos returns the definition whose range contains p.
func (f *File) DefinitionAtPos(p Pos) *Definition {
	// Definitions are in file order and do not overlap.
	i := f.Definitions.Search(func(d *Definition) bool { return d.Range.End.Compare(p) >= 0 })
	if i < f.Definitions.Len() && f.Definitions.At(i).Range.Start.Compare(p) <= 0 {
		return f.Definitions.At(i)
	}
	return nil
}

// ExprIndex converts an offset of f inside d's expression to an index
// into d.Expr (-1 when outside).
func (f *File) ExprIndex(d *Definition, offset int) int {
	return d.offsets().exprIndex(offset-f.OffsetOf(d.Range.Start), len(d.Expr))
}

// ValidMetricName reports whether libpcp accepts name for a derived metric.
func ValidMetricName(name string) bool { return name != "" && validMetricName(name) }

// StaleTree reports, for a registered definition with novalue() on both
// sides of a ternary (Verdict.Stale), which definition's expression
// libpcp registered it with: the one it parsed last, or nil for the
// built-in event.missed (anon(PM_TYPE_U32)) when none parsed before it.
// ok is false for every other definition.
func (f *File) StaleTree(d *Definition) (src *Definition, ok bool) {
	src, ok = f.staleOf[d]
	return src, ok
}

// HasStaleTrees reports whether a definition of f registers with, or is
// refused by, a parse tree libpcp left from an earlier definition
// (StaleTree): such findings name that definition's line, so they are not
// only moved when lines are added or removed above it.
func (f *File) HasStaleTrees() bool { return f.staleTrees }

// SpecZero reports whether libpcp 6.2.2 to 7.0.x parses d's novalue(...)
// with its static spec descriptor still all zeros: no mkconst( (which
// resets it to PM_INDOM_NULL and the rest) was parsed before d in the
// process. Such a novalue(SPECS) has instance domain 0.0.
func (f *File) SpecZero(d *Definition) bool { return f.specZero[d] }
