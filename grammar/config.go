package grammar

import (
	"bytes"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// File is one parsed derived-metric config file (pmLoadDerivedConfig).
type File struct {
	Path        string
	Src         []byte
	Version     pcpver.Version
	Definitions []*Definition
	Attributes  []*Attribute
	Comments    []Range
	Diagnostics []Diagnostic
	// Leak is libpcp's matchinst lexer flag after the last definition; pass
	// it to the next file of a config path (Options.Leak).
	Leak bool
	// OptionNovalue is the last "#control option_novalue=0|1" of the file
	// (PCP 7.1.1+), nil when it has none.
	OptionNovalue *bool

	lineStarts []int
	// col16At holds UTF-16 columns at checkpoints, so Pos scans at most
	// col16Step bytes of a line instead of the whole line up to the
	// offset (a 10 MB single-line file has tens of thousands of
	// findings, each needing a position).
	col16At []col16Mark
}

// col16Step is the spacing of File.col16At's checkpoints.
const col16Step = 4096

// col16Mark is the UTF-16 column of the rune starting at offset, counted
// from its line's start.
type col16Mark struct {
	offset, col16 int
}

// Definition is one "name = expression" line.
type Definition struct {
	Name      string
	NameRange Range
	// Expr is the expression text libpcp parses: after "=", leading white
	// space skipped (and, in pcp7, continuation backslash-newlines removed).
	Expr string
	// Verdict is what libpcp's parser does with Expr.
	Verdict Verdict
	// Registered reports that libpcp registers the metric (it parses and
	// the name is new). A file's final line without a newline is parsed but
	// never registered: libpcp does not read it.
	Registered bool
	Range      Range // the whole definition, continuation lines included
	Line       int   // the line libpcp names in its messages

	exprOffsets offsetMap // file offset of each byte of Expr
	leaked      bool      // Tokens were lexed in libpcp's leaked matchinst state
	version     pcpver.Version
	memo        *memoEntry // shared parse of the same text (Options.Memo)

	treeOnce sync.Once
	tree     Node
	treeErr  error
}

// Tree returns the expression's syntax tree, built on first use (the
// participle parse costs more than the rest of reading a file). The error
// says where parsing stopped when the expression is broken.
func (d *Definition) Tree() (Node, error) {
	if d.memo != nil {
		e := d.memo
		e.once.Do(func() { e.tree, e.err = d.buildTree() })
		return e.tree, e.err
	}
	d.treeOnce.Do(func() { d.tree, d.treeErr = d.buildTree() })
	return d.tree, d.treeErr
}

func (d *Definition) buildTree() (Node, error) {
	if d.leaked {
		// The tree describes the text; libpcp's leaked lexer state is
		// reported by the verdict.
		return ParseExpr(d.Expr, d.version)
	}
	return parseTokens(d.Tokens())
}

// Tokens lexes the expression as the verdict did (in libpcp's matchinst
// state at the definition), there even for broken text (for completion).
// They are lexed again on every call rather than kept: a definition's
// tokens would cost several times its text for as long as the file lives.
func (d *Definition) Tokens() []Token { return Tokens(d.Expr, d.version, d.leaked) }

// ExprPos converts a byte offset in Expr to a file offset.
func (d *Definition) ExprPos(i int) int { return d.exprOffsets.fileOffset(i) }

// offsetMap maps each byte of an expression to its file offset. The
// expression is the file's text with continuation backslash-newlines
// cut out, so it is a few contiguous runs of the file: one run in
// almost every definition, where a slice of offsets cost eight bytes per
// byte of expression.
type offsetMap struct {
	runs []offsetRun
	n    int // bytes in the expression
}

// offsetRun is a stretch of the expression that is contiguous in the
// file: expression byte at maps to file offset off.
type offsetRun struct {
	at, off int
}

func newOffsetMap(offs []int) offsetMap {
	m := offsetMap{n: len(offs)}
	for i, o := range offs {
		if i == 0 || o != offs[i-1]+1 {
			m.runs = append(m.runs, offsetRun{i, o})
		}
	}
	return m
}

// fileOffset is the file offset of expression byte i: 0 for an empty
// expression, the first byte's for i < 0, one past the last byte's for
// i at or past the end.
func (m offsetMap) fileOffset(i int) int {
	if m.n == 0 {
		return 0
	}
	if i >= m.n {
		return m.fileOffset(m.n-1) + 1
	}
	i = max(i, 0)
	k := sort.Search(len(m.runs), func(k int) bool { return m.runs[k].at > i }) - 1
	return m.runs[k].off + i - m.runs[k].at
}

// exprIndex is the index of the expression byte at file offset offset;
// an offset in a cut-out continuation maps to the byte before it, one
// before the expression to 0, one just past it to its length, and
// anything else to -1.
func (m offsetMap) exprIndex(offset int) int {
	if m.n == 0 {
		return -1
	}
	if offset == m.fileOffset(m.n-1)+1 {
		return m.n
	}
	for k, r := range m.runs {
		end := m.n
		if k+1 < len(m.runs) {
			end = m.runs[k+1].at
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

// Options control ParseConfig.
type Options struct {
	Version pcpver.Version
	// Memo, when set, remembers each expression's verdict and
	// syntax tree, so re-reading an edited file (an editor does, on every
	// keystroke) only parses the lines that changed.
	Memo *Memo
	// Leak is libpcp's matchinst flag left by earlier files in the same
	// process (File.Leak of the previous file).
	Leak bool
	// Registered holds derived names registered by earlier files.
	Registered map[string]bool
}

// builtinDerived are registered by libpcp before any config is read.
var builtinDerived = []string{"event.flags", "event.missed"}

// ParseConfig parses a config file the way pmLoadDerivedConfig reads it,
// line by line with the same quirks, and records exact positions. Every
// definition is parsed on its own, so one bad line never hides another.
func ParseConfig(path string, src []byte, opts Options) *File {
	f := &File{Path: path, Src: src, Version: opts.Version, Leak: opts.Leak}
	f.lineStarts = lineStarts(src)
	f.col16At = col16Marks(src)
	registered := map[string]bool{}
	for _, n := range builtinDerived {
		registered[n] = true
	}
	for n := range opts.Registered {
		registered[n] = true
	}
	r := &configReader{f: f, src: src, registered: registered, attrs: map[string]map[string]bool{}, lineno: 1, memo: opts.Memo}
	r.run()
	return f
}

// configReader mirrors libpcp's character loop in __dminit_configfile.
type configReader struct {
	f          *File
	src        []byte
	pos        int
	registered map[string]bool
	attrs      map[string]map[string]bool // metric → attributes set
	lineno     int                        // libpcp's line counter
	clineno    int                        // pcp7: continuation lines pending
	memo       *Memo
	vs         verdictScratch // reused by every definition's verdict
}

// logicalLine is one line as libpcp sees it: bytes and their file offsets.
type logicalLine struct {
	buf       []byte
	offs      []int
	eq        int // index of the first "=", or -1
	lp, rp    int // first "(" and ")" before the "=", or -1
	start     int // file offset of the line's first byte
	end       int // file offset just past the newline (or EOF)
	finalLine bool
}

func (r *configReader) run() {
	continuation := r.f.Version.Has(pcpver.Continuation)
	ln := logicalLine{eq: -1, lp: -1, rp: -1}
	lastc := byte(0)
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		i := r.pos
		r.pos++
		if len(ln.buf) == 0 && len(ln.offs) == 0 {
			ln.start = i
		}
		if ln.eq == -1 {
			switch {
			case c == '=':
				ln.eq = len(ln.buf)
			case c == '(' && ln.lp == -1:
				ln.lp = len(ln.buf)
			case c == ')' && ln.rp == -1:
				ln.rp = len(ln.buf)
			}
		}
		if continuation && c == '\n' && lastc == '\\' {
			ln.buf, ln.offs = ln.buf[:len(ln.buf)-1], ln.offs[:len(ln.offs)-1]
			r.clineno++
			lastc = c
			continue
		}
		if c == '\n' {
			ln.end = r.pos
			r.line(&ln)
			r.lineno++
			if r.clineno > 0 {
				r.lineno += r.clineno
				r.clineno = 0
			}
			// The buffers are reused: what outlives the line is copied.
			ln = logicalLine{eq: -1, lp: -1, rp: -1, start: r.pos, buf: ln.buf[:0], offs: ln.offs[:0]}
			lastc = 0
			continue
		}
		ln.buf = append(ln.buf, c)
		ln.offs = append(ln.offs, i)
		lastc = c
	}
	if len(ln.buf) > 0 {
		ln.end, ln.finalLine = len(r.src), true
		r.diag(Range{r.f.Pos(ln.start), r.f.Pos(len(r.src))}, SeverityWarning, "no-final-newline",
			"the last line has no newline: libpcp never reads it, so this definition is ignored", nil)
		r.line(&ln)
	}
}

func (r *configReader) diag(rg Range, sev Severity, code, msg string, pcp []string) {
	r.f.Diagnostics = append(r.f.Diagnostics, Diagnostic{Range: rg, Severity: sev, Code: code, Message: msg, PCP: pcp})
}

func (r *configReader) prefix(kind string) string {
	return fmt.Sprintf("[%s:%d] %s: ", r.f.Path, r.lineno, kind)
}

func (r *configReader) lineRange(ln *logicalLine) Range {
	end := ln.end
	if end > ln.start && end <= len(r.src) && r.src[end-1] == '\n' {
		end--
	}
	return Range{r.f.Pos(ln.start), r.f.Pos(end)}
}

// line handles one logical line, like the body of libpcp's loop.
func (r *configReader) line(ln *logicalLine) {
	buf := ln.buf
	rg := r.lineRange(ln)
	if k := bytes.IndexByte(buf, 0); k >= 0 {
		r.diag(Range{r.f.Pos(ln.offs[k]), r.f.Pos(ln.offs[k] + 1)}, SeverityError, "nul-byte",
			"NUL byte in the line: libpcp stops reading the line here", nil)
		return
	}
	if !utf8.Valid(buf) {
		r.diag(rg, SeverityWarning, "invalid-utf8", "the line is not valid UTF-8", nil)
	}
	if len(buf) == 0 {
		return
	}
	if buf[0] == '#' {
		r.f.Comments = append(r.f.Comments, rg)
		if r.f.Version.Has(pcpver.ControlLines) && len(buf) >= 8 && strings.EqualFold(string(buf[:8]), "#control") {
			r.control(ln, rg)
		}
		return
	}
	text := string(buf)
	if ln.eq == -1 {
		r.diag(rg, SeverityError, "missing-equals", "missing \"=\" after the derived metric name",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: missing ``='' after derived metric name", text})
		return
	}
	nameEnd := ln.eq
	if ln.lp != -1 {
		nameEnd = ln.lp
	}
	nameStart := 0
	for nameStart < nameEnd && isSpace(buf[nameStart]) {
		nameStart++
	}
	for nameEnd > nameStart && isSpace(buf[nameEnd-1]) {
		nameEnd--
	}
	name := text[nameStart:nameEnd]
	nameRange := Range{r.f.Pos(ln.offs[min(nameStart, len(ln.offs)-1)]), r.f.Pos(r.offAt(ln, nameEnd))}
	if name == "" {
		r.diag(rg, SeverityError, "missing-name", "derived metric name missing before \"=\"",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: derived metric name missing", text})
		return
	}
	if !validMetricName(name) {
		r.diag(nameRange, SeverityError, "illegal-name",
			fmt.Sprintf("illegal derived metric name %q: each dot-separated part must start with a letter and continue with letters, digits or _", name),
			[]string{r.prefix("Error") + fmt.Sprintf("pmLoadDerivedConfig: illegal derived metric name (%s)", name)})
		return
	}
	if ln.lp >= 0 && ln.rp == -1 {
		r.diag(rg, SeverityError, "missing-rparen", "missing \")\" after the attribute name",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: missing ')' after attribute", text})
		return
	}
	if ln.rp >= 0 && ln.lp == -1 {
		r.diag(rg, SeverityError, "missing-lparen", "missing \"(\" before the attribute name",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: missing '(' before attribute", text})
		return
	}
	if ln.lp >= 0 {
		r.attribute(ln, name, rg)
		return
	}
	ep := ln.eq + 1
	for ep < len(buf) && isSpace(buf[ep]) {
		ep++
	}
	if ep == len(buf) {
		r.diag(rg, SeverityError, "missing-expr", fmt.Sprintf("expression missing after \"%s =\"", name),
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: expression missing", text})
		return
	}
	r.definition(ln, name, nameRange, ep, rg)
}

// offAt is the file offset of buffer index i (one past the end allowed).
func (r *configReader) offAt(ln *logicalLine, i int) int {
	if i < len(ln.offs) {
		return ln.offs[i]
	}
	if len(ln.offs) == 0 {
		return ln.start
	}
	return ln.offs[len(ln.offs)-1] + 1
}

func (r *configReader) definition(ln *logicalLine, name string, nameRange Range, ep int, rg Range) {
	d := &Definition{
		Name:        name,
		NameRange:   nameRange,
		Expr:        string(ln.buf[ep:]),
		Range:       rg,
		Line:        r.lineno,
		exprOffsets: newOffsetMap(ln.offs[ep:]),
	}
	r.f.Definitions = append(r.f.Definitions, d)
	d.leaked, d.version = r.f.Leak, r.f.Version
	memo := r.memo.get(d.Expr, r.f.Version, r.f.Leak)
	raw := string(ln.buf[ln.eq+1:])
	header := r.prefix("Error") + fmt.Sprintf("pmRegisterDerived(%s, ...) syntax error", name)
	exprRange := func(a, b int) Range { return Range{r.f.Pos(d.ExprPos(a)), r.f.Pos(d.ExprPos(b))} }
	if r.registered[name] {
		d.Verdict = Verdict{Caret: 0, Message: "Duplicate global derived metric name"}
		if !ln.finalLine {
			r.diag(nameRange, SeverityError, "duplicate-name",
				fmt.Sprintf("derived metric %s is already defined: libpcp rejects this definition", name),
				pcpSyntaxLines(header, raw, ep-ln.eq-1, d.Verdict.Message))
			// The whole line(s), newline included, so nothing is left behind.
			whole := Range{Start: r.f.Pos(ln.start), End: r.f.Pos(ln.end)}
			last := &r.f.Diagnostics[len(r.f.Diagnostics)-1]
			last.Fixes = append(last.Fixes, Fix{Title: "Remove this duplicate definition of " + name, Edits: []Edit{{Range: whole, NewText: ""}}})
		}
		return
	}
	wasLeaking := r.f.Leak
	if memo != nil {
		d.Verdict = memo.verdict
		memo.share(d)
	} else {
		d.Verdict = r.vs.verdict(d.Expr, r.f.Version, r.f.Leak)
		r.memo.put(d)
	}
	if ln.finalLine {
		return // libpcp never parses it, so its lexer state is untouched
	}
	r.f.Leak = d.Verdict.Leak
	if d.Verdict.OK {
		d.Registered = true
		r.registered[name] = true
		return
	}
	caret := d.Verdict.Caret
	near, end := tokensAtCaret(d, caret)
	msg := d.Verdict.Message
	if msg == "" {
		msg = syntaxExplanation(d.Expr, near)
	}
	if wasLeaking && strings.Contains(d.Expr, "/") {
		msg += " (libpcp is still lexing \"/\" as a matchinst pattern after an earlier failed matchinst( line)"
	}
	code, rg := "syntax", exprRange(caret, end)
	if r.f.Version.Less(pcpver.Latest) {
		if c, ok := r.newerConstruct(d, wasLeaking); ok {
			code = "dialect"
			msg = fmt.Sprintf("%s needs PCP %s or later (target: PCP %s); libpcp %s says: %s", c.What, c.Since(), r.f.Version, r.f.Version, msg)
			rg = exprRange(c.At.Start, c.At.End)
		}
	}
	r.diag(rg, SeverityError, code, msg, pcpSyntaxLines(header, raw, ep-ln.eq-1+caret, d.Verdict.Message))
}

// pcpSyntaxLines renders libpcp's four-line syntax error report: the
// header, the text after "=", a caret line that keeps white space and
// blanks everything else, and the detail line when libpcp has one.
func pcpSyntaxLines(header, raw string, caret int, msg string) []string {
	cl := []byte(raw)
	for i, c := range cl {
		switch {
		case i == caret:
			cl[i] = '^'
		case !isSpace(c):
			cl[i] = ' '
		}
	}
	lines := []string{header, raw, string(cl)}
	if msg != "" {
		lines = append(lines, msg)
	}
	return lines
}

// tokensAtCaret lexes the expression up to the caret, keeping only the
// token there and the two before it (what syntaxExplanation reads), and
// the end of the caret's token (one past the caret when none starts
// there). A long line is lexed without keeping its tokens.
func tokensAtCaret(d *Definition, caret int) (near []Token, end int) {
	it := newTokenIter(d.Expr, d.version, d.leaked)
	var window [3]Token
	n := 0
	end = caret + 1
	for {
		t := it.next()
		if near == nil {
			window[0], window[1], window[2] = window[1], window[2], t
			n++
			if t.Offset == caret {
				near = window[3-min(n, 3):]
			}
		}
		if t.Offset == caret && t.End > caret {
			end = t.End
			break
		}
		if t.Kind == TokEOS {
			break
		}
	}
	return near, end
}

// syntaxExplanation describes an error libpcp reports without a message,
// from the token at the caret and the ones before it: near ends with the
// token at the caret (empty when none starts there).
func syntaxExplanation(expr string, near []Token) string {
	if len(near) > 0 {
		i := len(near) - 1
		toks, t := near, near[len(near)-1]
		var prev Token
		if i > 0 {
			prev = toks[i-1]
		}
		operand := func(k TokenKind) bool {
			switch k {
			case TokName, TokInteger, TokDouble, TokRParen, TokInstName:
				return true
			}
			return false
		}
		switch {
		case t.Kind == TokEOS && prev.Kind == TokRParen && strings.Contains(expr, "mkconst("):
			return "the expression ends too early: mkconst() needs a number and at least one spec, e.g. mkconst(1, type=u32)"
		case t.Kind == TokEOS:
			return "the expression ends too early"
		case t.Kind == TokInstName:
			return fmt.Sprintf("an instance filter %s may only follow a metric name or a parenthesised expression, once", t.Text)
		case t.Kind == TokType || t.Kind == TokSemantics || t.Kind == TokUnits || t.Kind == TokIndom || t.Kind == TokMeta:
			return fmt.Sprintf("%q is a reserved word: it can only be a mkconst() or novalue() spec key", t.Text)
		case t.Kind == TokString:
			return "a string is only allowed as rescale()'s units or a spec value"
		case t.Kind == TokDouble && prev.Kind == TokDouble || t.Kind == TokName && prev.Kind == TokInteger && (t.Text[0] == 'e' || t.Text[0] == 'E'):
			return fmt.Sprintf("unexpected %q: numbers have no exponent or second decimal point in derived metrics", t.Text)
		case operand(prev.Kind) && (operand(t.Kind) || t.Kind == TokFunc || t.Kind == TokNot):
			return fmt.Sprintf("an operator is missing before %q", t.Text)
		case prev.Kind == TokLParen && i >= 2 && toks[i-2].Kind == TokFunc && toks[i-2].Value == "mkconst":
			return "mkconst() takes an unsigned number first, e.g. mkconst(1, type=32)"
		case prev.Kind == TokLParen && i >= 2 && toks[i-2].Kind == TokFunc && toks[i-2].Value == "defined":
			return "defined() takes a metric name"
		case t.Kind == TokAssign || t.Kind == TokComma:
			return fmt.Sprintf("unexpected %q: \",\" and \"=\" only appear in function arguments and spec lists", t.Text)
		}
		return fmt.Sprintf("unexpected %q here", t.Text)
	}
	return "syntax error"
}

func (r *configReader) attribute(ln *logicalLine, name string, rg Range) {
	buf := ln.buf
	attr := strings.TrimFunc(string(buf[ln.lp+1:ln.rp]), func(c rune) bool { return c < 128 && isSpace(byte(c)) })
	text := string(buf)
	if ln.rp < ln.lp {
		attr = ""
	}
	if attr == "" {
		r.diag(rg, SeverityError, "attr-missing-name", "attribute name missing between \"(\" and \")\"",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: attribute name missing", text})
		return
	}
	vp := ln.eq + 1
	for vp < len(buf) && isSpace(buf[vp]) {
		vp++
	}
	var delim byte
	if vp < len(buf) && (buf[vp] == '"' || buf[vp] == '\'') {
		delim = buf[vp]
		vp++
	}
	if vp == len(buf) {
		r.diag(rg, SeverityError, "attr-missing-value", "attribute value missing after \"=\"",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: attribute value missing", text})
		return
	}
	a := &Attribute{Metric: name, Attr: attr, Range: rg, Line: r.lineno}
	r.f.Attributes = append(r.f.Attributes, a)
	if delim == 0 {
		a.Value = string(buf[vp:])
	} else if !r.quotedValue(ln, a, vp, delim) {
		return
	}
	var problem, pcp string
	switch {
	case !r.registered[name]:
		problem = fmt.Sprintf("cannot set %s: derived metric %s is not defined before this line", attr, name)
		pcp = fmt.Sprintf("pmLoadDerivedConfig: cannot set attribute, derived metric (%s) not defined", name)
	case attr != "oneline" && attr != "helptext":
		problem = fmt.Sprintf("unknown attribute %q: use oneline or helptext", attr)
		pcp = fmt.Sprintf("pmLoadDerivedConfig: attribute (%s) is unknown for metric (%s)", attr, name)
	case r.attrs[name][attr]:
		problem = fmt.Sprintf("%s of %s is already set", attr, name)
		pcp = fmt.Sprintf("pmLoadDerivedConfig: duplicate value for attribute (%s) of metric (%s)", attr, name)
	}
	if problem != "" {
		code := map[bool]string{true: "attr-undefined-metric", false: "attr-invalid"}[!r.registered[name]]
		r.diag(a.Range, SeverityError, code, problem, []string{r.prefix("Error") + pcp, text})
		return
	}
	if r.attrs[name] == nil {
		r.attrs[name] = map[string]bool{}
	}
	r.attrs[name][attr] = true
	a.Applied = true
}

// quotedValue reads a quoted attribute value, which may continue over more
// lines of the file: "\x" stands for x, a backslash before a newline drops
// the newline. It reports false when the value never ends.
func (r *configReader) quotedValue(ln *logicalLine, a *Attribute, vp int, delim byte) bool {
	var v []byte
	rest := ln.buf[vp:]
	xtralines := 0
	esc := false
	closed := false
	eof := false
	for !closed {
		var c byte
		switch {
		case len(rest) > 0:
			c, rest = rest[0], rest[1:]
		case xtralines == 0:
			c = '\n'
		case r.pos < len(r.src):
			c = r.src[r.pos]
			r.pos++
		default:
			eof = true
		}
		if eof {
			break
		}
		if c == '\n' {
			xtralines++
		}
		switch {
		case esc:
			esc = false
			if c != '\n' {
				v = append(v, c)
			}
		case c == '\\':
			esc = true
		case c == delim:
			closed = true
		default:
			v = append(v, c)
		}
	}
	a.Value = string(v)
	if !r.f.Version.Has(pcpver.Continuation) && xtralines > 1 {
		// 6.0.3 counts the lines of a multi-line value one short.
		r.lineno += xtralines - 1
	}
	if eof {
		a.Range.End = r.f.Pos(len(r.src))
		r.diag(a.Range, SeverityError, "attr-unterminated",
			fmt.Sprintf("the %c quoted value never ends: libpcp reads to the end of the file and loses every line after this one", delim),
			[]string{r.prefix("Error") + fmt.Sprintf("pmLoadDerivedConfig: missing termination (%c) for value", delim)})
		return false
	}
	var extra string
	switch {
	case len(rest) > 0:
		extra = strings.TrimLeft(string(rest), " \t\n\v\f\r")
	case xtralines > 0:
		// The value ended on a later line: libpcp reads the rest of that
		// line itself and (quirk) never looks at its first character.
		start := r.pos
		for r.pos < len(r.src) && r.src[r.pos] != '\n' {
			r.pos++
		}
		tail := r.src[start:r.pos]
		if r.pos < len(r.src) {
			r.pos++
		}
		a.Range.End = r.f.Pos(r.pos)
		for k := 1; k < len(tail); k++ {
			if !isSpace(tail[k]) {
				extra = string(tail[k:])
				break
			}
		}
		if r.f.Version.Has(pcpver.Continuation) {
			r.clineno += xtralines
		}
	}
	if extra != "" {
		r.diag(a.Range, SeverityWarning, "attr-extra-text",
			fmt.Sprintf("text %q after the closing %c is ignored", extra, delim),
			[]string{r.prefix("Warning") + fmt.Sprintf("pmLoadDerivedConfig: extra text (%s) after attribute value will be ignored", extra)})
	}
	return true
}

// control parses a pcp7 "#control name=value,..." line.
func (r *configReader) control(ln *logicalLine, rg Range) {
	if len(ln.buf) <= 9 {
		return
	}
	// libpcp skips "#control" and one more byte, then reads NAME=VALUE
	// items: the name runs to the next "=" (commas included), the value
	// is what strtol takes, and a "," goes on to the next item.
	for ns := string(ln.buf[9:]); ; {
		eq := strings.IndexByte(ns, '=')
		if eq < 0 {
			r.diag(rg, SeverityError, "control", fmt.Sprintf("missing \"=\" in derived metric control %q: libpcp ignores the rest of the line", ns),
				[]string{r.prefix("Error") + fmt.Sprintf("missing '=' in derived metric control (%s)", ns)})
			return
		}
		name, vs := ns[:eq], ns[eq+1:]
		if vs == "" || vs[0] == ',' {
			r.diag(rg, SeverityWarning, "control", fmt.Sprintf("missing value in derived metric control %q: libpcp ignores the rest of the line", ns),
				[]string{r.prefix("Warning") + fmt.Sprintf("missing value in derived metric control (%s)", ns)})
			return
		}
		value, n := cStrtol(vs)
		ve := vs[n:]
		if ve != "" && ve[0] != ',' {
			r.diag(rg, SeverityWarning, "control", fmt.Sprintf("bad value %q for derived metric control %q: libpcp ignores the rest of the line", vs, name),
				[]string{r.prefix("Warning") + fmt.Sprintf("bad value (%s) for derived metric control (%s)", vs, name)})
			return
		}
		switch control := knownControl(name); {
		case control == "":
			r.diag(rg, SeverityWarning, "control", fmt.Sprintf("unknown derived metric control %q (want global_limit, context_limit, debug_syntax, debug_semantics, debug_eval or option_novalue): libpcp ignores it", name),
				[]string{r.prefix("Warning") + fmt.Sprintf("unknown derived metric control (%s)", name)})
		default:
			if why := controlRefusal(control, value); why != "" {
				r.diag(rg, SeverityWarning, "control", fmt.Sprintf("libpcp cannot set %s=%d: %s", strings.ToLower(control), value, why),
					[]string{r.prefix("Warning") + fmt.Sprintf("failed to set derived metric control %s=%d: %s", name, value, why)})
			} else if control == "OPTION_NOVALUE" {
				on := value == 1
				r.f.OptionNovalue = &on
			}
		}
		if ve == "" {
			return
		}
		ns = ve[1:]
	}
}

// controlRefusal is libpcp's pmErrStr for a control value it will not
// set while a config loads, or "".
func controlRefusal(control string, value int32) string {
	const badArg = "Bad value for function argument" // PM_ERR_ARG
	switch control {
	case "GLOBAL_LIMIT":
		if value != -1 && value <= 0 {
			return badArg
		}
	case "CONTEXT_LIMIT":
		// Configs load before any context exists.
		return "Attempt to use an illegal context" // PM_ERR_NOCONTEXT
	default: // the debug flags and option_novalue
		if value != 0 && value != 1 {
			return badArg
		}
	}
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

// knownControl is the control a name abbreviates (libpcp compares the
// name's length of each, in table order, ignoring case), or "".
func knownControl(name string) string {
	for _, c := range []string{"GLOBAL_LIMIT", "CONTEXT_LIMIT", "DEBUG_SYNTAX", "DEBUG_SEMANTICS", "DEBUG_EVAL", "OPTION_NOVALUE"} {
		if len(name) <= len(c) && strings.EqualFold(name, c[:len(name)]) {
			return c
		}
	}
	return ""
}

// validMetricName is libpcp's checkname: dot-separated parts that start
// with a letter and go on with letters, digits or "_" (a trailing dot is
// accepted, as libpcp does).
func validMetricName(name string) bool {
	first := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case first:
			if !isAlpha(c) {
				return false
			}
			first = false
		case c == '.':
			first = true
		case !isAlpha(c) && !isDigit(c) && c != '_':
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// col16Marks records, for every col16Step bytes of src, the first rune
// start at or after the step and its UTF-16 column within its line.
func col16Marks(src []byte) []col16Mark {
	marks := make([]col16Mark, 0, len(src)/col16Step+1)
	col16 := 0
	for i := 0; i < len(src); {
		if i >= len(marks)*col16Step {
			marks = append(marks, col16Mark{i, col16})
		}
		c := src[i]
		switch {
		case c == '\n':
			col16 = 0
			i++
		case c < utf8.RuneSelf:
			col16++
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			col16 += utf16.RuneLen(r)
			i += size
		}
	}
	return marks
}

// Pos converts a file offset to a position.
func (f *File) Pos(offset int) Pos {
	offset = max(0, min(offset, len(f.Src)))
	line := 0
	lo, hi := 0, len(f.lineStarts)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if f.lineStarts[mid] <= offset {
			line, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	start := f.lineStarts[line]
	from, col16 := start, 0
	if k := offset / col16Step; k < len(f.col16At) {
		// The checkpoint of offset's step, or the one before when that
		// one lies past offset (it moved to a rune start); only a
		// checkpoint on offset's own line helps.
		m := f.col16At[k]
		if m.offset > offset && k > 0 {
			m = f.col16At[k-1]
		}
		if m.offset >= start && m.offset <= offset {
			from, col16 = m.offset, m.col16
		}
	}
	prefix := f.Src[from:offset]
	for i := 0; i < len(prefix); {
		if prefix[i] < utf8.RuneSelf { // ASCII: one UTF-16 unit, no decoding
			col16++
			i++
			continue
		}
		r, size := utf8.DecodeRune(prefix[i:]) // invalid bytes decode as U+FFFD: one unit
		col16 += utf16.RuneLen(r)
		i += size
	}
	return Pos{Offset: offset, Line: line + 1, Col: offset - start + 1, Col16: col16}
}

// Line returns the text of a 1-based line without its newline.
func (f *File) Line(n int) string {
	if n < 1 || n > len(f.lineStarts) {
		return ""
	}
	start := f.lineStarts[n-1]
	end := len(f.Src)
	if n < len(f.lineStarts) {
		end = f.lineStarts[n] - 1
	}
	return strings.TrimSuffix(string(f.Src[start:end]), "\r")
}

// newerConstruct explains a syntax error of the target release that a
// newer release would accept: the construct and the release that brought
// it, or the whole expression and the first grammar that accepts it.
func (r *configReader) newerConstruct(d *Definition, leak bool) (NewerConstruct, bool) {
	v := r.f.Version
	if !v.Has(pcpver.Continuation) && strings.HasSuffix(d.Expr, "\\") && r.pos < len(r.src) {
		n := len(d.Expr)
		return NewerConstruct{"a backslash-newline continuation line", pcpver.Continuation, Span{n - 1, n}}, true
	}
	if !LibpcpVerdict(d.Expr, pcpver.Latest, leak).OK {
		return NewerConstruct{}, false
	}
	if root, err := ParseExpr(d.Expr, pcpver.Latest); err == nil {
		if cs := NewerConstructs(root, v); len(cs) > 0 {
			return cs[0], true
		}
	}
	for _, f := range []pcpver.Feature{pcpver.Novalue, pcpver.DeltaOfExpr, pcpver.IndomSpec, pcpver.ExtraUnits} {
		if !v.Has(f) && LibpcpVerdict(d.Expr, f.Since(), leak).OK {
			return NewerConstruct{"this expression", f, Span{0, len(d.Expr)}}, true
		}
	}
	return NewerConstruct{}, false
}

// Offset converts a 0-based line and UTF-16 column (an LSP position) to a
// byte offset, clamped to the line.
func (f *File) Offset(line0, col16 int) int {
	if line0 < 0 {
		return 0
	}
	if line0 >= len(f.lineStarts) {
		return len(f.Src)
	}
	off := f.lineStarts[line0]
	end := len(f.Src)
	if line0+1 < len(f.lineStarts) {
		end = f.lineStarts[line0+1] - 1
	}
	for n := 0; off < end && n < col16; {
		r, size := utf8.DecodeRune(f.Src[off:end])
		n += len(utf16.Encode([]rune{r}))
		off += size
	}
	return off
}

// DefinitionAt returns the definition whose range contains the offset.
func (f *File) DefinitionAt(offset int) *Definition {
	// Definitions are in file order and do not overlap.
	i := sort.Search(len(f.Definitions), func(i int) bool { return f.Definitions[i].Range.End.Offset >= offset })
	if i < len(f.Definitions) && f.Definitions[i].Range.Start.Offset <= offset {
		return f.Definitions[i]
	}
	return nil
}

// ExprIndex converts a file offset inside the definition's expression to
// an index into Expr (-1 when outside).
func (d *Definition) ExprIndex(offset int) int { return d.exprOffsets.exprIndex(offset) }

// ValidMetricName reports whether libpcp accepts name for a derived metric.
func ValidMetricName(name string) bool { return name != "" && validMetricName(name) }

// Memo remembers the parse of expressions across ParseConfig calls. The
// entries are shared read-only between files; Trim keeps it to what the
// latest file uses. Safe for concurrent use.
type Memo struct {
	mu   sync.Mutex
	m    map[memoKey]*memoEntry
	used map[memoKey]bool
}

type memoKey struct {
	expr    string
	version pcpver.Version
	leaked  bool
}

type memoEntry struct {
	verdict Verdict
	// The tree is built once, by whichever definition asks first.
	once sync.Once
	tree Node
	err  error
}

// NewMemo makes an empty memo.
func NewMemo() *Memo { return &Memo{m: map[memoKey]*memoEntry{}, used: map[memoKey]bool{}} }

func (m *Memo) get(expr string, v pcpver.Version, leaked bool) *memoEntry {
	if m == nil {
		return nil
	}
	k := memoKey{expr, v, leaked}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[k]
	if e != nil {
		m.used[k] = true
	}
	return e
}

func (m *Memo) put(d *Definition) {
	if m == nil {
		return
	}
	k := memoKey{d.Expr, d.version, d.leaked}
	e := &memoEntry{verdict: d.Verdict}
	m.mu.Lock()
	m.m[k], m.used[k] = e, true
	m.mu.Unlock()
	e.share(d)
}

// share makes the definition build its tree through the entry.
func (e *memoEntry) share(d *Definition) { d.memo = e }

// Trim forgets the expressions not used since the last Trim.
func (m *Memo) Trim() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.m {
		if !m.used[k] {
			delete(m.m, k)
		}
	}
	m.used = map[memoKey]bool{}
}

// Len is the number of remembered expressions.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

// prefetch lexes and parses, on all CPUs, the text after the first "=" of
// every line, as the one-line definition libpcp would see (matchinst flag
// down, the usual case). Reading the files then finds most definitions
// done; any other line, or a line read in another state, simply misses.
func (m *Memo) prefetch(srcs []Source, v pcpver.Version) {
	seen := map[string]bool{}
	var exprs []string
	for _, s := range srcs {
		for _, line := range strings.Split(string(s.Src), "\n") {
			eq := strings.IndexByte(line, '=')
			if eq < 0 || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
				continue
			}
			expr := strings.TrimLeft(line[eq+1:], " \t")
			if expr != "" && !seen[expr] {
				seen[expr] = true
				exprs = append(exprs, expr)
			}
		}
	}
	entries := make([]*memoEntry, len(exprs))
	workers := min(runtime.NumCPU(), len(exprs)/256+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var vs verdictScratch
			for i := w; i < len(exprs); i += workers {
				entries[i] = &memoEntry{verdict: vs.verdict(exprs[i], v, false)}
			}
		}()
	}
	wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range exprs {
		m.m[memoKey{e, v, false}] = entries[i]
	}
}
