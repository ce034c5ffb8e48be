package grammar

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar/lalr"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// The concrete syntax is a participle grammar over the tokens of lexer.go.
// participle parses operator expressions as flat lists; precedence
// climbing over the list (pExpr.build) then applies libpcp's yacc %left
// levels, including prefix operators that reach right over tighter binary
// operators, which a level-per-rule grammar expresses poorly.
//
// The grammar is shaped for participle's cost model, which is per struct
// (a reflect.New, a position injected) and per alternative tried (a
// branch of the parse context): the token stream gives each role its own
// token type (a "-" after an operand is a binary operator, before one a
// prefix; each family of function words has its own type), so most
// choices are one token-type test; a primary is a sequence of captures in
// its operand's struct rather than a struct of its own; and positions come
// from the tokens each struct consumed (its Tokens field) rather than from
// start and end positions, which participle boxes one allocation each.

// Participle token types for our TokenKinds.
const (
	ptName lexer.TokenType = iota + 1
	ptNumber
	ptString
	ptInstName
	ptPattern
	ptFuncName    // avg count max min sum anon defined: a metric name argument
	ptFuncExpr    // delta rate instant scalar: an expression argument
	ptRescale     // rescale
	ptMatchinst   // matchinst
	ptMkconst     // mkconst
	ptNovalue     // novalue
	ptKeyword     // type semantics units indom meta
	ptBinOp       // a binary operator (a "-" after an operand)
	ptPrefix      // "!" or a "-" before an operand
	ptQuest       // "?"
	ptPunctuation // ( ) , = :
	ptError
)

type tokenDefinition struct{}

func (tokenDefinition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Name": ptName, "Number": ptNumber, "String": ptString,
		"InstName": ptInstName, "Pattern": ptPattern, "FuncName": ptFuncName,
		"FuncExpr": ptFuncExpr, "Rescale": ptRescale, "Matchinst": ptMatchinst,
		"Mkconst": ptMkconst, "Novalue": ptNovalue, "Keyword": ptKeyword,
		"BinOp": ptBinOp, "Prefix": ptPrefix, "Quest": ptQuest,
		"Punctuation": ptPunctuation, "Error": ptError,
	}
}

func (tokenDefinition) Lex(string, io.Reader) (lexer.Lexer, error) {
	return nil, errors.New("grammar: expressions are lexed by Tokens, not by participle")
}

// funcTypes is the token type of each function word: by what its
// parentheses hold (the catalogue's Arg), and a type of its own for each
// function with a syntax of its own.
var funcTypes = func() map[string]lexer.TokenType {
	m := map[string]lexer.TokenType{
		"rescale": ptRescale, "matchinst": ptMatchinst, "mkconst": ptMkconst, "novalue": ptNovalue,
	}
	for _, f := range Functions() {
		switch f.Arg {
		case ArgName:
			m[f.Name] = ptFuncName
		case ArgExpr:
			m[f.Name] = ptFuncExpr
		}
	}
	return m
}()

// tokenStream feeds our tokens to participle. A token's Value is its
// text as written (quotes, brackets, slashes and escapes included), so
// that its end is its offset plus the value's length; node() decodes.
type tokenStream struct {
	toks []Token
	i    int
	prev TokenKind // the kind of the token before, for "-"'s role
}

func (s *tokenStream) Next() (lexer.Token, error) {
	t := s.toks[s.i]
	if s.i < len(s.toks)-1 {
		s.i++
	}
	pt := lexer.Token{Value: t.Text, Pos: lexer.Position{Offset: t.Offset, Line: 1, Column: t.Offset + 1}}
	switch t.Kind {
	case TokEOS:
		pt.Type, pt.Pos.Offset, pt.Value = lexer.EOF, t.End, ""
	case TokName:
		pt.Type = ptName
	case TokInteger, TokDouble:
		pt.Type = ptNumber
	case TokString:
		pt.Type = ptString
	case TokInstName:
		pt.Type = ptInstName
	case TokPattern:
		pt.Type = ptPattern
	case TokFunc:
		pt.Type = funcTypes[t.Value]
	case TokType, TokSemantics, TokUnits, TokIndom, TokMeta:
		pt.Type = ptKeyword
	case TokError:
		pt.Type = ptError
	case TokNot:
		pt.Type = ptPrefix
	case TokMinus:
		pt.Type = ptBinOp
		if prefixPosition(s.prev) {
			pt.Type = ptPrefix
		}
	case TokQuest:
		pt.Type = ptQuest
	case TokLParen, TokRParen, TokComma, TokAssign, TokColon:
		pt.Type = ptPunctuation
	default:
		pt.Type = ptBinOp
	}
	s.prev = t.Kind
	return pt, nil
}

