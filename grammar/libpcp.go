package grammar

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar/lalr"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Verdict is what libpcp's pmRegisterDerived does with one expression.
type Verdict struct {
	// Message is pmDerivedErrStr(): "" when libpcp prints no detail line.
	Message string
	// Caret is the byte offset libpcp points at (pmRegisterDerived's return
	// value minus the expression start).
	Caret int32
	OK    bool
	// Leak reports that libpcp's matchinst lexer flag is still up after
	// this expression, which changes how it lexes the next one.
	Leak bool
	// Stale reports that the parse ended in the action of novalue() on
	// both sides of a ternary (6.2.2+), which raises YYERROR without
	// clearing libpcp's parse tree: pmRegisterDerived then registers the
	// name with the tree the last parse in the process left, or, when
	// that parse failed, refuses it (staleNovalueMessage, at Caret).
	// OK is true: what happens depends on the definitions before.
	Stale bool
}

// staleNovalueMessage is the double novalue() action's message.
const staleNovalueMessage = "novalue() may appear at most once in a ternary expression"

// LibpcpVerdict predicts libpcp's registration verdict for an expression:
// accept or reject, the caret and the message, byte for byte. flag is the
// matchinst flag left by the previous expression (Verdict.Leak).
func LibpcpVerdict(expr string, v pcpver.Version, flag bool) Verdict {
	return libpcpVerdict(expr, v, flag)
}

// libpcpVerdict lexes as it parses: no token outlives the step that
// shifted it.
func libpcpVerdict(expr string, v pcpver.Version, flag bool) Verdict {
	var vs verdictScratch
	return vs.verdict(expr, v, flag)
}

// verdictScratch is the memory of one parse, reused by a reader that
// parses many expressions one after another (a config file's).
type verdictScratch struct {
	run    libpcpRun
	toks   tokenIter
	stacks lalr.Stacks[Token]
	// words are the names and strings verdictWords lists; seen is a
	// chunk's set of them (prefetched.compute).
	words []string
	seen  map[string]struct{}
}

func (vs *verdictScratch) verdict(expr string, v pcpver.Version, flag bool) Verdict {
	return vs.parse(expr, v, flag, nil)
}

// verdictWords is verdict (the matchinst flag down), listing in vs.words
// the values of the names and strings among the expression's tokens:
// the words a check looks up (checker's wordsInOrder lexes for them).
// complete says the list is every one Tokens would give: the parse
// accepted the expression, having read every token as Tokens lexes it
// (a syntax error stops it early; libpcp's flag may lex a "/" otherwise).
func (vs *verdictScratch) verdictWords(expr string, v pcpver.Version) (out Verdict, complete bool) {
	vs.words = vs.words[:0]
	out = vs.parse(expr, v, false, &vs.words)
	return out, out.OK && vs.run.scan == nil
}

