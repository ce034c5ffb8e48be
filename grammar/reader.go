package grammar

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

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
	// MaxPerCode, when positive, lists at most that many findings of
	// one code and severity in a file and counts the rest in one
	// stand-in (Diagnostic.More) where the first of them is, as the
	// checker does (checker.Options.MaxPerCode): 800,000 lines a
	// finding each cost 280 bytes a finding. Suppressed findings
	// (Suppressed) are listed and not counted.
	MaxPerCode int
	Suppressed func(*File, Diagnostic) bool
	// DerivedControl is $PCP_DERIVED_CONTROL as the process that loads
	// the config has it, nil when unset. PCP 7.1.1 and later read it
	// before any config (its warnings are reported at the start of the
	// first file of a path), and a #control line cannot change what it
	// set.
	DerivedControl *string

	// ctl are the controls earlier files of the path left (nil for
	// the first: the environment's then).
	ctl *controls
	// after is the file before in the path, whose last parse state
	// libpcp carries into this one (File.treeCleared); nil for the first.
	after *File
	// ownStrings makes every name and expression a copy of its own
	// rather than a substring of the text (Reparse's whole reads).
	ownStrings bool
}

// builtinDerived are registered by libpcp before any config is read.
var builtinDerived = []string{"event.flags", "event.missed"}

// ParseConfig parses a config file the way pmLoadDerivedConfig reads it,
// line by line with the same quirks, and records exact positions. Every
// definition is parsed on its own, so one bad line never hides another.
// The File keeps src, and its names and expressions are substrings of it:
// src must not change afterwards.
func ParseConfig(path string, src []byte, opts Options) *File {
	return parseConfig(path, NewText(src), opts, nil)
}

// ParseText is ParseConfig of a Text (an editor's buffer): the File
// keeps it.
func ParseText(path string, text *Text, opts Options) *File {
	return parseConfig(path, text, opts, nil)
}

// parseConfig is ParseText with the verdicts
// of the file's one-line definitions computed beforehand
// (prefetchVerdicts), or nil.
func parseConfig(path string, t *Text, opts Options, pre *prefetched) *File {
	f := &File{Path: path, Text: t, Version: opts.Version, Leak: opts.Leak, linesRead: t.LineCount()}
	if opts.after != nil {
		f.treeCleared, f.treeLine, f.treeDef = opts.after.treeCleared, opts.after.treeLine, opts.after.treeDef
		f.specReset = opts.after.specReset
	}
	src := t.Bytes()
	text := textOf(src)
	// Sized for the definitions the prefetch saw: grown one at a time,
	// a million names were rehashed again and again.
	expected := 0
	if pre != nil {
		expected = len(pre.lines)
	}
	registered := make(map[string]bool, expected+len(builtinDerived))
	for _, n := range builtinDerived {
		registered[n] = true
	}
	r := &configReader{f: f, src: src, text: text, registered: registered, earlier: opts.Registered, attrs: map[string]map[string]bool{}, lineno: 1, memo: opts.Memo, pre: pre, ownStrings: opts.ownStrings,
		capped: FindingCap{Max: opts.MaxPerCode, Suppressed: opts.Suppressed}, ctl: f.startControls(opts)}
	r.run()
	f.ctl = r.ctl
	f.Definitions = pvec.Of(r.defs)
	if pre != nil {
		f.exprWords = &exprWords{words: pre.allWords(), unlisted: r.unlisted}
	}
	if standIns := r.capped.StandIns(); len(standIns) > 0 {
		f.standIns = true
		f.Diagnostics = append(f.Diagnostics, standIns...)
		sort.SliceStable(f.Diagnostics, func(i, j int) bool { return f.Diagnostics[i].Range.Start.Before(f.Diagnostics[j].Range.Start) })
	}
	return f
}

// textOf is src as a string without a copy: the File keeps src, which
// no one changes, and a copy would double a big config's memory for as
// long as any of its definitions lives.
func textOf(src []byte) string { return unsafe.String(unsafe.SliceData(src), len(src)) }

// str is the text of buffer bytes [a, b) of a logical line: a substring of
// the file's text when they are contiguous in the file (no continuation
// cut out of them), so that names and expressions cost no copy of their
// own.
func (r *configReader) str(ln *logicalLine, a, b int) string {
	if a >= b {
		return ""
	}
	if start := ln.off(a); ln.off(b-1)-start == b-1-a {
		if r.ownStrings {
			return strings.Clone(r.text[start-r.textAt : start-r.textAt+b-a])
		}
		return r.text[start-r.textAt : start-r.textAt+b-a]
	}
	return string(ln.buf[a:b])
}

