package grammar

// The token stream participle parses: our tokens given participle's token
// types by role, with atoms (an operand and its prefixes and filter as
// one token) and, under a Shapes, each parenthesised group or call as one
// token of the level around it (see the note at the top of parser.go).

import (
	"errors"
	"io"

	"github.com/alecthomas/participle/v2/lexer"
)

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
	ptAtom // prefix operators, then a name and its filter or a number
)

type tokenDefinition struct{}

func (tokenDefinition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Name": ptName, "Number": ptNumber, "String": ptString,
		"InstName": ptInstName, "Pattern": ptPattern, "FuncName": ptFuncName,
		"FuncExpr": ptFuncExpr, "Rescale": ptRescale, "Matchinst": ptMatchinst,
		"Mkconst": ptMkconst, "Novalue": ptNovalue, "Keyword": ptKeyword,
		"BinOp": ptBinOp, "Prefix": ptPrefix, "Quest": ptQuest,
		"Punctuation": ptPunctuation, "Error": ptError, "Atom": ptAtom,
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

// tokenStream feeds our tokens to participle. A participle token stands
// for one or more of ours: its position's Line is its own index in the
// stream (Column the next), and spans[Line] the run of our tokens it
// stands for (so the tree is built from our tokens, see builder); its
// Value is its first token's text as written and its Offset that token's.
// Numbering participle's tokens, not ours, lets expressions share a parse
// whatever their atoms hold ("a", "-x.y[i]" and "rate(b)" are each one
// Atom to participle: see Shapes).
//
// An atom is one participle token for what is, in operand position,
// always an operand: prefix operators, then a metric name and its
// instance filter, a number, or a call of a name-only function of a
// name (avg(a.b)) or of an expression function of a name or number
// (rate(a.b), delta(-x[i])): the commonest calls are then one token to
// participle, which tries its alternatives token by token. The prefix operators before any other
// operand (a parenthesised expression, a call) are one Prefix token. Where a bare name or number is the
// grammar's (a name-only function's argument, mkconst's value, a spec's
// value: the token after "name(" or "mkconst(" or after "="; and after
// "matchinst(", where a "!" is the grammar's own) the tokens come one by
// one, so that the grammar refuses a prefix or a filter there as before.
type tokenStream struct {
	src  string // the expression the tokens were lexed from
	toks []Token
	i    int
	prev TokenKind // the kind of the token before, for "-"'s role
	// bare: the next token is where the grammar wants a bare name or
	// number (see above).
	bare bool
	// plainCalls: no call is an atom (tests compare the trees).
	plainCalls bool
	// spans are the runs of our tokens of the participle tokens given so
	// far, the end's included once it is given.
	spans []ptSpan
	// stop, when above 0, is the index of the token that stands as the
	// end: the stream is of the tokens [i, stop), a parenthesised
	// expression's inside or a call that came to an enclosing parse as
	// one atom (groups).
	stop int
	// groups, when set, is the index of the ")" that closes each "(" of
	// toks (-1 for one unclosed), and makes every parenthesised operand
	// and every call (but of a name-only function) one atom to
	// participle, except the call at keepCall: the builder parses
	// what each holds on its own (builder.group). Participle then sees an
	// expression one level of parentheses at a time, and expressions
	// share far more parses (Shapes): those of a generated config differ
	// mostly in how their levels nest.
	groups   []int32
	keepCall int
}

// ptSpan is the run of our tokens, [start, end), a participle token
// stands for: indexes into an expression's tokens, 32-bit as their
// offsets are (a stream of a 1 MB expression has one per token).
type ptSpan struct{ start, end int32 }

func (s *tokenStream) Next() (lexer.Token, error) {
	i := s.i
	t := s.toks[i]
	if s.stop > 0 && i >= s.stop {
		t = Token{Kind: TokEOS, off: t.off, end: t.off}
	}
	end := i + 1
	k := len(s.spans)
	pt := lexer.Token{Value: t.Text(s.src), Pos: lexer.Position{Offset: t.Offset(), Line: k, Column: k + 1}}
	bare := s.bare
	s.bare = false
	switch t.Kind {
	case TokEOS:
		if k == 0 || int(s.spans[k-1].start) != i {
			s.spans = append(s.spans, ptSpan{int32(i), int32(end)})
		} else {
			pt.Pos.Line, pt.Pos.Column = k-1, k // the end stays the end
		}
		pt.Type, pt.Pos.Offset, pt.Value = lexer.EOF, t.End(), ""
		return pt, nil
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
		pt.Type = funcTypes[t.Text(s.src)]
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
		switch {
		case t.Kind == TokAssign:
			s.bare = true
		case t.Kind == TokLParen && i > 0 && s.prev == TokFunc:
			ft := funcTypes[s.toks[i-1].Text(s.src)]
			s.bare = ft == ptFuncName || ft == ptMkconst || ft == ptMatchinst
		}
	default:
		pt.Type = ptBinOp
	}
	switch {
	case bare:
	case pt.Type == ptName || pt.Type == ptNumber || pt.Type == ptPrefix || t.Kind == TokFunc:
		switch j := s.atomEnd(i); {
		case j > 0:
			pt.Type, end = ptAtom, j
		case t.Kind != TokFunc:
			end = -j // prefix operators before a "(" or a call: one token
		}
	case t.Kind == TokLParen && s.groups != nil && s.prev != TokFunc && prefixPosition(s.prev):
		if j := s.groupEnd(i); j > 0 {
			pt.Type, end = ptAtom, j // a parenthesised operand
		}
	}
	s.spans = append(s.spans, ptSpan{int32(i), int32(end)})
	s.prev = s.toks[end-1].Kind
	s.i = end
	return pt, nil
}

// atomEnd returns the index after the atom starting at token i, or, when
// none starts there, minus the index of the first token after the prefix
// operators from i on.
func (s *tokenStream) atomEnd(i int) int {
	end, j := s.plainAtomEnd(i)
	if end == 0 && s.toks[j].Kind == TokFunc && !s.plainCalls {
		end = s.callAtomEnd(j)
	}
	if end == 0 && s.groups != nil {
		end = s.groupEnd(j)
	}
	if end > 0 {
		return end
	}
	return -j
}

// plainAtomEnd returns the index after the prefix operators from i on
// and the name (and its filter) or number after them, or 0 when no name
// or number follows, and the index of the first token after the
// operators.
func (s *tokenStream) plainAtomEnd(i int) (end, j int) { return plainAtomEnd(s.toks, i) }

// plainAtomEnd is tokenStream.plainAtomEnd of toks (whose last token may
// be any: a call atom's run, for the builder).
func plainAtomEnd(toks []Token, i int) (end, j int) {
	j = i
	for j < len(toks) && (toks[j].Kind == TokNot || toks[j].Kind == TokMinus) { // after a prefix, "-" is one too
		j++
	}
	if j == len(toks) {
		return 0, j
	}
	switch toks[j].Kind {
	case TokName:
		if j+1 < len(toks) && toks[j+1].Kind == TokInstName {
			return j + 2, j
		}
		return j + 1, j
	case TokInteger, TokDouble:
		return j + 1, j
	}
	return 0, j
}

// callAtomEnd returns the index after the call at token j when it is an
// atom (see tokenStream), else 0. An expression function's argument must
// be an atom without a call: "rate(avg(x))" is a call of the atom
// avg(x), so no run of nested calls is scanned more than twice.
func (s *tokenStream) callAtomEnd(j int) int { return simpleCallEnd(s.src, s.toks, j) }

// simpleCallEnd is callAtomEnd of toks, lexed from src.
func simpleCallEnd(src string, toks []Token, j int) int {
	if j+1 >= len(toks) || toks[j+1].Kind != TokLParen {
		return 0
	}
	switch funcTypes[toks[j].Text(src)] {
	case ptFuncName:
		if j+3 < len(toks) && toks[j+2].Kind == TokName && toks[j+3].Kind == TokRParen {
			return j + 4
		}
	case ptFuncExpr:
		if end, _ := plainAtomEnd(toks, j+2); end > 0 && end < len(toks) && toks[end].Kind == TokRParen {
			return end + 1
		}
	}
	return 0
}

// groupEnd returns the index after the parenthesised expression (and its
// filter) or the call at token j when the stream makes it one atom
// (groups), else 0. A call of a name-only function is either an atom
// already (callAtomEnd) or wrong: participle is to say where.
func (s *tokenStream) groupEnd(j int) int {
	toks := s.toks
	switch toks[j].Kind {
	case TokLParen:
		closing := int(s.groups[j])
		if closing < 0 || (s.stop > 0 && closing >= s.stop) {
			return 0
		}
		if end := closing + 1; toks[end].Kind != TokInstName || (s.stop > 0 && end >= s.stop) {
			return end
		}
		return closing + 2
	case TokFunc:
		if j == s.keepCall || toks[j+1].Kind != TokLParen {
			return 0
		}
		switch funcTypes[toks[j].Text(s.src)] {
		case ptFuncExpr, ptRescale, ptMatchinst, ptMkconst, ptNovalue:
			if closing := int(s.groups[j+1]); closing > 0 && (s.stop == 0 || closing < s.stop) {
				return closing + 1
			}
		}
	}
	return 0
}

// levelTokens is about how many participle tokens the outermost level of
// toks comes as with groups (closingParens): each of our tokens outside
// the parentheses (the end's included), each parenthesised group one (the
// stream may give one as its tokens, and then the spans grow). A balanced
// tree's outermost level is one group: its stream's spans are made for
// two tokens rather than one per token of the expression.
func levelTokens(toks []Token, groups []int32) int {
	n := 0
	for i := 0; i < len(toks); i++ {
		if closing := groups[i]; closing > 0 {
			i = int(closing)
		}
		n++
	}
	return n
}

// closingParens is tokenStream.groups for toks: the index of the ")"
// that closes each "(" (-1 for one never closed, and for every other
// token), or nil when toks have no "(".
func closingParens(toks []Token) []int32 {
	var groups []int32
	var open []int32
	for i, t := range toks {
		switch t.Kind {
		case TokLParen:
			if groups == nil {
				groups = make([]int32, len(toks))
				for k := range groups {
					groups[k] = -1
				}
			}
			open = append(open, int32(i))
		case TokRParen:
			if n := len(open); n > 0 {
				groups[open[n-1]] = int32(i)
				open = open[:n-1]
			}
		}
	}
	return groups
}