// parse computes the verdict, appending to words, when not nil, the
// names and strings among the tokens lexed as Tokens lexes them.
func (vs *verdictScratch) parse(expr string, v pcpver.Version, flag bool, words *[]string) Verdict {
	g := lalr.For(v.Grammar())
	vs.toks.reset(expr, v, flag)
	run := &vs.run
	*run = libpcpRun{
		tables:  grammarTables[v.Grammar()],
		version: v,
		expr:    expr,
		toks:    &vs.toks,
		flag:    flag,
		words:   words,
		staleAt: -1,
	}
	accepted, err := lalr.Parse[Token](g, run, run, &vs.stacks)
	out := Verdict{OK: accepted && err == nil, Leak: run.flag}
	if out.OK {
		if run.staleAt >= 0 {
			out.Stale, out.Caret = true, int32(run.staleAt)
		}
		return out
	}
	out.Caret = int32(run.lastOffset)
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

// libpcpRun is one parse: the lexer and the rule actions.
type libpcpRun struct {
	tables     *grammarTable
	version    pcpver.Version
	expr       string
	toks       *tokenIter // tokens as Tokens lexes them; used while libpcp's flag agrees
	scan       *scanner   // lexes the rest once the flag disagrees
	words      *[]string  // names' and strings' values read from toks, or nil
	flag       bool
	lastOffset int
	lexErr     string // the last lexer error: it overrides any parser message
	gramErr    string // the first parser message wins
	specType   string // mkconst/novalue "type=" value seen so far ("" = default)
	staleAt    int    // where the lexer was when the double novalue() action ran, or -1
}

// terminalNames maps each TokenKind to its terminal's name in the grammars.
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
func (r *libpcpRun) Next() (int, Token) {
	var t Token
	if r.scan == nil {
		t = r.toks.next()
		if r.words != nil && (t.Kind == TokName || t.Kind == TokString) {
			*r.words = append(*r.words, t.Value(r.expr))
		}
		if t.flag != r.flag && strings.HasPrefix(t.Text(r.expr), "/") {
			// The parser's flag differs from the nesting estimate Tokens
			// made: lex from here on as libpcp does.
			r.scan = newScanner(r.expr, r.version, r.flag)
			r.scan.restart(t.Offset(), r.flag)
		}
	}
	if r.scan != nil {
		t = r.scan.next(r.flag)
	}
	r.lastOffset = t.Offset()
	sym := r.tables.terminals[t.Kind]
	if t.Kind == TokFunc {
		word := t.Text(r.expr)
		fn, ok := r.tables.funcs[word]
		if !ok {
			fn = r.tables.lexError
		}
		sym = fn
		if word == "matchinst" {
			r.flag = true
		}
	}
	if t.Kind == TokError {
		r.lexErr = t.Err()
	}
	return sym, t
}

func (r *libpcpRun) fail(msg string) {
	if r.gramErr == "" {
		r.gramErr = msg
	}
}

// ruleKind is what libpcp's action for a rule does that matters to the
// verdict; ruleTables holds it for every rule of every grammar, so a
// reduction costs a slice index instead of matching the rule's text.
type ruleKind uint8

const (
	ruleValue          ruleKind = iota // passes its only value up, or nothing
	ruleDeltaRateError                 // delta( or rate( error: worded by release
	ruleErrorMessage                   // an error production with a fixed message
	ruleMidRule                        // a mid-rule action before a spec list
	ruleAccept                         // defn: expr EOS
	ruleDoubleNovalue                  // expr ? novalue : novalue
	ruleMatchinstDone                  // the matchinst call: the flag drops
	ruleRegexp                         // opt_bang PATTERN: the pattern compiles
	ruleSpecType
	ruleSpecSem
	ruleSpecUnits
	ruleSpecIndom
	ruleMkconstDouble // mkconst(DOUBLE, ...): the type must be a float
	ruleRescaleUnits  // rescale(expr, STRING): the units parse
)

// ruleAction is a rule's kind, with its message and function word where
// it has them.
type ruleAction struct {
	kind ruleKind
	msg  string // ruleErrorMessage
	word string // ruleDeltaRateError: delta or rate
}

// grammarTable is what a parse looks up for every token and reduction,
// indexed by number instead of by the grammar's names.
type grammarTable struct {
	rules     []ruleAction      // by rule number
	terminals [TokComma + 1]int // terminal of each TokenKind (TokFunc: see funcs)
	funcs     map[string]int    // terminal of each function word
	lexError  int               // LEXERROR, for words the grammar lacks
}

// grammarTables holds each grammar's table, built once from the rules'
// texts and terminal names and never changed.
var grammarTables = func() map[pcpver.Grammar]*grammarTable {
	out := map[pcpver.Grammar]*grammarTable{}
	for _, gv := range []pcpver.Grammar{pcpver.Grammar60, pcpver.Grammar622, pcpver.Grammar63, pcpver.Grammar71} {
		g := lalr.For(gv)
		t := &grammarTable{rules: make([]ruleAction, g.Rules()), funcs: map[string]int{}}
		for i := range t.rules {
			t.rules[i] = classifyRule(g.RuleText(i))
		}
		t.lexError, _ = g.Terminal("LEXERROR")
		for k := range t.terminals {
			sym, ok := g.Terminal(terminalNames[TokenKind(k)])
			if !ok {
				sym = t.lexError
			}
			t.terminals[k] = sym
		}
		words := []string{"meta"} // mkconst's and novalue's spec keyword
		for _, f := range Functions() {
			words = append(words, f.Name)
		}
		for _, w := range words {
			if sym, ok := g.Terminal(strings.ToUpper(w)); ok {
				t.funcs[w] = sym
			}
		}
		out[gv] = t
	}
	return out
}()

func classifyRule(text string) ruleAction {
	var a ruleAction
	switch text {
	case "func: DELTA LPAREN error", "func: RATE LPAREN error":
		a.kind, a.word = ruleDeltaRateError, strings.ToLower(strings.Fields(text)[1])
		a.msg = errorProductions[text]
		return a
	}
	if msg, ok := errorProductions[text]; ok {
		a.kind, a.msg = ruleErrorMessage, msg
		return a
	}
	if strings.HasPrefix(text, "$@") {
		a.kind = ruleMidRule
		return a
	}
	switch text {
	case "defn: expr EOS":
		a.kind = ruleAccept
	case "expr: expr QUEST novalue COLON novalue":
		a.kind = ruleDoubleNovalue
	case "func: MATCHINST LPAREN regexpr COMMA expr RPAREN":
		a.kind = ruleMatchinstDone
	case "regexpr: opt_bang PATTERN":
		a.kind = ruleRegexp
	case "spec: TYPE ASSIGN specval":
		a.kind = ruleSpecType
	case "spec: SEMANTICS ASSIGN specval":
		a.kind = ruleSpecSem
	case "spec: UNITS ASSIGN specval":
		a.kind = ruleSpecUnits
	case "spec: INDOM ASSIGN specval":
		a.kind = ruleSpecIndom
	case "num: MKCONST LPAREN DOUBLE COMMA $@2 speclist RPAREN", "num: MKCONST LPAREN DOUBLE COMMA $@3 speclist RPAREN":
		a.kind = ruleMkconstDouble
	case "func: RESCALE LPAREN expr COMMA STRING RPAREN":
		a.kind = ruleRescaleUnits
	}
	return a
}

// Reduce is the lalr.Reducer: the parts of libpcp's rule actions that
// decide acceptance and messages.
func (r *libpcpRun) Reduce(rule int, rhs []Token) (Token, lalr.Verdict) {
	act := &r.tables.rules[rule]
	switch act.kind {
	case ruleDeltaRateError:
		if r.version.Has(pcpver.DeltaOfExpr) {
			// 6.3.0 widened delta() and rate() to expressions and reworded.
			r.fail("<expr> expected to follow " + act.word + "(")
		} else {
			r.fail(act.msg)
		}
		return Token{}, lalr.Retry
	case ruleErrorMessage:
		r.fail(act.msg)
		return Token{}, lalr.Retry
	case ruleMidRule:
		// libpcp resets the spec defaults here.
		r.specType = ""
		return Token{}, lalr.Continue
	case ruleAccept:
		return Token{}, lalr.Accept
	case ruleDoubleNovalue:
		// The action sets "novalue() may appear at most once in a ternary
		// expression" and raises YYERROR, which leaves libpcp's parse
		// tree as the parse before left it (Verdict.Stale). The parse
		// goes on, so that the expression's tree is whole for the
		// editor; libpcp's stops here.
		if r.staleAt < 0 {
			r.staleAt = lookaheadAfter(r.expr, rhs[3].Offset())
		}
		return Token{}, lalr.Continue
	case ruleMatchinstDone:
		r.flag = false
	case ruleRegexp:
		if msg := checkPOSIXRegexp(rhs[1].Value(r.expr)); msg != "" {
			r.fail("bad regular expression: '" + msg + "'")
			return Token{}, lalr.Abort
		}
	case ruleSpecType:
		v := rhs[2].Value(r.expr)
		if !validTypeSpec(v) {
			r.fail(fmt.Sprintf("Unrecognized value for type '%s'", v))
			return Token{}, lalr.Abort
		}
		r.specType = strings.ToUpper(v)
	case ruleSpecSem:
		v := rhs[2].Value(r.expr)
		if !validSemSpec(v) {
			r.fail(fmt.Sprintf("Unrecognized value for semantics '%s'", v))
			return Token{}, lalr.Abort
		}
	case ruleSpecUnits:
		if msg := unitsError(rhs[2].Value(r.expr), r.version); msg != "" {
			r.fail("Illegal units: '" + msg + "'")
			return Token{}, lalr.Abort
		}
	case ruleSpecIndom:
		v := rhs[2].Value(r.expr)
		if !validInDomSpec(v) {
			r.fail(fmt.Sprintf("Illegal indom: '%s'", v))
			return Token{}, lalr.Abort
		}
	case ruleMkconstDouble:
		if r.specType != "" && r.specType != "FLOAT" && r.specType != "DOUBLE" {
			r.fail(fmt.Sprintf("Incompatible floating point constant and type '%s'", r.specType))
			return Token{}, lalr.Abort
		}
	case ruleRescaleUnits:
		if msg := unitsError(rhs[4].Value(r.expr), r.version); msg != "" {
			r.fail("Illegal units: '" + msg + "'")
			return Token{}, lalr.Abort
		}
	}
	if len(rhs) == 1 {
		return rhs[0], lalr.Continue
	}
	return Token{}, lalr.Continue
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

// lookaheadAfter is where libpcp's parser stands when it reduces
// novalue() on both sides of a ternary whose ":" is at colon: on the
// token after the second novalue()'s ")", or on the expression's last
// byte when none follows.
func lookaheadAfter(expr string, colon int) int {
	depth, i := 0, colon
	for ; i < len(expr); i++ {
		if c := expr[i]; c == '(' {
			depth++
		} else if c == ')' {
			if depth--; depth == 0 {
				break
			}
		}
	}
	for i++; i < len(expr) && isSpace(expr[i]); i++ {
	}
	if i >= len(expr) {
		return max(len(expr)-1, 0)
	}
	return i
}
