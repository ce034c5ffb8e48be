package grammar

import (
	"errors"
	"fmt"
	"io"
	"sort"

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

// Participle token types for our TokenKinds.
const (
	ptName lexer.TokenType = iota + 1
	ptInteger
	ptDouble
	ptString
	ptInstName
	ptPattern
	ptFunc
	ptKeyword
	ptOp
	ptError
)

type tokenDefinition struct{}

func (tokenDefinition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Name": ptName, "Integer": ptInteger, "Double": ptDouble,
		"String": ptString, "InstName": ptInstName, "Pattern": ptPattern,
		"Func": ptFunc, "Keyword": ptKeyword, "Op": ptOp, "Error": ptError,
	}
}

func (tokenDefinition) Lex(string, io.Reader) (lexer.Lexer, error) {
	return nil, errors.New("grammar: expressions are lexed by Tokens, not by participle")
}

// tokenStream feeds our tokens to participle.
type tokenStream struct {
	toks []Token
	i    int
}

func (s *tokenStream) Next() (lexer.Token, error) {
	t := s.toks[s.i]
	if s.i < len(s.toks)-1 {
		s.i++
	}
	pt := lexer.Token{Value: t.Value, Pos: lexer.Position{Offset: t.Offset, Line: 1, Column: t.Offset + 1}}
	switch t.Kind {
	case TokEOS:
		pt.Type, pt.Pos.Offset = lexer.EOF, t.End
	case TokName:
		pt.Type = ptName
	case TokInteger:
		pt.Type = ptInteger
	case TokDouble:
		pt.Type = ptDouble
	case TokString:
		pt.Type = ptString
	case TokInstName:
		pt.Type = ptInstName
	case TokPattern:
		pt.Type = ptPattern
	case TokFunc:
		pt.Type = ptFunc
	case TokType, TokSemantics, TokUnits, TokIndom, TokMeta:
		pt.Type = ptKeyword
	case TokError:
		pt.Type, pt.Value = ptError, t.Text
	default:
		pt.Type, pt.Value = ptOp, t.Text
	}
	return pt, nil
}

// pExpr is an operator expression as participle sees it: a flat list of
// operands and operators. build() applies libpcp's precedence to it.
type pExpr struct {
	Head *pOperand `parser:"@@"`
	Tail []*pTail  `parser:"@@*"`
	node Node
}

// pOperand is a primary with its prefix operators.
type pOperand struct {
	Pos     lexer.Position
	Prefix  []*pPrefix `parser:"@@*"`
	Primary *pPrimary  `parser:"@@"`
}

type pPrefix struct {
	Pos lexer.Position
	Op  string `parser:"@('-' | '!')"`
}

// pTail is a binary operator and its right operand; for "?:" the middle
// expression comes with the operator.
type pTail struct {
	Pos   lexer.Position
	Op    string    `parser:"( @('+' | '-' | '*' | '/' | '<=' | '==' | '>=' | '!=' | '&&' | '||' | '<' | '>')"`
	Then  *pExpr    `parser:"| '?' @@ ':' )"`
	Right *pOperand `parser:"@@"`
}

type pPrimary struct {
	// Most frequent first: participle tries the alternatives in order.
	Metric    *pMetric    `parser:"  @@"`
	Number    *pNumber    `parser:"| @@"`
	Paren     *pParen     `parser:"| @@"`
	NameCall  *pNameCall  `parser:"| @@"`
	Call      *pCall      `parser:"| @@"`
	Rescale   *pRescale   `parser:"| @@"`
	Matchinst *pMatchinst `parser:"| @@"`
	Mkconst   *pMkconst   `parser:"| @@"`
	Novalue   *pNovalue   `parser:"| @@"`
}

type pParen struct {
	Pos    lexer.Position
	X      *pExpr `parser:"'(' @@ ')'"`
	Inst   *pInst `parser:"@@?"`
	EndPos lexer.Position
}

// pInst is an instance filter, "[name]", kept with its position so a
// finding can point at it.
type pInst struct {
	Pos  lexer.Position
	Name string `parser:"@InstName"`
}

// node starts the span at "["; parseTokens sets its end from the token,
// as participle knows only the unescaped name.
func (p *pInst) node() InstName { return InstName{At: Span{p.Pos.Offset, p.Pos.Offset}, Name: p.Name} }

type pMetric struct {
	Pos    lexer.Position
	Name   string `parser:"@Name"`
	Inst   *pInst `parser:"@@?"`
	EndPos lexer.Position
}

type pNumber struct {
	Pos    lexer.Position
	Int    *string `parser:"  @Integer"`
	Dbl    *string `parser:"| @Double"`
	EndPos lexer.Position
}