// pExpr is an operator expression as participle sees it: a flat list of
// operands and operators. build() applies libpcp's precedence to it.
//
// The structs capture only the structs below them: what a struct matched
// is read from its Tokens (the token types say which alternative it was),
// because every captured token costs participle several allocations.
type pExpr struct {
	Tokens []lexer.Token
	Head   *pOperand `parser:"@@"`
	// The tails: each a binary operator and its right operand (for "?:"
	// the middle expression comes with the operator), with no struct of
	// their own: a struct per tail cost participle several allocations,
	// and one more for the attempt after the last. Their captures land in
	// these lists in order; tails() reads the tokens to put them back
	// together.
	Thens  []*pExpr `parser:"( ( BinOp | Quest @@ ':' )"`
	Parens []*pExpr `parser:"  Prefix* ( Name InstName? | Number | '(' @@ ')' InstName?"`
	Calls  []*pCall `parser:"  | @@ ) )*"`
	node   Node
}

// tail is a binary operator and its right operand, from a pExpr.
type tail struct {
	op    lexer.Token
	then  *pExpr // for "?", the middle expression
	right operand
}

// tails splits the tokens after the head into operators and operands,
// taking the nested structs from Thens, Parens and Calls in order.
func (e *pExpr) tails() []tail {
	toks := e.Tokens
	var out []tail
	nt, np, nc := 0, 0, 0
	for i := len(e.Head.Tokens); i < len(toks); {
		t := tail{op: toks[i]}
		i++
		if t.op.Type == ptQuest {
			t.then = e.Thens[nt]
			nt++
			i += len(t.then.Tokens) + 1 // and ":"
		}
		start := i
		for toks[i].Type == ptPrefix {
			i++
		}
		switch toks[i].Type {
		case ptName, ptNumber:
			i++
		case ptPunctuation: // "("
			t.right.Paren = e.Parens[np]
			np++
			i += len(t.right.Paren.Tokens) + 2
		default:
			t.right.Call = e.Calls[nc]
			nc++
			i += len(t.right.Call.Tokens)
		}
		if t.right.Call == nil && i < len(toks) && toks[i].Type == ptInstName {
			i++ // a metric's or a parenthesised expression's filter
		}
		t.right.Tokens = toks[start:i]
		out = append(out, t)
	}
	return out
}

// pOperand is a primary with its prefix operators: Tokens holds the
// prefixes' tokens, then the primary's. The primary is one of the
// alternatives, in order of frequency: a metric name and its instance
// filter, a number, a parenthesised expression and its filter, a call.
type pOperand struct {
	Tokens []lexer.Token
	Paren  *pExpr `parser:"Prefix* ( Name InstName? | Number | '(' @@ ')' InstName?"`
	Call   *pCall `parser:"| @@ )"`
}

// pCall is a function call; Tokens are its tokens, from the function
// word to the closing parenthesis, and the word's token type says which
// function it is: one that takes only a metric name in every version;
// one of any expression (delta, rate and instant only since PCP 6.3.0:
// the dialect check reports older use); rescale; matchinst; mkconst;
// novalue.
type pCall struct {
	Tokens  []lexer.Token
	ExprArg *pExpr   `parser:"(  FuncName '(' Name ')' | FuncExpr '(' @@ ')'"`
	Rescale *pExpr   `parser:" | Rescale '(' @@ ',' String ')'"`
	MatchX  *pExpr   `parser:" | Matchinst '(' '!'? Pattern ',' @@ ')'"`
	Specs   []*pSpec `parser:" | Mkconst '(' Number ',' @@ (',' @@)* ')'"`
	NSpecs  []*pSpec `parser:" | Novalue '(' (@@ (',' @@)*)? ')' )"`
}

