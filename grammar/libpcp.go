package grammar

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar/lalr"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Verdict is what libpcp's pmRegisterDerived does with one expression.
type Verdict struct {
	OK bool
	// Caret is the byte offset libpcp points at (pmRegisterDerived's return
	// value minus the expression start).
	Caret int
	// Message is pmDerivedErrStr(): "" when libpcp prints no detail line.
	Message string
	// Leak reports that libpcp's matchinst lexer flag is still up after
	// this expression, which changes how it lexes the next one.
	Leak bool
}

// LibpcpVerdict predicts libpcp's registration verdict for an expression:
// accept or reject, the caret and the message, byte for byte. flag is the
// matchinst flag left by the previous expression (Verdict.Leak).
func LibpcpVerdict(expr string, v pcpver.Version, flag bool) Verdict {
	return libpcpVerdict(expr, Tokens(expr, v, flag), v, flag)
}

// libpcpVerdict is LibpcpVerdict over tokens already lexed by Tokens with
// the same version and flag.
func libpcpVerdict(expr string, toks []Token, v pcpver.Version, flag bool) Verdict {
	g := lalr.For(v.Grammar())
	run := &libpcpRun{
		grammar: g,
		version: v,
		expr:    expr,
		toks:    toks,
		flag:    flag,
	}
	accepted, err := g.Parse(run, run)
	out := Verdict{OK: accepted && err == nil, Leak: run.flag}
	if out.OK {
		return out
	}
	out.Caret = run.lastOffset
	switch {
	case run.lexErr != "":
		out.Message = run.lexErr
	case run.gramErr != "":
		out.Message = run.gramErr
	case err != nil:
		out.Message = err.Error()
	}
	return out
}

// libpcpRun is one parse: the lazy lexer and the rule actions.
type libpcpRun struct {
	grammar    lalr.Grammar
	version    pcpver.Version
	expr       string
	toks       []Token // pre-lexed; used while libpcp's flag agrees
	next       int
	scan       *scanner // lexes the rest once the flag disagrees
	pending    []Token
	flag       bool
	lastOffset int
	lexErr     string // the last lexer error: it overrides any parser message
	gramErr    string // the first parser message wins
	specType   string // mkconst/novalue "type=" value seen so far ("" = default)
}

var terminalNames = map[TokenKind]string{
	TokEOS: "EOS", TokError: "LEXERROR", TokName: "NAME", TokInteger: "INTEGER",
	TokDouble: "DOUBLE", TokString: "STRING", TokInstName: "INSTNAME",
	TokPattern: "PATTERN", TokType: "TYPE", TokSemantics: "SEMANTICS",
	TokUnits: "UNITS", TokIndom: "INDOM", TokMeta: "META", TokPlus: "PLUS",
	TokMinus: "MINUS", TokStar: "STAR", TokSlash: "SLASH", TokQuest: "QUEST",
	TokColon: "COLON", TokLParen: "LPAREN", TokRParen: "RPAREN", TokLT: "LT",
	TokLEQ: "LEQ", TokEQ: "EQ", TokGEQ: "GEQ", TokGT: "GT", TokNEQ: "NEQ",
	TokAnd: "AND", TokOr: "OR", TokNot: "NOT", TokAssign: "ASSIGN",
	TokComma: "COMMA",
}

// Next is the lalr.Lexer: libpcp's derive_lex, pulled one token at a time.
func (r *libpcpRun) Next() (int, any) {
	var t Token
	if r.scan == nil && r.next < len(r.toks) {
		t = r.toks[r.next]
		if t.flag != r.flag && strings.HasPrefix(t.Text, "/") {
			// The parser's flag differs from the nesting estimate Tokens
			// made: lex from here on as libpcp does.
			r.scan = newScanner(r.expr, r.version, r.flag)
			r.scan.restart(t.Offset, r.flag)
		} else if t.Kind != TokEOS {
			r.next++
		}
	}
	if r.scan != nil {
		t = r.scan.next(r.flag, &r.pending)
	}
	r.lastOffset = t.Offset
	name := terminalNames[t.Kind]
	if t.Kind == TokFunc {
		name = strings.ToUpper(t.Value)
		if t.Value == "matchinst" {
			r.flag = true
		}
	}
	if t.Kind == TokError {
		r.lexErr = t.Err
	}
	sym, ok := r.grammar.Terminal(name)
	if !ok {
		sym, _ = r.grammar.Terminal("LEXERROR")
	}
	return sym, t
}

func (r *libpcpRun) fail(msg string) {
	if r.gramErr == "" {
		r.gramErr = msg
	}
}

// tokenText returns the token value of a right-hand-side element.
func tokenValue(v any) string {
	if t, ok := v.(Token); ok {
		return t.Value
	}
	return ""
}