// isRegistered reports whether libpcp has a derived metric of the name
// when it reads the line: libpcp's own, or one defined before.
func (r *configReader) isRegistered(name string) bool {
	return r.registered[name] || r.earlier[name]
}

// end is the offset past the last byte the reader has.
func (r *configReader) end() int { return r.srcAt + len(r.src) }

// at is the byte at file offset i.
func (r *configReader) at(i int) byte { return r.src[i-r.srcAt] }

// configReader mirrors libpcp's character loop in __dminit_configfile.
type configReader struct {
	f      *File
	src    []byte // the file's bytes from srcAt on (all of them, or the line Reparse reads)
	srcAt  int
	text   string // the file's bytes from textAt as a string: names and expressions are substrings of it
	textAt int    // the offset of text in src (Reparse reads one line)
	pos    int
	defs   []*Definition // the definitions read, in order
	// unlisted are the definitions whose words are not among the
	// prefetch's (File.ExprWords).
	unlisted   []*Definition
	registered map[string]bool // names this file registers (and libpcp's own)
	// earlier holds the names earlier files of the path registered
	// (Options.Registered), read only: copied into registered, they made
	// a path of many files cost the square of its names.
	earlier map[string]bool
	attrs   map[string]map[string]bool // metric → attributes set
	lineno  int                        // libpcp's line counter
	clineno int                        // pcp7: continuation lines pending
	memo    *Memo
	pre     *prefetched    // verdicts computed beforehand, or nil
	vs      verdictScratch // reused by every definition's verdict
	capped  FindingCap     // Options.MaxPerCode's count
	held    []Diagnostic   // the line's findings, until capped (listHeld)
	ctl     controls       // libpcp's derived-metric controls (#control)
	final   bool           // reading the last line, which has no newline

	// ownStrings: names and expressions are copies, not substrings of
	// text (Options.ownStrings).
	ownStrings bool
}

// logicalLine is one line as libpcp sees it: bytes and their file offsets.
type logicalLine struct {
	buf       []byte
	runs      []offsetRun // where buf's bytes are in the file: runs[k].at on is contiguous from runs[k].off
	eq        int         // index of the first "=", or -1
	lp, rp    int         // first "(" and ")" before the "=", or -1
	start     int         // file offset of the line's first byte
	end       int         // file offset just past the newline (or EOF)
	finalLine bool
	// shown is how much of buf libpcp prints of the line: up to its
	// first NUL (line sets it).
	shown int
}

// append adds byte c, at file offset i, to the line.
func (ln *logicalLine) append(c byte, i int) {
	if n := len(ln.runs); n == 0 || ln.runs[n-1].off+len(ln.buf)-ln.runs[n-1].at != i {
		ln.runs = append(ln.runs, offsetRun{len(ln.buf), i})
	}
	ln.buf = append(ln.buf, c)
}

// unappend removes the line's last byte.
func (ln *logicalLine) unappend() {
	ln.buf = ln.buf[:len(ln.buf)-1]
	if n := len(ln.runs); ln.runs[n-1].at == len(ln.buf) {
		ln.runs = ln.runs[:n-1]
	}
}

// off is the file offset of buf[i]. A line has one run but for the
// continuations cut out of it, so the search is short.
func (ln *logicalLine) off(i int) int {
	k := len(ln.runs) - 1
	for k > 0 && ln.runs[k].at > i {
		k--
	}
	return ln.runs[k].off + i - ln.runs[k].at
}

// offsetMap maps the bytes of buf[from:] (an expression) to the file,
// counted from the line's start (the definition's).
func (ln *logicalLine) offsetMap(from int) offsetMap {
	var m offsetMap
	if from >= len(ln.buf) {
		return m
	}
	m.base = ln.off(from) - ln.start
	var more []offsetRun
	for _, r := range ln.runs {
		if r.at > from {
			more = append(more, offsetRun{r.at - from, r.off - ln.start})
		}
	}
	if more != nil {
		m.more = &more
	}
	return m
}

