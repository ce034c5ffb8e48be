package grammar

import (
	"errors"
	"fmt"

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
// (a reflect.New, a position injected), per capture, per token matched (a
// boxed value) and per alternative or repetition tried (a branch of the
// parse context, a heap object each): the token stream gives each role its
// own token type (a "-" after an operand is a binary operator, before one
// a prefix; each family of function words has its own type), so most
// choices are one token-type test; the commonest operand, a metric name
// or a number with its prefix operators and its instance filter, comes
// as one token (an atom: the stream joins them, see tokenStream); a
// primary is a sequence of captures in its expression's struct rather
// than a struct of its own; and positions come from the tokens each
// struct consumed (its Tokens field) rather than from start and end
// positions, which participle boxes one allocation each. With a Shapes
// to share parses, participle sees an expression one level of
// parentheses at a time: each parenthesised operand and each call is one
// atom to the level around it, and what it holds is parsed apart
// (tokenStream.groups, builder.group).

// pExpr is an operator expression as participle sees it: a flat list of
// operands and operators. build() applies libpcp's precedence to it.
//
// The structs capture only the structs below them: what a struct matched
// is read from its Tokens (the token types say which alternative it was),
// because every captured token costs participle several allocations. The
// first operand's parenthesised expression or call is captured in
// HeadParen or HeadCall, the others' in Parens and Calls in order.
type pExpr struct {
	Tokens     []lexer.Token
	HeadParen  *pExpr `parser:"( Atom | '(' @@ ')' InstName?"`
	HeadCall   *pCall `parser:"  | @@"`
	HeadPParen *pExpr `parser:"  | Prefix ( '(' @@ ')' InstName?"`
	HeadPCall  *pCall `parser:"             | @@ ) )"`
	// The tails: each a binary operator and its right operand (for "?:"
	// the middle expression comes with the operator), with no struct of
	// their own: a struct per tail cost participle several allocations,
	// and one more for the attempt after the last. Their captures land in
	// these lists in order; tails() reads the tokens to put them back
	// together.
	Thens   []*pExpr `parser:"( ( BinOp | Quest @@ ':' )"`
	Parens  []*pExpr `parser:"  ( Atom | '(' @@ ')' InstName?"`
	Calls   []*pCall `parser:"    | @@"`
	PParens []*pExpr `parser:"    | Prefix ( '(' @@ ')' InstName?"`
	PCalls  []*pCall `parser:"               | @@ ) ) )*"`
}

// operands are the parenthesised expressions and calls of a pExpr's
// operands, by form (with prefix operators or without), and how many of
// each have been read.
type operands struct {
	calls, pcalls            []*pCall
	parens, pparens          []*pExpr
	nCall, nPCall, nPar, nPP int
}

// tail is a binary operator and its right operand, from a pExpr.
type tail struct {
	op    int    // the operator: the index of our token
	then  *pExpr // for "?", the middle expression
	right operand
}

// operandAt reads the operand whose first participle token is e.Tokens[i],
// taking its parenthesised expression or call from ops; it returns the
// index after it. The alternatives are tried in this order: an atom (the
// commonest), a parenthesised expression (one token decides it), a call
// (its alternatives are tried one function family at a time), either of
// those after prefix operators.
func (b *builder) operandAt(e *pExpr, i int, ops *operands) (operand, int) {
	toks := e.Tokens
	start := i
	var o operand
	prefixed := toks[i].Type == ptPrefix
	if prefixed {
		i++
	}
	switch {
	case toks[i].Type == ptAtom:
		i++
	case toks[i].Type == ptPunctuation: // "("
		if prefixed {
			o.Paren = ops.pparens[ops.nPP]
			ops.nPP++
		} else {
			o.Paren = ops.parens[ops.nPar]
			ops.nPar++
		}
		i += len(o.Paren.Tokens) + 2
		if i < len(toks) && toks[i].Type == ptInstName {
			i++ // a parenthesised expression's filter
		}
	default:
		if prefixed {
			o.Call = ops.pcalls[ops.nPCall]
			ops.nPCall++
		} else {
			o.Call = ops.calls[ops.nCall]
			ops.nCall++
		}
		i += len(o.Call.Tokens)
	}
	o.Tokens = b.ours(toks[start:i])
	return o, i
}

// tails splits the tokens after the head into operators and operands,
// taking the nested structs from Thens, Parens and Calls in order.
func (b *builder) tails(e *pExpr) (operand, []tail) {
	toks := e.Tokens
	hc, hpc := [1]*pCall{e.HeadCall}, [1]*pCall{e.HeadPCall}
	hp, hpp := [1]*pExpr{e.HeadParen}, [1]*pExpr{e.HeadPParen}
	head, i := b.operandAt(e, 0, &operands{calls: hc[:], pcalls: hpc[:], parens: hp[:], pparens: hpp[:]})
	if i == len(toks) {
		return head, nil
	}
	out := make([]tail, 0, 2) // most expressions have one or two
	ops := &operands{calls: e.Calls, pcalls: e.PCalls, parens: e.Parens, pparens: e.PParens}
	nt := 0
	for i < len(toks) {
		t := tail{op: int(b.spans[toks[i].Pos.Line].start)}
		quest := toks[i].Type == ptQuest
		i++
		if quest {
			t.then = e.Thens[nt]
			nt++
			i += len(t.then.Tokens) + 1 // and ":"
		}
		t.right, i = b.operandAt(e, i, ops)
		out = append(out, t)
	}
	return head, out
}

// pCall is a function call; Tokens are its tokens, from the function
// word to the closing parenthesis, and the word's token type says which
// function it is: one that takes only a metric name in every version;
// one of any expression (delta, rate and instant only since PCP 6.3.0:
// the dialect check reports older use); mkconst; rescale; matchinst;
// novalue (in order of frequency: each is an alternative tried). The argument of one of any expression that is a lone atom
// (rate(a.b.c)) is read from its token, without a pExpr: that costs
// participle a struct and the attempts at a tail; an argument that is more
// costs it the one atom tried again. The specs of mkconst and novalue ("key=value", each three
// tokens after "(" or ",") are read from the tokens.
type pCall struct {
	Tokens  []lexer.Token
	ExprArg *pExpr   `parser:"(  FuncName '(' Name ')' | FuncExpr '(' ( Atom ')' | @@ ')' )"`
	Specs   struct{} `parser:" | Mkconst '(' Number ',' Keyword '=' ( String | Name | Number ) ( ',' Keyword '=' ( String | Name | Number ) )* ')'"`
	Rescale *pExpr   `parser:" | Rescale '(' @@ ',' String ')'"`
	MatchX  *pExpr   `parser:" | Matchinst '(' '!'? Pattern ',' @@ ')'"`
	NSpecs  struct{} `parser:" | Novalue '(' ( Keyword '=' ( String | Name | Number ) ( ',' Keyword '=' ( String | Name | Number ) )* )? ')' )"`
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

// builder makes the syntax tree of a parse from our tokens: spans says
// which of them each participle token stands for (tokenStream).
type builder struct {
	src   string // the expression the tokens were lexed from
	toks  []Token
	spans []ptSpan
	// shapes and groups are the parse's (parseShared): the builder parses
	// the operands that came as atoms through them (group).
	shapes *Shapes
	groups []int32
}

// index is the index in b.toks of the first of toks, a run of b.toks.
func (b *builder) index(toks []Token) int { return cap(b.toks) - cap(toks) }

// group builds the tree of the tokens of a parenthesised expression's
// inside, or of a call (keepCall: the call at their start), that came to
// participle as one atom (tokenStream.groups): a parse of their own,
// through the shapes.
func (b *builder) group(toks []Token, keepCall bool) (Node, error) {
	lo := b.index(toks)
	// Room for a level of a few atoms: the levels inside are atoms
	// here, so a room of len(toks) would make nested groups quadratic.
	stream := &tokenStream{src: b.src, toks: b.toks, i: lo, stop: lo + len(toks), groups: b.groups, keepCall: -1,
		spans: make([]ptSpan, 0, min(len(toks)+1, 16))}
	if keepCall {
		stream.keepCall = lo
	}
	e, err := b.shapes.parse(stream)
	if err != nil {
		return nil, err
	}
	return (&builder{src: b.src, toks: b.toks, spans: stream.spans, shapes: b.shapes, groups: b.groups}).build(e)
}

// ours are our tokens that the participle tokens stand for.
func (b *builder) ours(pts []lexer.Token) []Token {
	if len(pts) == 0 {
		return nil
	}
	return b.toks[b.spans[pts[0].Pos.Line].start:b.spans[pts[len(pts)-1].Pos.Line].end]
}

// climber applies precedence to a pExpr's flat operand/operator list.
type climber struct {
	b      *builder
	head   operand
	tails  []tail
	i      int // next operand: 0 is the head, k is tails[k-1].right
	prefix int // prefixes of operand i already consumed
}

func (c *climber) operand(i int) operand {
	if i == 0 {
		return c.head
	}
	return c.tails[i-1].right
}

// build makes the nodes of e from the builder's tokens. It reads e only
// for its structure and the indexes of its tokens, never their text or
// offsets, and changes nothing in it: a parse is shared by expressions
// of the same shape (Shapes).
func (b *builder) build(e *pExpr) (Node, error) {
	c := &climber{b: b}
	c.head, c.tails = b.tails(e)
	return c.binary(1)
}

// tok is our token a participle token stands for (its first).
func (b *builder) tok(pt lexer.Token) Token { return b.toks[b.spans[pt.Pos.Line].start] }

// span is the span of our tokens participle's stand for.
func (b *builder) span(pts []lexer.Token) Span { return textSpan(b.ours(pts)) }

func (c *climber) binary(minPrec int) (Node, error) {
	left, err := c.unary()
	if err != nil {
		return nil, err
	}
	for c.i < len(c.tails) {
		t := c.tails[c.i]
		opTok := c.b.toks[t.op]
		op := opTok.Text(c.b.src)
		prec := binaryPrec[op]
		if prec < minPrec {
			break
		}
		c.i++
		c.prefix = 0
		var then Node
		if t.then != nil {
			if then, err = c.b.build(t.then); err != nil {
				return nil, err
			}
		}
		var right Node
		if o := c.operand(c.i); t.then != nil && o.novalue(c.b.src) {
			// libpcp's rule is "expr ? expr : novalue": novalue() is not
			// an expression, so it ends the ternary, and an operator
			// after it applies to the whole ternary.
			right, err = c.b.primary(o)
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
			left = &Binary{At: at, Op: op, OpAt: opTok.span(), L: left, R: right}
		}
	}
	return left, nil
}

func (c *climber) unary() (Node, error) {
	o := c.operand(c.i)
	if c.prefix < o.prefixes() {
		op, at := o.Tokens[c.prefix].Text(c.b.src), o.Tokens[c.prefix].off
		c.prefix++
		x, err := c.binary(prefixPrec[op] + 1)
		if err != nil {
			return nil, err
		}
		return &Unary{At: Span{at, x.Span().End}, Op: op, X: x}, nil
	}
	return c.b.primary(o)
}

// textSpan is the span from the first token's start to the last one's
// end.
func textSpan(toks []Token) Span {
	if len(toks) == 0 {
		return Span{}
	}
	return Span{toks[0].off, toks[len(toks)-1].end}
}

// instName is the instance filter of an "[name]" token.
func (b *builder) instName(t Token) InstName {
	return InstName{At: t.span(), Name: t.Value(b.src)}
}

// operand is a primary with its prefix operators: our tokens of both,
// and the struct of its parenthesised expression or call, if it is one.
type operand struct {
	Tokens []Token
	Paren  *pExpr
	Call   *pCall
}

// prefixes is the number of prefix operators before the primary (an
// operand's leading "-" and "!" are all prefixes).
func (o operand) prefixes() int {
	n := 0
	for n < len(o.Tokens) && (o.Tokens[n].Kind == TokMinus || o.Tokens[n].Kind == TokNot) {
		n++
	}
	return n
}

// novalue reports whether the operand, of expr, is a call of novalue
// without prefix operators, parsed in its expression or one atom
// (tokenStream.groups).
func (o operand) novalue(expr string) bool {
	if o.Call != nil {
		return o.Call.Tokens[0].Type == ptNovalue && o.prefixes() == 0
	}
	return o.Paren == nil && o.Tokens[0].Kind == TokFunc && funcTypes[o.Tokens[0].Text(expr)] == ptNovalue
}

// primary is the operand's node without its prefix operators.
func (b *builder) primary(o operand) (Node, error) {
	toks := o.Tokens[o.prefixes():]
	at := textSpan(toks)
	last := toks[len(toks)-1]
	switch {
	case o.Call != nil:
		return b.call(o.Call)
	case o.Paren != nil || toks[0].Kind == TokLParen:
		var x Node
		var err error
		if o.Paren != nil {
			x, err = b.build(o.Paren)
		} else { // one atom (tokenStream.groups): its inside parsed apart
			inside := toks[1 : len(toks)-1]
			if last.Kind == TokInstName {
				inside = toks[1 : len(toks)-2]
			}
			x, err = b.group(inside, false)
		}
		if err != nil {
			return nil, err
		}
		if last.Kind != TokInstName {
			return &Paren{At: at, X: x}, nil
		}
		return &Filter{At: at, X: x, Inst: b.instName(last)}, nil
	case toks[0].Kind == TokName:
		m := &Metric{At: at, Name: toks[0].Text(b.src)}
		if len(toks) > 1 {
			inst := b.instName(toks[1])
			m.Inst = &inst
		}
		return m, nil
	case toks[0].Kind == TokInteger || toks[0].Kind == TokDouble:
		return &Number{At: at, Text: toks[0].Text(b.src)}, nil
	case toks[0].Kind == TokFunc:
		if simpleCallEnd(b.src, toks, 0) != len(toks) {
			return b.group(toks, true) // one atom (tokenStream.groups)
		}
		return b.callAtom(toks)
	}
	return nil, fmt.Errorf("grammar: empty primary")
}

func (b *builder) call(c *pCall) (Node, error) {
	toks := c.Tokens
	at := b.span(toks)
	fn := b.tok(toks[0]).Text(b.src)
	switch toks[0].Type {
	case ptFuncName:
		return b.simpleCall(at, fn, ptFuncName, b.ours(toks[2:3]))
	case ptFuncExpr:
		if c.ExprArg == nil {
			// A lone atom: no expression struct for it (the commonest
			// argument; see pCall).
			return b.simpleCall(at, fn, ptFuncExpr, b.ours(toks[2:3]))
		}
		arg, err := b.build(c.ExprArg)
		if err != nil {
			return nil, err
		}
		return &Call{At: at, Func: fn, Arg: arg}, nil
	case ptRescale:
		x, err := b.build(c.Rescale)
		if err != nil {
			return nil, err
		}
		units := b.tok(toks[len(toks)-2])
		return &Rescale{At: at, X: x, Units: units.Value(b.src), UnitsAt: Span{units.off, units.off}}, nil
	case ptMatchinst:
		x, err := b.build(c.MatchX)
		if err != nil {
			return nil, err
		}
		pat := b.tok(toks[2])
		invert := pat.Kind == TokNot
		if invert {
			pat = b.tok(toks[3])
		}
		return &Matchinst{At: at, Invert: invert, Pattern: pat.Value(b.src),
			PatternAt: Span{pat.off, pat.off}, X: x}, nil
	case ptMkconst:
		return &Mkconst{At: at, Value: Number{At: b.span(toks[2:3]), Text: b.tok(toks[2]).Text(b.src)}, Specs: b.specs(toks[3:])}, nil
	case ptNovalue:
		return &Novalue{At: at, Specs: b.specs(toks[1:])}, nil
	}
	return nil, fmt.Errorf("grammar: empty call")
}

// callAtom is the node of a call that came to participle as one atom
// (tokenStream.callAtomEnd): the node call() makes of the same call
// parsed token by token.
func (b *builder) callAtom(toks []Token) (Node, error) {
	fn := toks[0].Text(b.src)
	return b.simpleCall(textSpan(toks), fn, funcTypes[fn], toks[2:len(toks)-1])
}

// simpleCall is the node of a call of a name-only function (family
// ptFuncName) of a name, or of an expression function of an atom: arg
// are our tokens between its parentheses.
func (b *builder) simpleCall(at Span, fn string, family lexer.TokenType, arg []Token) (Node, error) {
	if family == ptFuncName {
		return &Call{At: at, Func: fn, Arg: &Metric{At: textSpan(arg), Name: arg[0].Text(b.src)}}, nil
	}
	x, err := (&climber{b: b, head: operand{Tokens: arg}}).binary(1)
	if err != nil {
		return nil, err
	}
	return &Call{At: at, Func: fn, Arg: x}, nil
}

// specs reads the "key=value" specs of a mkconst or novalue call from its
// tokens after the value (mkconst) or the word (novalue): each spec is the
// three tokens after a "(" or ",".
func (b *builder) specs(toks []lexer.Token) []Spec {
	n := 0
	for k := 0; k+3 < len(toks) && toks[k+1].Type == ptKeyword; k += 4 {
		n++
	}
	out := make([]Spec, n)
	for i := range out {
		p := toks[4*i+1 : 4*i+4]
		v := b.tok(p[2])
		out[i] = Spec{At: b.span(p), Key: b.tok(p[0]).Text(b.src), Value: v.Value(b.src), ValueAt: b.span(p[2:3]), Quoted: v.Kind == TokString}
	}
	return out
}

// ParseExpr builds the syntax tree of one expression. It accepts the union
// of both dialects' constructs (the dialect only decides how words lex);
// LibpcpVerdict says whether libpcp accepts the text. On a syntax error the
// error carries the offset where participle stopped.
func ParseExpr(src string, v pcpver.Version) (Node, error) {
	return parseTokens(src, Tokens(src, v, false))
}

// parseTokens is ParseExpr of src's tokens.
func parseTokens(src string, toks []Token) (Node, error) { return parseShared(src, toks, nil) }

// participleParse is participle's parse of a stream of our tokens.
func participleParse(stream *tokenStream) (*pExpr, error) {
	lex, err := lexer.Upgrade(stream)
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
	return e, nil
}

// parseShared is parseTokens taking participle's parse from shapes when
// an expression of the same shape was parsed before, and leaving it
// there for the next.
func parseShared(src string, toks []Token, shapes *Shapes) (Node, error) {
	for _, t := range toks {
		if t.Kind == TokError {
			return nil, &SyntaxError{Offset: t.Offset(), Msg: t.Err()}
		}
	}
	if at, deep := tooDeep(toks, lalr.MaxDepth); deep {
		return nil, &SyntaxError{Offset: at, Msg: fmt.Sprintf("expression nested more than %d deep (libpcp's parser stack limit)", lalr.MaxDepth)}
	}
	// A tree has at most a level per token: only a longer expression
	// can be too deep, and only it pays for the two depth passes.
	long := len(toks) > MaxTreeDepth
	if long {
		if depth := chainDepth(src, toks); depth > MaxTreeDepth {
			// Refused before participle builds a parse of a million nodes.
			return nil, &TooDeepError{Depth: depth}
		}
	}
	var groups []int32
	if shapes != nil {
		groups = closingParens(toks)
	}
	tree, err := buildShared(src, toks, shapes, groups)
	if err != nil && groups != nil {
		// What participle refuses, or how, may depend on the levels
		// around a group (a "(" where the grammar wants a name): the
		// error is the one of the whole expression's parse, as without
		// groups.
		tree, err = buildShared(src, toks, shapes, nil)
	}
	if err != nil {
		return nil, err
	}
	if long {
		if depth := Depth(tree); depth > MaxTreeDepth {
			return nil, &TooDeepError{Depth: depth}
		}
	}
	return tree, nil
}

// buildShared is parseShared's parse and build of the checked tokens,
// with the atoms of groups (tokenStream.groups) when groups is set: only
// with a Shapes, since without one to share them, parses of the levels
// apart would only cost more.
func buildShared(src string, toks []Token, shapes *Shapes, groups []int32) (Node, error) {
	room := len(toks)
	if groups != nil {
		room = levelTokens(toks, groups)
	}
	stream := &tokenStream{src: src, toks: toks, spans: make([]ptSpan, 0, room), groups: groups, keepCall: -1}
	e, err := shapes.parse(stream)
	if err != nil {
		return nil, err
	}
	return (&builder{src: src, toks: toks, spans: stream.spans, shapes: shapes, groups: stream.groups}).build(e)
}

// MaxTreeDepth is the deepest tree the parser builds. libpcp's parser
// takes a left-associative chain of any length (a + b + c + ...: its
// stack does not grow), but libpcp then binds, checks and evaluates the
// tree recursively, and with the default 8 MB stack every release
// crashes (SIGSEGV) somewhere past 26,000 levels (measured with pminfo
// on PCP 5.2.6, 6.0.3, 6.3.8 and 7.2.2: 26,232 to 43,731 levels, by
// release and by whether the metric is only described or fetched).
// Refusing deeper trees keeps every walk of a tree here bounded too.
const MaxTreeDepth = 25000

// TooDeepError is a tree parse refused at MaxTreeDepth. libpcp's own
// parser accepts the text (the verdict says so); the checker reports
// the crash that follows.
type TooDeepError struct {
	Depth int
}

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("expression %d operators deep (more than %d)", e.Depth, MaxTreeDepth)
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
			return t.Offset(), true
		}
		prev = t.Kind
	}
	return 0, false
}