// pSpec is "key=value" of a mkconst or novalue spec list: Tokens are
// the key, "=" and the value.
type pSpec struct {
	Tokens []lexer.Token
	Value  struct{} `parser:"Keyword '=' (String | Name | Number)"`
}

// The parser is built once and never changes.
var exprParser = participle.MustBuild[pExpr](participle.Lexer(tokenDefinition{}))

// binaryPrec and prefixPrec are libpcp's operator precedence (higher
// binds tighter), read from the grammar file's %left and %precedence
// declarations through the LALR tables, so the syntax tree groups
// operators exactly as the parser that gives libpcp's verdicts does.
// Prefix operators take as operand everything that binds tighter than
// they do: "-a * b" is -(a*b) and "!a < b" is !(a<b), as in libpcp.
var binaryPrec, prefixPrec = operatorPrecedence(lalr.For(pcpver.Grammar71))

// operatorPrecedence reads each operator's level from g: the ternary by
// its "?", unary minus by MINUS (libpcp's rule takes the precedence of its
// last terminal) and "!" by NOT's %precedence.
func operatorPrecedence(g lalr.Grammar) (binary, prefix map[string]int) {
	level := func(op string) int {
		n, _, ok := g.Precedence(terminalNames[opKinds[op]])
		if !ok {
			panic("grammar: no precedence for " + op + " in the LALR tables") // a broken grammar file; TestPrecedenceFromGrammarFiles
		}
		return n
	}
	binary = map[string]int{}
	for _, op := range []string{"?", "&&", "||", "<", "<=", "==", ">=", ">", "!=", "+", "-", "*", "/"} {
		binary[op] = level(op)
	}
	return binary, map[string]int{"!": level("!"), "-": level("-")}
}

// climber applies precedence to a pExpr's flat operand/operator list.
type climber struct {
	e      *pExpr
	tails  []tail
	i      int // next operand: 0 is Head, k is tails[k-1].right
	prefix int // prefixes of operand i already consumed
}

func (c *climber) operand(i int) operand {
	if i == 0 {
		h := c.e.Head
		return operand{h.Tokens, h.Paren, h.Call}
	}
	return c.tails[i-1].right
}

func (e *pExpr) build() (Node, error) {
	if e.node != nil {
		return e.node, nil
	}
	c := &climber{e: e, tails: e.tails()}
	n, err := c.binary(1)
	if err != nil {
		return nil, err
	}
	e.node = n
	return n, nil
}

func (c *climber) binary(minPrec int) (Node, error) {
	left, err := c.unary()
	if err != nil {
		return nil, err
	}
	for c.i < len(c.tails) {
		t := c.tails[c.i]
		op := t.op.Value
		prec := binaryPrec[op]
		if prec < minPrec {
			break
		}
		c.i++
		c.prefix = 0
		var then Node
		if t.then != nil {
			if then, err = t.then.build(); err != nil {
				return nil, err
			}
		}
		var right Node
		if o := c.operand(c.i); t.then != nil && o.prefixes() == 0 && o.Call != nil && o.Call.Tokens[0].Type == ptNovalue {
			// libpcp's rule is "expr ? expr : novalue": novalue() is not
			// an expression, so it ends the ternary, and an operator
			// after it applies to the whole ternary.
			right, err = o.primary()
		} else {
			right, err = c.binary(prec + 1)
		}
		if err != nil {
			return nil, err
		}
		at := Span{left.Span().Start, right.Span().End}
		if t.then != nil {
			left = &Ternary{At: at, Cond: left, Then: then, Else: right}
		} else {
			opAt := t.op.Pos.Offset
			left = &Binary{At: at, Op: op, OpAt: Span{opAt, opAt + len(op)}, L: left, R: right}
		}
	}
	return left, nil
}