func (r *configReader) run() {
	continuation := r.f.Version.Has(pcpver.Continuation)
	ln := logicalLine{eq: -1, lp: -1, rp: -1}
	lastc := byte(0)
	for r.pos < r.end() {
		c := r.at(r.pos)
		i := r.pos
		r.pos++
		if len(ln.buf) == 0 {
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
			ln.unappend()
			r.clineno++
			lastc = c
			continue
		}
		if c == '\n' {
			ln.end = r.pos
			r.line(&ln)
			r.listHeld()
			r.lineno++
			if r.clineno > 0 {
				r.lineno += r.clineno
				r.clineno = 0
			}
			// The buffers are reused: what outlives the line is copied.
			ln = logicalLine{eq: -1, lp: -1, rp: -1, start: r.pos, buf: ln.buf[:0], runs: ln.runs[:0]}
			lastc = 0
			continue
		}
		ln.append(c, i)
		lastc = c
	}
	if len(ln.buf) > 0 {
		ln.end, ln.finalLine, r.final = r.end(), true, true
		r.diag(Range{r.f.Pos(ln.start), r.f.Pos(r.end())}, SeverityWarning, codes.NoFinalNewline,
			"the last line has no newline: libpcp never reads it, so this definition is ignored", nil)
		r.line(&ln)
		r.listHeld()
	}
}

// diag makes a finding and returns it (valid until the next), for fixes
// to be attached to it, never to the last one listed (once, under the
// cap, a duplicate's removal landed on an unrelated finding). Under
// Options.MaxPerCode it is held until its line is read (listHeld).
func (r *configReader) diag(rg Range, sev Severity, code, msg string, pcp []string) *Diagnostic {
	if r.final {
		pcp = nil // libpcp never reads a last line with no newline: it prints nothing of it
	}
	d := Diagnostic{Range: rg, Severity: sev, Code: code, Message: msg, PCP: pcp}
	if r.capped.Max > 0 {
		// Whether a suppression comment turns it off depends on its
		// definition, made at the end of its line (listHeld).
		r.held = append(r.held, d)
		return &r.held[len(r.held)-1]
	}
	r.f.Diagnostics = append(r.f.Diagnostics, d)
	return &r.f.Diagnostics[len(r.f.Diagnostics)-1]
}

// listHeld lists the findings of the logical line just read, held by
// diag, or counts them in a stand-in: capped as the analysis of the
// whole file caps them (CapFindings), which judges a finding on a
// continuation line by its definition's first line (the file's
// definitions are not known while it is read: once, a suppressed
// finding there was counted against the cap by check, and not by the
// editor).
func (r *configReader) listHeld() {
	if len(r.held) == 0 {
		return
	}
	var def *Definition
	if n := len(r.defs); n > 0 {
		def = r.defs[n-1] // this line's, if it made one
	}
	for _, d := range r.held {
		at := d.Range.Start
		if def != nil && def.Range.Start.Compare(at) <= 0 && def.Range.End.Compare(at) >= 0 {
			at = def.Range.Start
		}
		if !r.capped.OmitAt(r.f, d, at) {
			r.f.Diagnostics = append(r.f.Diagnostics, d)
		}
	}
	r.held = r.held[:0]
}

func (r *configReader) prefix(kind string) string {
	return fmt.Sprintf("[%s:%d] %s: ", r.f.Path, r.lineno, kind)
}

func (r *configReader) lineRange(ln *logicalLine) Range {
	end := ln.end
	if end > ln.start && end <= r.end() && r.at(end-1) == '\n' {
		end--
	}
	return Range{r.f.Pos(ln.start), r.f.Pos(end)}
}