// chainDepth is a lower bound of the tree's Depth from the tokens alone:
// the longest run of binary operators of one precedence at one level of
// parentheses, with no operator binding looser between them. Such a run
// is a left-associative chain, each operator the left operand of the
// next, so the tree is at least that deep.
func chainDepth(src string, toks []Token) int {
	// runs[p] is the length of the current run of precedence p; levels
	// keeps the enclosing parentheses' runs. libpcp has a handful of
	// precedence levels (TestChainDepthBoundsDepth checks they fit).
	type runs [8]int
	var levels []runs
	var top runs
	longest := 0
	prev := TokLParen
	for _, t := range toks {
		switch t.Kind {
		case TokLParen:
			levels = append(levels, top)
			top = runs{}
		case TokRParen:
			if n := len(levels); n > 0 {
				top, levels = levels[n-1], levels[:n-1]
			}
		case TokQuest, TokColon, TokComma:
			top = runs{}
		case TokNot:
			// A prefix operator takes as operand what binds tighter than
			// it: a run of those starts again inside ("a * !b * c" is
			// a * !(b * c)).
			clear(top[prefixPrec["!"]+1:])
		case TokPlus, TokMinus, TokStar, TokSlash, TokLT, TokLEQ, TokEQ, TokGEQ, TokGT, TokNEQ, TokAnd, TokOr:
			if t.Kind == TokMinus && prefixPosition(prev) {
				clear(top[prefixPrec["-"]+1:])
				break
			}
			p := binaryPrec[t.Text(src)]
			clear(top[p+1:]) // a looser operator ends the tighter runs
			top[p]++
			longest = max(longest, top[p])
		}
		prev = t.Kind
	}
	return longest
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