func (c *climber) unary() (Node, error) {
	o := c.operand(c.i)
	if c.prefix < o.prefixes() {
		op, at := o.Tokens[c.prefix].Value, o.Tokens[c.prefix].Pos.Offset
		c.prefix++
		x, err := c.binary(prefixPrec[op] + 1)
		if err != nil {
			return nil, err
		}
		return &Unary{At: Span{at, x.Span().End}, Op: op, X: x}, nil
	}
	return o.primary()
}

// tokenSpan is the span from the first token's start to the last one's
// end.
func tokenSpan(toks []lexer.Token) Span {
	if len(toks) == 0 {
		return Span{}
	}
	last := toks[len(toks)-1]
	return Span{toks[0].Pos.Offset, last.Pos.Offset + len(last.Value)}
}

// instName is the instance filter of an "[name]" token.
func instName(t lexer.Token) InstName {
	return InstName{At: tokenSpan([]lexer.Token{t}), Name: unescape(t.Value[1 : len(t.Value)-1])}
}

// operand is a primary with its prefix operators, from a pOperand or a
// tail: its tokens, and the struct of its parenthesised expression or
// call, if it is one.
type operand struct {
	Tokens []lexer.Token
	Paren  *pExpr
	Call   *pCall
}

// prefixes is the number of prefix operators before the primary.
func (o operand) prefixes() int {
	n := 0
	for n < len(o.Tokens) && o.Tokens[n].Type == ptPrefix {
		n++
	}
	return n
}

// primary is the operand's node without its prefix operators.
func (o operand) primary() (Node, error) {
	toks := o.Tokens[o.prefixes():]
	at := tokenSpan(toks)
	last := toks[len(toks)-1]
	switch {
	case o.Call != nil:
		return o.Call.node()
	case o.Paren != nil:
		x, err := o.Paren.build()
		if err != nil {
			return nil, err
		}
		if last.Type != ptInstName {
			return &Paren{At: at, X: x}, nil
		}
		return &Filter{At: at, X: x, Inst: instName(last)}, nil
	case toks[0].Type == ptName:
		m := &Metric{At: at, Name: toks[0].Value}
		if len(toks) > 1 {
			inst := instName(toks[1])
			m.Inst = &inst
		}
		return m, nil
	case toks[0].Type == ptNumber:
		return &Number{At: at, Text: toks[0].Value, Double: strings.Contains(toks[0].Value, ".")}, nil
	}
	return nil, fmt.Errorf("grammar: empty primary")
}

func (c *pCall) node() (Node, error) {
	toks := c.Tokens
	at := tokenSpan(toks)
	fn := toks[0].Value
	switch toks[0].Type {
	case ptFuncName:
		return &Call{At: at, Func: fn, Arg: &Metric{At: tokenSpan(toks[2:3]), Name: toks[2].Value}}, nil
	case ptFuncExpr:
		arg, err := c.ExprArg.build()
		if err != nil {
			return nil, err
		}
		return &Call{At: at, Func: fn, Arg: arg}, nil
	case ptRescale:
		x, err := c.Rescale.build()
		if err != nil {
			return nil, err
		}
		units := toks[len(toks)-2]
		return &Rescale{At: at, X: x, Units: units.Value[1 : len(units.Value)-1], UnitsAt: Span{units.Pos.Offset, units.Pos.Offset}}, nil
	case ptMatchinst:
		x, err := c.MatchX.build()
		if err != nil {
			return nil, err
		}
		invert := toks[2].Value == "!"
		pat := toks[2]
		if invert {
			pat = toks[3]
		}
		return &Matchinst{At: at, Invert: invert, Pattern: unescape(pat.Value[1 : len(pat.Value)-1]),
			PatternAt: Span{pat.Pos.Offset, pat.Pos.Offset}, X: x}, nil
	case ptMkconst:
		v := toks[2].Value
		return &Mkconst{At: at, Value: Number{At: tokenSpan(toks[2:3]), Text: v, Double: strings.Contains(v, ".")}, Specs: specs(c.Specs)}, nil
	case ptNovalue:
		return &Novalue{At: at, Specs: specs(c.NSpecs)}, nil
	}
	return nil, fmt.Errorf("grammar: empty call")
}