// line handles one logical line, like the body of libpcp's loop.
func (r *configReader) line(ln *logicalLine) {
	buf := ln.buf
	rg := r.lineRange(ln)
	// libpcp reads the line with fgetc (the first "=", "(" and ")" are
	// found in all of it, NULs or not) and then uses it as C strings: a
	// NUL ends what it prints of the line and, after the "=", the
	// expression or value; before the "=" it ends the name, whose
	// trailing white space is then not trimmed (pminfo of every release).
	ln.shown = len(buf)
	nameNUL := -1
	k := bytes.IndexByte(buf, 0)
	if k >= 0 {
		r.diag(Range{r.f.Pos(ln.off(k)), r.f.Pos(ln.off(k) + 1)}, SeverityError, codes.NULByte,
			"NUL byte in the line: libpcp reads no further than here", nil)
		ln.shown = k
		if ln.eq >= 0 && k < ln.eq {
			nameNUL = k
			if j := bytes.IndexByte(buf[ln.eq+1:], 0); j >= 0 {
				ln.buf = buf[:ln.eq+1+j]
			}
		} else {
			ln.buf = buf[:k]
		}
		if !utf8.Valid(buf) {
			r.diag(rg, SeverityWarning, codes.InvalidUTF8, "the line is not valid UTF-8", nil)
		}
		buf = ln.buf
	} else if !utf8.Valid(buf) {
		r.diag(rg, SeverityWarning, codes.InvalidUTF8, "the line is not valid UTF-8", nil)
	}
	if len(buf) == 0 && k < 0 {
		return // empty (a line of a NUL alone is not, for libpcp)
	}
	if len(buf) > 0 && buf[0] == '#' {
		r.f.Comments = append(r.f.Comments, rg)
		if r.f.Version.Has(pcpver.ControlLines) && len(buf) >= 8 && strings.EqualFold(string(buf[:8]), "#control") {
			r.control(ln, rg)
		}
		return
	}
	text := r.str(ln, 0, ln.shown)
	if ln.eq == -1 {
		r.diag(rg, SeverityError, codes.MissingEquals, "missing \"=\" after the derived metric name",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: missing ``='' after derived metric name", text})
		return
	}
	nameEnd := ln.eq
	if ln.lp != -1 {
		nameEnd = ln.lp
	}
	trimEnd := true
	if nameNUL >= 0 && nameNUL < nameEnd {
		nameEnd, trimEnd = nameNUL, false
	}
	nameStart := 0
	for nameStart < nameEnd && isSpace(buf[nameStart]) {
		nameStart++
	}
	for trimEnd && nameEnd > nameStart && isSpace(buf[nameEnd-1]) {
		nameEnd--
	}
	name := text[nameStart:nameEnd]
	nameRange := Range{r.f.Pos(ln.off(min(nameStart, len(ln.buf)-1))), r.f.Pos(r.offAt(ln, nameEnd))}
	if name == "" {
		r.diag(rg, SeverityError, codes.MissingName, "derived metric name missing before \"=\"",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: derived metric name missing", text})
		return
	}
	if !validMetricName(name) {
		r.diag(nameRange, SeverityError, codes.IllegalName,
			fmt.Sprintf("illegal derived metric name %q: each dot-separated part must start with a letter and continue with letters, digits or _", name),
			[]string{r.prefix("Error") + fmt.Sprintf("pmLoadDerivedConfig: illegal derived metric name (%s)", name)})
		return
	}
	if ln.lp >= 0 && ln.rp == -1 {
		r.diag(rg, SeverityError, codes.MissingRParen, "missing \")\" after the attribute name",
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: missing ')' after attribute", text})
		return
	}
	if ln.rp >= 0 && ln.lp == -1 {
		r.diag(rg, SeverityError, codes.MissingLParen, "missing \"(\" before the attribute name",
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
		r.diag(rg, SeverityError, codes.MissingExpr, fmt.Sprintf("expression missing after \"%s =\"", name),
			[]string{r.prefix("Error") + "pmLoadDerivedConfig: expression missing", text})
		return
	}
	r.definition(ln, name, nameRange, ep, rg)
}

// offAt is the file offset of buffer index i (one past the end allowed).
func (r *configReader) offAt(ln *logicalLine, i int) int {
	if i < len(ln.buf) {
		return ln.off(i)
	}
	if len(ln.buf) == 0 {
		return ln.start
	}
	return ln.off(len(ln.buf)-1) + 1
}

func (r *configReader) definition(ln *logicalLine, name string, nameRange Range, ep int, rg Range) {
	expr := r.str(ln, ep, len(ln.buf))
	memo, key := r.memo.get(expr, r.f.Version, r.f.Leak)
	if memo != nil {
		// The memo's copy: every version of an edited document shares it,
		// and a tree built from it pins no version of the document.
		expr = key
	}
	d := &Definition{
		Name:      name,
		NameRange: nameRange,
		Expr:      expr,
		Range:     rg,
		Line:      int32(r.lineno),
	}
	offsets := ln.offsetMap(ep)
	d.exprBase, d.exprRuns = int32(offsets.base), offsets.more
	r.defs = append(r.defs, d)
	if r.pre != nil {
		r.unlisted = append(r.unlisted, d) // until its words are found listed (below)
	}
	d.leaked, d.release = r.f.Leak, packVersion(r.f.Version)
	// libpcp's report of a rejected definition, built only for one.
	pcpLines := func(caret int, msg string) []string {
		header := r.prefix("Error") + fmt.Sprintf("pmRegisterDerived(%s, ...) syntax error", name)
		return pcpSyntaxLines(header, r.str(ln, ln.eq+1, len(ln.buf)), ep-ln.eq-1+caret, msg)
	}
	exprRange := func(a, b int) Range { return r.f.ExprRange(d, a, b) }
	if r.isRegistered(name) {
		d.Verdict = Verdict{Caret: 0, Message: "Duplicate global derived metric name"}
		if !ln.finalLine {
			dup := r.diag(nameRange, SeverityError, codes.DuplicateName,
				fmt.Sprintf("derived metric %s is already defined: libpcp rejects this definition", name),
				pcpLines(0, d.Verdict.Message))
			// The whole line(s), newline included, so nothing is left behind.
			whole := Range{Start: r.f.Pos(ln.start), End: r.f.Pos(ln.end)}
			dup.Fixes = append(dup.Fixes, Fix{Title: "Remove this duplicate definition of " + name, Edits: []Edit{{Range: whole, NewText: ""}}})
		}
		return
	}
	wasLeaking := r.f.Leak
	switch v, listed, ok := r.pre.verdict(ln.start, d.Expr, r.f.Leak, &r.vs); {
	case memo != nil:
		d.Verdict = memo.verdict
		memo.share(d)
	case ok:
		d.Verdict = v
		if listed {
			r.unlisted = r.unlisted[:len(r.unlisted)-1]
		}
	default:
		d.Verdict = r.vs.verdict(d.Expr, r.f.Version, r.f.Leak)
		r.memo.put(d)
	}
	if ln.finalLine {
		return // libpcp never parses it, so its lexer state is untouched
	}
	r.f.Leak = d.Verdict.Leak
	r.parsed(d)
	if d.Verdict.OK {
		d.Registered = true
		r.registered[name] = true
		return
	}
	caret := int(d.Verdict.Caret)
	msg, end := rejectionMessage(d, caret, wasLeaking, "line")
	shown := caret
	if shown > 0 && shown == len(d.Expr)-1 && d.Expr[shown] == '\r' {
		// libpcp's caret on the expression's last byte is, on a CRLF
		// line, the "\r" an editor does not show (it is in no column):
		// the finding is on the byte before, as on the LF line.
		shown, end = shown-1, shown
	}
	code, rg := codes.Syntax, exprRange(shown, end)
	if d.Verdict.Stale {
		msg += fmt.Sprintf(" (libpcp refuses it because its parse before, line %d, failed; after one that parsed, it registers %s with that expression)", r.f.treeLine, name)
	} else if c, dialectMsg, ok := r.dialect(d, wasLeaking, msg); ok {
		code, msg, rg = codes.Dialect, dialectMsg, exprRange(int(c.At.Start), int(c.At.End))
	}
	r.diag(rg, SeverityError, code, msg, pcpLines(caret, d.Verdict.Message))
}

func (r *configReader) attribute(ln *logicalLine, name string, rg Range) {
	buf := ln.buf
	isSp := func(c rune) bool { return c < 128 && isSpace(byte(c)) }
	var attr string
	if ln.rp > ln.lp {
		attr = string(buf[ln.lp+1 : ln.rp])
		if k := strings.IndexByte(attr, 0); k >= 0 {
			// A C string: it ends at the NUL, untrimmed there.
			attr = strings.TrimLeftFunc(attr[:k], isSp)
		} else {
			attr = strings.TrimFunc(attr, isSp)
		}
	}
	text := string(buf[:min(ln.shown, len(buf))])
	if ln.rp < ln.lp {
		attr = ""
	}
	if attr == "" {
		r.diag(rg, SeverityError, codes.AttrMissingName, "attribute name missing between \"(\" and \")\"",
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
		r.diag(rg, SeverityError, codes.AttrMissingValue, "attribute value missing after \"=\"",
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
	case !r.isRegistered(name):
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
		code := map[bool]string{true: codes.AttrUndefinedMetric, false: codes.AttrInvalid}[!r.isRegistered(name)]
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
		case r.pos < r.end():
			c = r.at(r.pos)
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
		a.Range.End = r.f.Pos(r.end())
		r.diag(a.Range, SeverityError, codes.AttrUnterminated,
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
		for r.pos < r.end() && r.at(r.pos) != '\n' {
			r.pos++
		}
		tail := r.src[start-r.srcAt : r.pos-r.srcAt]
		if r.pos < r.end() {
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
		r.diag(a.Range, SeverityWarning, codes.AttrExtraText,
			fmt.Sprintf("text %q after the closing %c is ignored", extra, delim),
			[]string{r.prefix("Warning") + fmt.Sprintf("pmLoadDerivedConfig: extra text (%s) after attribute value will be ignored", extra)})
	}
	return true
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
