package grammar

import (
	"errors"
	"fmt"
	"io"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The concrete syntax is a participle grammar over the tokens of lexer.go.
// Operators are parsed by precedence climbing (pExpr.Parse) because libpcp's
// precedence rules (yacc %left levels, prefix operators that reach right
// over tighter binary operators) do not fit a level-per-rule grammar well.

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

type pExpr struct{ node Node }

type pPrimary struct {
	Paren     *pParen     `parser:"  @@"`
	Mkconst   *pMkconst   `parser:"| @@"`
	Novalue   *pNovalue   `parser:"| @@"`
	Matchinst *pMatchinst `parser:"| @@"`
	Rescale   *pRescale   `parser:"| @@"`
	NameCall  *pNameCall  `parser:"| @@"`
	Call      *pCall      `parser:"| @@"`
	Number    *pNumber    `parser:"| @@"`
	Metric    *pMetric    `parser:"| @@"`
}

type pParen struct {
	Pos    lexer.Position
	X      *pExpr  `parser:"'(' @@ ')'"`
	Inst   *string `parser:"@InstName?"`
	EndPos lexer.Position
}

type pMetric struct {
	Pos    lexer.Position
	Name   string  `parser:"@Name"`
	Inst   *string `parser:"@InstName?"`
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
	Pos     lexer.Position
	Func    string `parser:"@('avg':Func | 'count':Func | 'max':Func | 'min':Func | 'sum':Func | 'anon':Func | 'defined':Func) '('"`
	NamePos lexer.Position
	Name    string `parser:"@Name ')'"`
	EndPos  lexer.Position
}

// pCall is a function of any expression (delta, rate and instant only
// since PCP 6.3.0: the dialect check reports older use).
type pCall struct {
	Pos    lexer.Position
	Func   string `parser:"@('delta':Func | 'rate':Func | 'instant':Func | 'scalar':Func) '('"`
	Arg    *pExpr `parser:"@@ ')'"`
	EndPos lexer.Position
}

// The parsers are built once and never change.
var (
	exprParser    = participle.MustBuild[pExpr](participle.Lexer(tokenDefinition{}))
	primaryParser = participle.MustBuild[pPrimary](participle.Lexer(tokenDefinition{}))
)

// binaryPrec is yacc's %left table: higher binds tighter.
var binaryPrec = map[string]int{
	"?": 1, "&&": 2, "||": 2, "<": 4, "<=": 4, "==": 4, ">=": 4, ">": 4, "!=": 4,
	"+": 5, "-": 5, "*": 6, "/": 6,
}

const (
	precNot = 3
	precNeg = 5
)

// Parse implements participle.Parseable with precedence climbing.
func (e *pExpr) Parse(lex *lexer.PeekingLexer) error {
	n, err := parseBinary(lex, 1)
	if err != nil {
		return err
	}
	e.node = n
	return nil
}

func parseBinary(lex *lexer.PeekingLexer, minPrec int) (Node, error) {
	left, err := parseUnary(lex)
	if err != nil {
		return nil, err
	}
	for {
		t := lex.Peek()
		prec, ok := binaryPrec[t.Value]
		if t.Type != ptOp || !ok || prec < minPrec {
			return left, nil
		}
		lex.Next()
		opAt := Span{t.Pos.Offset, t.Pos.Offset + len(t.Value)}
		if t.Value == "?" {
			then, err := parseBinary(lex, 1)
			if err != nil {
				return nil, err
			}
			colon := lex.Peek()
			if colon.Type != ptOp || colon.Value != ":" {
				return nil, participle.Errorf(colon.Pos, `expected ":" of "?:"`)
			}
			lex.Next()
			els, err := parseBinary(lex, prec+1)
			if err != nil {
				return nil, err
			}
			left = &Ternary{At: Span{left.Span().Start, els.Span().End}, Cond: left, Then: then, Else: els}
			continue
		}
		right, err := parseBinary(lex, prec+1)
		if err != nil {
			return nil, err
		}
		left = &Binary{At: Span{left.Span().Start, right.Span().End}, Op: t.Value, OpAt: opAt, L: left, R: right}
	}
}

func parseUnary(lex *lexer.PeekingLexer) (Node, error) {
	t := lex.Peek()
	if t.Type == ptOp && (t.Value == "-" || t.Value == "!") {
		lex.Next()
		prec := precNeg
		if t.Value == "!" {
			prec = precNot
		}
		x, err := parseBinary(lex, prec+1)
		if err != nil {
			return nil, err
		}
		return &Unary{At: Span{t.Pos.Offset, x.Span().End}, Op: t.Value, X: x}, nil
	}
	p, err := primaryParser.ParseFromLexer(lex, participle.AllowTrailing(true))
	if err != nil {
		return nil, err
	}
	return p.node()
}

func span(start, end lexer.Position) Span { return Span{start.Offset, end.Offset} }

func (p *pPrimary) node() (Node, error) {
	switch {
	case p.Paren != nil:
		x := p.Paren.X.node
		paren := &Paren{At: span(p.Paren.Pos, p.Paren.EndPos), X: x}
		if p.Paren.Inst == nil {
			return paren, nil
		}
		return &Filter{At: paren.At, X: x, Inst: InstName{Name: *p.Paren.Inst}}, nil
	case p.Metric != nil:
		m := &Metric{At: span(p.Metric.Pos, p.Metric.EndPos), Name: p.Metric.Name}
		if p.Metric.Inst != nil {
			m.Inst = &InstName{Name: *p.Metric.Inst}
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
		return &Matchinst{At: span(m.Pos, m.EndPos), Invert: m.Invert, Pattern: m.Pattern,
			PatternAt: Span{m.PatPos.Offset, m.PatPos.Offset}, X: m.X.node}, nil
	case p.Rescale != nil:
		r := p.Rescale
		return &Rescale{At: span(r.Pos, r.EndPos), X: r.X.node, Units: r.Units, UnitsAt: Span{r.UnitsPos.Offset, r.UnitsPos.Offset}}, nil
	case p.NameCall != nil:
		c := p.NameCall
		arg := &Metric{At: Span{c.NamePos.Offset, c.NamePos.Offset + len(c.Name)}, Name: c.Name}
		return &Call{At: span(c.Pos, c.EndPos), Func: c.Func, Arg: arg}, nil
	case p.Call != nil:
		return &Call{At: span(p.Call.Pos, p.Call.EndPos), Func: p.Call.Func, Arg: p.Call.Arg.node}, nil
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
func ParseExpr(src string, d Dialect) (Node, error) {
	toks := Tokens(src, d, false)
	for _, t := range toks {
		if t.Kind == TokError {
			return nil, &SyntaxError{Offset: t.Offset, Msg: t.Err}
		}
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
	return e.node, nil
}

// SyntaxError is a parse failure at a byte offset of the expression.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }
