package grammar

// How a definition libpcp refuses is reported: libpcp's own lines, the
// explanation of its message, a construct of a newer release restated as
// a dialect finding, and the parse state libpcp keeps between
// definitions.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// rejectionMessage explains libpcp's rejection of d's expression: its
// message, else one read from the tokens at the caret, with a note when
// an earlier failed matchinst( (the earlier "line" or "expression") left
// libpcp lexing "/" as a pattern; and the end of the caret's token.
func rejectionMessage(d *Definition, caret int, wasLeaking bool, earlier string) (msg string, end int) {
	near, end := tokensAtCaret(d, caret)
	msg = d.Verdict.Message
	if msg == "" {
		msg = syntaxExplanation(d.Expr, near)
	}
	if wasLeaking && strings.Contains(d.Expr, "/") {
		msg += " (libpcp is still lexing \"/\" as a matchinst pattern after an earlier failed matchinst( " + earlier + ")"
	}
	return msg, end
}

// dialect restates a syntax error of a target release older than the
// latest as a dialect finding when a newer release accepts the
// expression: the newer construct and the message naming its release.
func (r *configReader) dialect(d *Definition, wasLeaking bool, msg string) (NewerConstruct, string, bool) {
	if !r.f.Version.Less(pcpver.Latest) {
		return NewerConstruct{}, "", false
	}
	c, ok := r.newerConstruct(d, wasLeaking)
	if !ok {
		return NewerConstruct{}, "", false
	}
	v := r.f.Version
	return c, fmt.Sprintf("%s needs PCP %s or later (target: PCP %s); libpcp %s says: %s", c.What, c.Since(), v, v, msg), true
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
	it := newTokenIter(d.Expr, d.version(), d.leaked)
	var window [3]Token
	n := 0
	end = caret + 1
	for {
		t := it.next()
		if near == nil {
			window[0], window[1], window[2] = window[1], window[2], t
			n++
			if t.Offset() == caret {
				near = window[3-min(n, 3):]
			}
		}
		if t.Offset() == caret && t.End() > caret {
			end = t.End()
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
		text := t.Text(expr)
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
		case t.Kind == TokEOS && t.Offset() < len(expr) && expr[t.Offset()] == ff:
			return "byte 0xFF ends the expression here: libpcp reads it as the end of the string"
		case t.Kind == TokEOS:
			return "the expression ends too early"
		case t.Kind == TokInstName:
			return fmt.Sprintf("an instance filter %s may only follow a metric name or a parenthesised expression, once", text)
		case t.Kind == TokType || t.Kind == TokSemantics || t.Kind == TokUnits || t.Kind == TokIndom || t.Kind == TokMeta:
			return fmt.Sprintf("%q is a reserved word: it can only be a mkconst() or novalue() spec key", text)
		case t.Kind == TokString:
			return "a string is only allowed as rescale()'s units or a spec value"
		case t.Kind == TokDouble && prev.Kind == TokDouble || t.Kind == TokName && prev.Kind == TokInteger && (text[0] == 'e' || text[0] == 'E'):
			return fmt.Sprintf("unexpected %q: numbers have no exponent or second decimal point in derived metrics", text)
		case operand(prev.Kind) && (operand(t.Kind) || t.Kind == TokFunc || t.Kind == TokNot):
			return fmt.Sprintf("an operator is missing before %q", text)
		case prev.Kind == TokLParen && i >= 2 && toks[i-2].Kind == TokFunc && toks[i-2].Text(expr) == "mkconst":
			return "mkconst() takes an unsigned number first, e.g. mkconst(1, type=32)"
		case prev.Kind == TokLParen && i >= 2 && toks[i-2].Kind == TokFunc && toks[i-2].Text(expr) == "defined":
			return "defined() takes a metric name"
		case t.Kind == TokAssign || t.Kind == TokComma:
			return fmt.Sprintf("unexpected %q: \",\" and \"=\" only appear in function arguments and spec lists", text)
		}
		return fmt.Sprintf("unexpected %q here", text)
	}
	return "syntax error"
}

// newerConstruct explains a syntax error of the target release that a
// newer release would accept: the construct and the release that brought
// it, or the whole expression and the first grammar that accepts it.
func (r *configReader) newerConstruct(d *Definition, leak bool) (NewerConstruct, bool) {
	v := r.f.Version
	if !v.Has(pcpver.Continuation) && strings.HasSuffix(d.Expr, "\\") && r.pos < r.end() {
		n := int32(len(d.Expr))
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
			return NewerConstruct{"this expression", f, Span{0, int32(len(d.Expr))}}, true
		}
	}
	return NewerConstruct{}, false
}

// parsed records what libpcp's parse of d left in its static parse tree,
// which a later novalue() on both sides of a ternary registers
// (Verdict.Stale): a parse that succeeded leaves its tree, one that hit a
// syntax error clears it, and the double novalue() leaves it as it was,
// or, when it was cleared, is refused as libpcp's action meant.
func (r *configReader) parsed(d *Definition) {
	if v := r.f.Version; v.Has(pcpver.Novalue) && !v.Has(pcpver.IndomSpec) {
		r.specState(d)
	}
	switch {
	case !d.Verdict.Stale:
		r.f.treeCleared = !d.Verdict.OK
		r.f.treeLine = d.Line
		if d.Verdict.OK {
			r.f.treeDef = d
		}
	case r.f.Version.Has(pcpver.Novalue):
		r.f.staleTrees = true
		if r.f.treeCleared {
			d.Verdict = Verdict{Message: staleNovalueMessage, Caret: d.Verdict.Caret, Leak: d.Verdict.Leak, Stale: true}
			return
		}
		if r.f.staleOf == nil {
			r.f.staleOf = map[*Definition]*Definition{}
		}
		r.f.staleOf[d] = r.f.treeDef
	}
}

// specState follows libpcp's static spec descriptor across parses
// (6.2.2 to 7.0.x): a mkconst(VALUE, the parse reached resets it; until one
// has, a novalue(...) parsed gets its zeros (File.SpecZero).
func (r *configReader) specState(d *Definition) {
	reached := d.Expr
	if !d.Verdict.OK && int(d.Verdict.Caret) < len(reached) {
		reached = reached[:d.Verdict.Caret]
	}
	if !r.f.specReset && strings.Contains(d.Expr, "novalue") {
		if r.f.specZero == nil {
			r.f.specZero = map[*Definition]bool{}
		}
		r.f.specZero[d] = true
	}
	if MkconstSpecsIn(reached) {
		r.f.specReset = true
	}
}

// mkconstSpecs is "mkconst(VALUE," : where libpcp's mid-rule action
// resets its spec descriptor (a mkconst( without a spec list does not).
var mkconstSpecs = regexp.MustCompile(`mkconst\s*\(\s*[^,()]*,`)

// MkconstSpecsIn reports whether expr holds a mkconst( with a spec list,
// whose parse resets libpcp's static spec descriptor (6.2.2 to 7.0.x).
func MkconstSpecsIn(expr string) bool {
	return strings.Contains(expr, "mkconst") && mkconstSpecs.MatchString(expr)
}