type pSpec struct {
	Pos    lexer.Position
	Key    string `parser:"@Keyword '='"`
	ValPos lexer.Position
	Str    *string `parser:"( @String"`
	Word   *string `parser:"| @(Name | Integer | Double) )"`
	EndPos lexer.Position
}

type pMkconst struct {
	Pos    lexer.Position
	Value  pNumber  `parser:"'mkconst':Func '(' @@ ','"`
	Specs  []*pSpec `parser:"@@ (',' @@)* ')'"`
	EndPos lexer.Position
}

type pNovalue struct {
	Pos    lexer.Position
	Specs  []*pSpec `parser:"'novalue':Func '(' (@@ (',' @@)*)? ')'"`
	EndPos lexer.Position
}

type pMatchinst struct {
	Pos     lexer.Position
	Invert  bool `parser:"'matchinst':Func '(' @'!'?"`
	PatPos  lexer.Position
	Pattern string `parser:"@Pattern ','"`
	X       *pExpr `parser:"@@ ')'"`
	EndPos  lexer.Position
}

type pRescale struct {
	Pos      lexer.Position
	X        *pExpr `parser:"'rescale':Func '(' @@ ','"`
	UnitsPos lexer.Position
	Units    string `parser:"@String ')'"`
	EndPos   lexer.Position
}

// pNameCall is a function that takes only a metric name in every version.
type pNameCall struct {
	Pos    lexer.Position
	Func   string     `parser:"@('avg':Func | 'count':Func | 'max':Func | 'min':Func | 'sum':Func | 'anon':Func | 'defined':Func) '('"`
	Arg    *pCallName `parser:"@@ ')'"`
	EndPos lexer.Position
}

// pCallName is the name a pNameCall takes, a node of its own so that
// participle records where it starts (it fills only Pos fields).
type pCallName struct {
	Pos  lexer.Position
	Name string `parser:"@Name"`
}

// pCall is a function of any expression (delta, rate and instant only
// since PCP 6.3.0: the dialect check reports older use).
type pCall struct {
	Pos    lexer.Position
	Func   string `parser:"@('delta':Func | 'rate':Func | 'instant':Func | 'scalar':Func) '('"`
	Arg    *pExpr `parser:"@@ ')'"`
	EndPos lexer.Position
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
	i      int // next operand: 0 is Head, k is Tail[k-1].Right
	prefix int // prefixes of operand i already consumed
}

func (c *climber) operand(i int) *pOperand {
	if i == 0 {
		return c.e.Head
	}
	return c.e.Tail[i-1].Right
}

func (e *pExpr) build() (Node, error) {
	if e.node != nil {
		return e.node, nil
	}
	c := &climber{e: e}
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
	for c.i < len(c.e.Tail) {
		t := c.e.Tail[c.i]
		op := t.Op
		if t.Then != nil {
			op = "?"
		}
		prec := binaryPrec[op]
		if prec < minPrec {
			break
		}
		c.i++
		c.prefix = 0
		var then Node
		if t.Then != nil {
			if then, err = t.Then.build(); err != nil {
				return nil, err
			}
		}
		var right Node
		if o := c.operand(c.i); t.Then != nil && len(o.Prefix) == 0 && o.Primary.Novalue != nil {
			// libpcp's rule is "expr ? expr : novalue": novalue() is not
			// an expression, so it ends the ternary, and an operator
			// after it applies to the whole ternary.
			right, err = o.Primary.node()
		} else {
			right, err = c.binary(prec + 1)
		}
		if err != nil {
			return nil, err
		}
		at := Span{left.Span().Start, right.Span().End}
		if t.Then != nil {
			left = &Ternary{At: at, Cond: left, Then: then, Else: right}
		} else {
			left = &Binary{At: at, Op: op, OpAt: Span{t.Pos.Offset, t.Pos.Offset + len(op)}, L: left, R: right}
		}
	}
	return left, nil
}

func (c *climber) unary() (Node, error) {
	o := c.operand(c.i)
	if c.prefix < len(o.Prefix) {
		p := o.Prefix[c.prefix]
		c.prefix++
		x, err := c.binary(prefixPrec[p.Op] + 1)
		if err != nil {
			return nil, err
		}
		return &Unary{At: Span{p.Pos.Offset, x.Span().End}, Op: p.Op, X: x}, nil
	}
	return o.Primary.node()
}

func span(start, end lexer.Position) Span { return Span{start.Offset, end.Offset} }