// Reduce is the lalr.Reducer: the parts of libpcp's rule actions that
// decide acceptance and messages.
func (r *libpcpRun) Reduce(rule int, rhs []any) (any, lalr.Verdict) {
	text := r.grammar.RuleText(rule)
	if r.version.Has(pcpver.DeltaOfExpr) && (text == "func: DELTA LPAREN error" || text == "func: RATE LPAREN error") {
		// 6.3.0 widened delta() and rate() to expressions and reworded.
		word := strings.ToLower(strings.Fields(text)[1])
		r.fail("<expr> expected to follow " + word + "(")
		return nil, lalr.Retry
	}
	if msg, ok := errorProductions[text]; ok {
		r.fail(msg)
		return nil, lalr.Retry
	}
	if strings.HasPrefix(text, "$@") {
		// A mid-rule action before a spec list: libpcp resets the spec
		// defaults there.
		r.specType = ""
		return nil, lalr.Continue
	}
	switch text {
	case "defn: expr EOS":
		return nil, lalr.Accept
	case "expr: expr QUEST novalue COLON novalue":
		// The action sets "novalue() may appear at most once in a ternary
		// expression" and raises YYERROR, yet every release that has the
		// rule (6.3.8 and 7.2.2 tried) registers the metric, with
		// novalue()'s metadata and never a value. The checker warns.
		return nil, lalr.Continue
	case "func: MATCHINST LPAREN regexpr COMMA expr RPAREN":
		r.flag = false
	case "regexpr: opt_bang PATTERN":
		if msg := checkPOSIXRegexp(tokenValue(rhs[1])); msg != "" {
			r.fail("bad regular expression: '" + msg + "'")
			return nil, lalr.Abort
		}
	case "spec: TYPE ASSIGN specval":
		v := tokenValue(rhs[2])
		if !validTypeSpec(v) {
			r.fail(fmt.Sprintf("Unrecognized value for type '%s'", v))
			return nil, lalr.Abort
		}
		r.specType = strings.ToUpper(v)
	case "spec: SEMANTICS ASSIGN specval":
		v := tokenValue(rhs[2])
		if !validSemSpec(v) {
			r.fail(fmt.Sprintf("Unrecognized value for semantics '%s'", v))
			return nil, lalr.Abort
		}
	case "spec: UNITS ASSIGN specval":
		if msg := unitsError(tokenValue(rhs[2]), r.version); msg != "" {
			r.fail("Illegal units: '" + msg + "'")
			return nil, lalr.Abort
		}
	case "spec: INDOM ASSIGN specval":
		v := tokenValue(rhs[2])
		if !validInDomSpec(v) {
			r.fail(fmt.Sprintf("Illegal indom: '%s'", v))
			return nil, lalr.Abort
		}
	case "num: MKCONST LPAREN DOUBLE COMMA $@2 speclist RPAREN", "num: MKCONST LPAREN DOUBLE COMMA $@3 speclist RPAREN":
		if r.specType != "" && r.specType != "FLOAT" && r.specType != "DOUBLE" {
			r.fail(fmt.Sprintf("Incompatible floating point constant and type '%s'", r.specType))
			return nil, lalr.Abort
		}
	case "func: RESCALE LPAREN expr COMMA STRING RPAREN":
		if msg := unitsError(tokenValue(rhs[4]), r.version); msg != "" {
			r.fail("Illegal units: '" + msg + "'")
			return nil, lalr.Abort
		}
	}
	if len(rhs) == 1 {
		return rhs[0], lalr.Continue
	}
	return nil, lalr.Continue
}

// errorProductions maps each error production to the message its action
// records. The wording, including its quirks, is libpcp's.
var errorProductions = func() map[string]string {
	m := map[string]string{}
	ops := []struct{ tok, text, node string }{
		{"PLUS", "+", "PLUS"}, {"STAR", "*", "STAR"}, {"SLASH", "/", "SLASH"},
		{"LPAREN", "(", ""}, {"RPAREN", ")", ""}, {"LT", "<", "LT"},
		{"LEQ", "<=", "LEQ"}, {"EQ", "==", "EQ"}, {"GEQ", ">=", "GEQ"},
		{"GT", ">", "GT"}, {"NEQ", "!=", "NEQ"}, {"AND", "&&", "AND"},
		{"OR", "||", "OR"},
	}
	for _, op := range ops {
		m["defn: expr "+op.tok+" error"] = fmt.Sprintf("Unexpected '%s'", op.text)
		m["defn: "+op.tok+" error"] = fmt.Sprintf("Unexpected initial '%s'", op.text)
		if op.node == "" {
			continue
		}
		kind := "Arithmetic"
		if op.tok == "AND" || op.tok == "OR" {
			kind = "Boolean"
		}
		m["expr: expr "+op.tok+" error"] = kind + " expression expected to follow " + op.node
	}
	m["defn: QUEST error"] = "Unexpected initial '?'"
	m["defn: COLON error"] = "Unexpected initial ':'"
	m["expr: expr MINUS error"] = "Arithmetic expression expected to follow MINUS"
	m["expr: MINUS error"] = "Arithmetic expression expected to follow NEG"
	m["expr: NOT error"] = "Boolean expression expected to follow NOT"
	m["expr: expr QUEST error"] = "Arithmetic expression expected to follow QUEST"
	m["expr: expr QUEST expr COLON error"] = "Arithmetic expression expected to follow COLON"
	m["expr: NAME error"] = "Arithmetic or relational or boolean operator expected to follow NAME"
	for _, f := range []string{"anon", "avg", "count", "max", "min", "sum", "instant", "delta", "rate"} {
		m["func: "+strings.ToUpper(f)+" LPAREN error"] = "Metric name expected to follow " + f + "("
	}
	m["func: RESCALE LPAREN error"] = "Arithmetic or relational or boolean operator expected to follow rescale("
	m["func: RESCALE LPAREN expr COMMA error"] = "Units string expected to follow rescale(<expr>,"
	m["func: MATCHINST LPAREN error"] = "<filter>, <expr>) expected to follow matchinst("
	m["func: MATCHINST LPAREN regexpr error"] = ", <expr>) expected to follow matchinst(<filter>"
	m["func: MATCHINST LPAREN regexpr COMMA error"] = "<expr>) expected to follow matchinst(<filter>,"
	m["func: SCALAR LPAREN error"] = "<expr> expected to follow scalar("
	m["novalue: NOVALUE LPAREN error"] = "metadata keyword expected to follow novalue("
	m["num: MKCONST LPAREN INTEGER error"] = "metadata keyword expected to follow mkconst(type"
	return m
}()