func specs(ps []*pSpec) []Spec {
	out := make([]Spec, len(ps))
	for i, p := range ps {
		v := p.Tokens[2]
		out[i] = Spec{At: tokenSpan(p.Tokens), Key: p.Tokens[0].Value, Value: v.Value, ValueAt: tokenSpan(p.Tokens[2:3])}
		if v.Type == ptString {
			out[i].Value, out[i].Quoted = v.Value[1:len(v.Value)-1], true
		}
	}
	return out
}

// ParseExpr builds the syntax tree of one expression. It accepts the union
// of both dialects' constructs (the dialect only decides how words lex);
// LibpcpVerdict says whether libpcp accepts the text. On a syntax error the
// error carries the offset where participle stopped.
func ParseExpr(src string, v pcpver.Version) (Node, error) {
	return parseTokens(Tokens(src, v, false))
}

func parseTokens(toks []Token) (Node, error) {
	for _, t := range toks {
		if t.Kind == TokError {
			return nil, &SyntaxError{Offset: t.Offset, Msg: t.Err}
		}
	}
	if at, deep := tooDeep(toks, lalr.MaxDepth); deep {
		return nil, &SyntaxError{Offset: at, Msg: fmt.Sprintf("expression nested more than %d deep (libpcp's parser stack limit)", lalr.MaxDepth)}
	}
	lex, err := lexer.Upgrade(&tokenStream{toks: toks})
	if err != nil {
		return nil, err
	}
	e, err := exprParser.ParseFromLexer(lex)
	if err != nil {
		var perr participle.Error
		if errors.As(err, &perr) {
			return nil, &SyntaxError{Offset: perr.Position().Offset, Msg: perr.Message()}
		}
		return nil, err
	}
	tree, err := e.build()
	if err != nil {
		return nil, err
	}
	return tree, nil
}

// SyntaxError is a parse failure at a byte offset of the expression.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// tooDeep estimates, from the tokens alone, how deep the recursive parse
// of an expression goes (parentheses, prefix operators, ternaries) and
// reports the offset where it passes limit. participle recurses once per
// level, so this bounds our stack and time on hostile input; libpcp's own
// parser gives up at a similar depth (lalr.MaxDepth), so nothing libpcp
// accepts is refused here.
func tooDeep(toks []Token, limit int) (offset int, deep bool) {
	type level struct{ prefix, quest int }
	levels := []level{{}}
	depth := 0
	prev := TokLParen // an expression starts as after "("
	for _, t := range toks {
		top := &levels[len(levels)-1]
		switch t.Kind {
		case TokLParen:
			levels = append(levels, level{})
			depth++
		case TokRParen:
			if len(levels) > 1 {
				depth -= 1 + top.prefix + top.quest
				levels = levels[:len(levels)-1]
				top = &levels[len(levels)-1]
			}
			depth -= top.prefix // the parenthesised operand completes them
			top.prefix = 0
		case TokMinus, TokNot:
			if prefixPosition(prev) {
				top.prefix++
				depth++
			}
		case TokQuest:
			top.quest++
			depth++
		case TokName, TokInteger, TokDouble, TokString, TokInstName, TokPattern:
			depth -= top.prefix
			top.prefix = 0
		}
		if depth > limit {
			return t.Offset, true
		}
		prev = t.Kind
	}
	return 0, false
}

// prefixPosition reports whether a "-" or "!" after a token of kind k is
// a prefix operator rather than a binary one.
func prefixPosition(k TokenKind) bool {
	switch k {
	case TokName, TokInteger, TokDouble, TokString, TokInstName, TokPattern, TokRParen:
		return false
	}
	return true
}