func (p *pPrimary) node() (Node, error) {
	switch {
	case p.Paren != nil:
		x, err := p.Paren.X.build()
		if err != nil {
			return nil, err
		}
		paren := &Paren{At: span(p.Paren.Pos, p.Paren.EndPos), X: x}
		if p.Paren.Inst == nil {
			return paren, nil
		}
		return &Filter{At: paren.At, X: x, Inst: p.Paren.Inst.node()}, nil
	case p.Metric != nil:
		m := &Metric{At: span(p.Metric.Pos, p.Metric.EndPos), Name: p.Metric.Name}
		if p.Metric.Inst != nil {
			inst := p.Metric.Inst.node()
			m.Inst = &inst
		}
		return m, nil
	case p.Number != nil:
		return p.Number.node(), nil
	case p.Mkconst != nil:
		return &Mkconst{At: span(p.Mkconst.Pos, p.Mkconst.EndPos), Value: *p.Mkconst.Value.node(), Specs: specs(p.Mkconst.Specs)}, nil
	case p.Novalue != nil:
		return &Novalue{At: span(p.Novalue.Pos, p.Novalue.EndPos), Specs: specs(p.Novalue.Specs)}, nil
	case p.Matchinst != nil:
		m := p.Matchinst
		x, err := m.X.build()
		if err != nil {
			return nil, err
		}
		return &Matchinst{At: span(m.Pos, m.EndPos), Invert: m.Invert, Pattern: m.Pattern,
			PatternAt: Span{m.PatPos.Offset, m.PatPos.Offset}, X: x}, nil
	case p.Rescale != nil:
		r := p.Rescale
		x, err := r.X.build()
		if err != nil {
			return nil, err
		}
		return &Rescale{At: span(r.Pos, r.EndPos), X: x, Units: r.Units, UnitsAt: Span{r.UnitsPos.Offset, r.UnitsPos.Offset}}, nil
	case p.NameCall != nil:
		c := p.NameCall
		arg := &Metric{At: Span{c.Arg.Pos.Offset, c.Arg.Pos.Offset + len(c.Arg.Name)}, Name: c.Arg.Name}
		return &Call{At: span(c.Pos, c.EndPos), Func: c.Func, Arg: arg}, nil
	case p.Call != nil:
		arg, err := p.Call.Arg.build()
		if err != nil {
			return nil, err
		}
		return &Call{At: span(p.Call.Pos, p.Call.EndPos), Func: p.Call.Func, Arg: arg}, nil
	}
	return nil, fmt.Errorf("grammar: empty primary")
}

func (n *pNumber) node() *Number {
	num := &Number{At: span(n.Pos, n.EndPos)}
	if n.Int != nil {
		num.Text = *n.Int
	} else if n.Dbl != nil {
		num.Text, num.Double = *n.Dbl, true
	}
	return num
}

func specs(ps []*pSpec) []Spec {
	out := make([]Spec, len(ps))
	for i, p := range ps {
		out[i] = Spec{At: span(p.Pos, p.EndPos), Key: p.Key, ValueAt: Span{p.ValPos.Offset, p.EndPos.Offset}}
		if p.Str != nil {
			out[i].Value, out[i].Quoted = *p.Str, true
		} else if p.Word != nil {
			out[i].Value = *p.Word
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
	trimSpans(tree, toks)
	return tree, nil
}

// trimSpans ends every span at the end of its last token. participle
// ends a node where the next token starts, so spans ran on over the white
// space after them (a quick fix replacing a metric name ate the space
// before "+"). An instance filter's span is set from its "[...]" token,
// which escapes make longer than the name participle knows.
func trimSpans(tree Node, toks []Token) {
	var ends []int // token ends, ascending
	instEnd := map[int]int{}
	for _, t := range toks {
		if t.Kind == TokEOS {
			continue
		}
		ends = append(ends, t.End)
		if t.Kind == TokInstName {
			instEnd[t.Offset] = t.End
		}
	}
	trim := func(s *Span) {
		if s.End <= s.Start {
			return
		}
		// The last token end at or before s.End, after s.Start.
		i := sort.SearchInts(ends, s.End+1) - 1
		if i >= 0 && ends[i] > s.Start {
			s.End = ends[i]
		}
	}
	specs := func(sp []Spec) {
		for i := range sp {
			trim(&sp[i].At)
			trim(&sp[i].ValueAt)
		}
	}
	Walk(tree, func(n Node) bool {
		switch n := n.(type) {
		case *Metric:
			trim(&n.At)
			if n.Inst != nil {
				n.Inst.At.End = instEnd[n.Inst.At.Start]
			}
		case *Filter:
			trim(&n.At)
			n.Inst.At.End = instEnd[n.Inst.At.Start]
		case *Number:
			trim(&n.At)
		case *Mkconst:
			trim(&n.At)
			specs(n.Specs)
		case *Novalue:
			trim(&n.At)
			specs(n.Specs)
		case *Call:
			trim(&n.At)
		case *Rescale:
			trim(&n.At)
		case *Matchinst:
			trim(&n.At)
		case *Paren:
			trim(&n.At)
		case *Unary:
			trim(&n.At)
		case *Binary:
			trim(&n.At)
		case *Ternary:
			trim(&n.At)
		}
		return true
	})
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
