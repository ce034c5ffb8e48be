package grammar

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TokenKind classifies a token the way libpcp's lexer does.
type TokenKind uint8

const (
	TokEOS TokenKind = iota
	TokError
	TokName
	TokInteger
	TokDouble
	TokString
	TokInstName
	TokPattern
	TokFunc // a function word glued to "(": Value is the word
	TokType
	TokSemantics
	TokUnits
	TokIndom
	TokMeta
	TokPlus
	TokMinus
	TokStar
	TokSlash
	TokQuest
	TokColon
	TokLParen
	TokRParen
	TokLT
	TokLEQ
	TokEQ
	TokGEQ
	TokGT
	TokNEQ
	TokAnd
	TokOr
	TokNot
	TokAssign
	TokComma
)

// Token is one lexeme of an expression: its kind and where it lies in the
// expression's text, 12 bytes. Its text and value are read from the
// expression by methods rather than kept (a 1 MB expression has about
// 650,000 tokens, which at 72 bytes each, with their strings and offsets
// inline, were the largest thing alive while it was parsed). Offsets are
// 32-bit, as every position in a file is (Pos): an expression longer
// than that lexes as an error (Tokens).
type Token struct {
	Kind TokenKind
	flag bool     // the matchinst flag this token was lexed under
	err  lexError // libpcp's lexer message, for TokError
	off  int32
	end  int32
}

// Offset is the byte offset in the expression where the token starts.
func (t Token) Offset() int { return int(t.off) }

// End is the byte offset in the expression just past the token.
func (t Token) End() int { return int(t.end) }

// Text is the token as written in expr, the expression it was lexed
// from; the end of the string has none.
func (t Token) Text(expr string) string {
	if t.Kind == TokEOS {
		return ""
	}
	return expr[t.off:t.end]
}

// Value is the token's decoded text in expr, the expression it was lexed
// from: an instance name or pattern with its delimiters and backslash
// escapes removed, a string without its quotes, a function word without
// its parenthesis; any other token's text.
func (t Token) Value(expr string) string {
	switch t.Kind {
	case TokString:
		return expr[t.off+1 : t.end-1]
	case TokInstName, TokPattern:
		return unescape(expr[t.off+1 : t.end-1])
	}
	return t.Text(expr)
}

// span is the token's place in its expression.
func (t Token) span() Span { return Span{t.off, t.end} }

// Err is libpcp's lexer message for a TokError.
func (t Token) Err() string { return lexErrors[t.err] }

// lexError is which of libpcp's lexer messages a TokError carries.
type lexError uint8

const (
	lexOK lexError = iota
	lexTooLarge
	lexUnterminatedString
	lexUnterminatedInstName
	lexUnterminatedPattern
	lexIllegal
	lexTooLong
)

// lexErrors are the messages of the lexErrors, libpcp's words but the
// last (ours: an expression past 32-bit offsets).
var lexErrors = [...]string{
	lexOK:                   "",
	lexTooLarge:             "Constant value too large",
	lexUnterminatedString:   "unterminated STRING",
	lexUnterminatedInstName: "unterminated instance name",
	lexUnterminatedPattern:  "unterminated pattern",
	lexIllegal:              "Illegal character",
	lexTooLong:              "expression longer than 2 GiB",
}

// scanner lexes an expression as libpcp's derive_lex does, one token at a
// time. libpcp lexes "/" as the start of a pattern while a flag set by the
// matchinst function word is up; the flag drops when the parser reduces
// the matchinst call. The scanner approximates that with parenthesis
// nesting (inside "matchinst(" every "(" nests and ")" unnests, and a
// pattern may start while any is open); the token readers correct it
// where the parser's view differs (Tokens, and libpcpRun.Next, which
// restarts a scanner at the offset where libpcp's flag disagrees).
//
// It is a hand-written scanner rather than a table of regular
// expressions: it runs for every definition of every file, and the
// regular expressions cost most of a parse. lexer_oracle_test.go keeps
// the regular-expression rules it replaced and proves the two lex alike.
type scanner struct {
	src     string
	version pcpver.Version
	pos     int
	// depth counts the "matchinst(" nesting levels open: each "(" inside
	// one opens another, each ")" closes one.
	depth int
	// leaked: patterns lex at the top level too (the scanner started with
	// libpcp's flag up).
	leaked bool
	// pending is the "(" of a word glued to it, returned by the next
	// call when hasPending: at most one token is ever split off. A slot,
	// not a queue: a slice resliced from the front lost its room, and
	// every function call in an expression allocated (25 MB of a
	// 100,000-definition check's 300).
	pending    Token
	hasPending bool
	// maxLen is the longest text lexed (maxExprLen; less in tests).
	maxLen int
}

// maxExprLen is the longest expression lexed: a Token's offsets are
// 32-bit, as a file's positions are (analysis.MaxSupportedSize).
const maxExprLen = math.MaxInt32

func newScanner(src string, v pcpver.Version, flag bool) *scanner {
	s := &scanner{src: src, version: v, maxLen: maxExprLen}
	s.restart(0, flag)
	return s
}

// restart lexes from offset on, with no nesting open and the flag in the
// given state.
func (s *scanner) restart(offset int, flag bool) {
	s.pos, s.depth, s.leaked = offset, 0, flag
}

// lexeme kinds: which rule of the scanner matched.
type lexeme uint8

const (
	lxEOF lexeme = iota
	lxWord
	lxOp
	lxNumber
	lxString
	lxBadString
	lxInstName
	lxBadInstName
	lxPattern
	lxBadPattern
	lxIllegal
	lxFF // byte 0xFF where a token starts: libpcp's end of the string
)

// ff is the byte libpcp's lexer takes for the end of the string: it
// reads the expression through a (signed) char into an int, and 0xFF
// becomes -1, EOF, in every release. Unlike the real end, the pointer
// has moved past it: where a token starts, the lexer returns the end of
// the string there (a parser that reads on after it, in error recovery,
// gets the tokens that follow); inside a name, number or operator it
// ends the token as the end of the string would and is consumed with
// it; inside a string, instance name or pattern (even after a
// backslash) it leaves it unterminated.
const ff = 0xff

// skipFF consumes a 0xFF at end: the byte libpcp's lexer read to find
// that the token before it had ended.
func (s *scanner) skipFF(end int) {
	s.pos = end
	if end < len(s.src) && s.src[end] == ff {
		s.pos = end + 1
	}
}

// lex returns the next lexeme: its kind and [start, end).
func (s *scanner) lex() (lexeme, int, int) {
	src := s.src
	for s.pos < len(src) && isLexSpace(src[s.pos]) {
		s.pos++
	}
	start := s.pos
	if start >= len(src) {
		return lxEOF, start, start
	}
	c := src[start]
	if c == ff {
		s.pos = start + 1
		return lxFF, start, start + 1
	}
	if c == '/' && (s.depth > 0 || s.leaked) {
		end, ok := scanEscaped(src, start+1, '/')
		s.pos = end
		if ok {
			return lxPattern, start, end
		}
		return lxBadPattern, start, end
	}
	switch {
	case isAlpha(c):
		return s.word(start)
	case c == '(' || c == ')':
		if s.depth > 0 {
			if c == '(' {
				s.depth++
			} else {
				s.depth--
			}
		}
		s.pos = start + 1
		return lxOp, start, start + 1
	case c == '<' || c == '>' || c == '=' || c == '!':
		end := start + 1
		if end < len(src) && src[end] == '=' {
			end++
			s.pos = end
		} else {
			s.skipFF(end)
		}
		return lxOp, start, end
	case c == '&' || c == '|':
		if start+1 < len(src) && src[start+1] == c {
			s.pos = start + 2
			return lxOp, start, start + 2
		}
		s.skipFF(start + 1)
		return lxIllegal, start, start + 1
	case c == '-' || c == '+' || c == '*' || c == '/' || c == '?' || c == ':' || c == ',':
		s.pos = start + 1
		return lxOp, start, start + 1
	case isDigit(c) || c == '.':
		return s.number(start)
	case c == '"':
		return s.str(start)
	case c == '[':
		end, ok := scanEscaped(src, start+1, ']')
		s.pos = end
		if ok {
			return lxInstName, start, end
		}
		return lxBadInstName, start, end
	}
	// Anything else is one illegal character (a whole UTF-8 sequence).
	_, size := utf8.DecodeRuneInString(src[start:])
	s.pos = start + size
	return lxIllegal, start, s.pos
}

// word lexes a name from start, with the '(' that makes it a call.
func (s *scanner) word(start int) (lexeme, int, int) {
	src := s.src
	end := start + 1
	for end < len(src) && (isAlpha(src[end]) || isDigit(src[end]) || src[end] == '_' || src[end] == '.') {
		end++
	}
	if end < len(src) && src[end] == '(' {
		end++
		// Inside matchinst( every call nests; "matchinst(" nests
		// anywhere.
		if s.depth > 0 || src[start:end] == "matchinst(" {
			s.depth++
		}
		s.pos = end
		return lxWord, start, end
	}
	s.skipFF(end)
	return lxWord, start, end
}

// number lexes digits, a dot and digits from start.
func (s *scanner) number(start int) (lexeme, int, int) {
	src := s.src
	end := start
	for end < len(src) && isDigit(src[end]) {
		end++
	}
	if end < len(src) && src[end] == '.' {
		end++
		for end < len(src) && isDigit(src[end]) {
			end++
		}
	}
	s.skipFF(end)
	return lxNumber, start, end
}

// str lexes a double-quoted string from start; one ended by a 0xFF or
// the end of the text is a bad one.
func (s *scanner) str(start int) (lexeme, int, int) {
	src := s.src
	for end := start + 1; end < len(src); end++ {
		switch src[end] {
		case '"':
			s.pos = end + 1
			return lxString, start, s.pos
		case ff:
			s.pos = end + 1 // past the 0xFF that ended it
			return lxBadString, start, s.pos
		}
	}
	s.pos = len(src)
	return lxBadString, start, s.pos
}

// scanEscaped finds the end of a "[...]" or "/.../" from just after its
// opening delimiter: a backslash escapes the next character. It reports
// false, with the end of the text or just past the 0xFF that ended it
// (libpcp's end of the string, escaped or not), when no unescaped
// delimiter closes it.
func scanEscaped(src string, i int, delim byte) (int, bool) {
	for i < len(src) {
		switch src[i] {
		case ff:
			return i + 1, false
		case '\\':
			if i+1 >= len(src) {
				return len(src), false
			}
			if src[i+1] == ff {
				return i + 2, false
			}
			i += 2
		case delim:
			return i + 1, true
		default:
			i++
		}
	}
	return len(src), false
}

// isLexSpace is the white space the lexer skips (C's isspace).
func isLexSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// next returns the next token as libpcp would lex it with the matchinst
// flag in the given state. The pending piece of a split token (a function
// word's parenthesis) is returned first.
func (s *scanner) next(flag bool) Token {
	if len(s.src) > s.maxLen {
		return s.tooLong()
	}
	if s.hasPending {
		s.hasPending = false
		return s.pending
	}
	for {
		kind, start, end := s.lex()
		switch kind {
		case lxEOF:
			return s.eos()
		case lxFF:
			return Token{Kind: TokEOS, off: int32(start), end: int32(end)}
		}
		isPattern := kind == lxPattern || kind == lxBadPattern
		if isPattern != flag && (isPattern || (kind == lxOp && s.src[start] == '/')) {
			s.restart(start, flag)
			continue
		}
		tok, split, glued := classify(kind, s.src[start:end], start, s.version)
		if glued {
			s.pending, s.hasPending = split, true
		}
		return tok
	}
}

// tooLong is the scanner's tokens for a text whose offsets do not fit a
// Token: an error where it starts, then the end of the string there.
func (s *scanner) tooLong() Token {
	if s.pos == 0 {
		s.pos = 1
		return Token{Kind: TokError, err: lexTooLong}
	}
	return Token{Kind: TokEOS}
}

// eos is libpcp's end-of-string token: its position is the last character.
func (s *scanner) eos() Token {
	off := len(s.src) - 1
	if off < 0 {
		off = 0
	}
	return Token{Kind: TokEOS, off: int32(off), end: int32(len(s.src))}
}

var opKinds = map[string]TokenKind{
	"+": TokPlus, "-": TokMinus, "*": TokStar, "/": TokSlash, "?": TokQuest,
	":": TokColon, "(": TokLParen, ")": TokRParen, "<": TokLT, "<=": TokLEQ,
	"==": TokEQ, ">=": TokGEQ, ">": TokGT, "!=": TokNEQ, "&&": TokAnd,
	"||": TokOr, "!": TokNot, "=": TokAssign, ",": TokComma,
}

// classify turns one participle token into a libpcp token; a word glued to
// "(" becomes the word and, in split, its parenthesis (glued says so; a
// value, not a pointer: a pointer cost an allocation per call).
func classify(kind lexeme, text string, off int, v pcpver.Version) (tok Token, split Token, glued bool) {
	tok = Token{off: int32(off), end: int32(off + len(text))}
	switch kind {
	case lxWord:
		word, glued := strings.CutSuffix(text, "(")
		if glued {
			paren := Token{Kind: TokLParen, off: int32(off + len(word)), end: tok.end}
			tok.end = int32(off + len(word))
			switch {
			case !reservedBeforeParen(word, v):
				// Not a function word in this release: an ordinary name
				// followed by "(".
				tok.Kind = nameKind(word, v)
			case word == "meta":
				tok.Kind = TokMeta
			default:
				tok.Kind = TokFunc
			}
			return tok, paren, true
		}
		tok.Kind = nameKind(text, v)
	case lxNumber:
		if strings.Contains(text, ".") {
			tok.Kind = TokDouble
		} else if tok.Kind = TokInteger; !fitsU32(text) {
			tok.Kind, tok.err = TokError, lexTooLarge
		}
	case lxString:
		tok.Kind = TokString
	case lxBadString:
		tok.Kind, tok.err = TokError, lexUnterminatedString
	case lxInstName:
		tok.Kind = TokInstName
	case lxBadInstName:
		tok.Kind, tok.err = TokError, lexUnterminatedInstName
	case lxPattern:
		tok.Kind = TokPattern
	case lxBadPattern:
		tok.Kind, tok.err = TokError, lexUnterminatedPattern
	case lxOp:
		tok.Kind = opKinds[text]
	default:
		tok.Kind, tok.err = TokError, lexIllegal
	}
	return tok, Token{}, false
}

// nameKind is a word's kind: a NAME or one of the reserved words.
func nameKind(word string, v pcpver.Version) TokenKind {
	switch word {
	case "type":
		return TokType
	case "semantics":
		return TokSemantics
	case "units":
		return TokUnits
	case "indom":
		if v.Has(pcpver.IndomSpec) {
			return TokIndom
		}
	case "meta":
		if v.Has(pcpver.MetaSpec) {
			return TokMeta
		}
	}
	return TokName
}

// fitsU32 reports whether a decimal digit string is at most 4294967295,
// libpcp's limit for integer literals.
func fitsU32(digits string) bool {
	digits = strings.TrimLeft(digits, "0")
	return len(digits) < 10 || (len(digits) == 10 && digits <= "4294967295")
}

// unescape removes libpcp's backslash escapes: "\x" stands for "x".
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Tokens lexes a whole expression. The matchinst flag is emulated from
// parenthesis nesting, which is what libpcp does for any expression that
// parses; flag is its state before the first token (Options.Leak).
func Tokens(src string, v pcpver.Version, flag bool) []Token {
	return appendTokens(nil, src, v, flag)
}

// countTokensAbove is the length of an expression whose tokens are
// counted before they are kept (appendTokens).
const countTokensAbove = 64 << 10

// appendTokens appends Tokens(src, v, flag) to out, which it grows once:
// for a short expression by a guess from the text (a token every few
// bytes; growing token by token would cost more), for a long one by the
// count of a first lexing. Grown by append, a 1 MB expression's 650,000
// tokens (then of 72 bytes) had the old and the new array alive at once
// (90 MB, the largest heap of an explain of it).
func appendTokens(out []Token, src string, v pcpver.Version, flag bool) []Token {
	need := len(src)/4 + 2
	if len(src) > countTokensAbove {
		need = 0
		for it := newTokenIter(src, v, flag); it.next().Kind != TokEOS; {
			need++
		}
		need++ // the end of the string
	}
	out = slices.Grow(out, need)
	it := newTokenIter(src, v, flag)
	for {
		t := it.next()
		out = append(out, t)
		if t.Kind == TokEOS {
			return out
		}
	}
}

// tokenIter yields the tokens Tokens returns, one at a time, so a reader
// that needs each token once (the verdict) keeps none of them.
type tokenIter struct {
	s     scanner
	flag  bool
	depth int
	opens []int // depth at each open matchinst(
	done  bool
	eos   Token
}

func newTokenIter(src string, v pcpver.Version, flag bool) *tokenIter {
	it := &tokenIter{}
	it.reset(src, v, flag)
	return it
}

// reset starts the iterator over src, keeping its buffers.
func (it *tokenIter) reset(src string, v pcpver.Version, flag bool) {
	*it = tokenIter{s: scanner{src: src, version: v, maxLen: maxExprLen}, flag: flag, opens: it.opens[:0]}
	it.s.restart(0, flag)
}

// next returns the next token; after the end, the end-of-string token
// again. A 0xFF is an end of the string too, but libpcp's lexer reads on
// after it (Tokens, like every reader of a whole expression, stops at
// the first end of the string: what a parse of it accepts ends there).
func (it *tokenIter) next() Token {
	if it.done {
		return it.eos
	}
	flag := it.flag
	t := it.s.next(flag)
	t.flag = flag
	switch t.Kind {
	case TokEOS:
		if t.End() >= len(it.s.src) {
			it.done, it.eos = true, t
		}
	case TokFunc:
		if t.Text(it.s.src) == "matchinst" {
			it.opens = append(it.opens, it.depth)
			it.flag = true
		}
	case TokLParen:
		it.depth++
	case TokRParen:
		it.depth--
		if n := len(it.opens); n > 0 && it.depth == it.opens[n-1] {
			it.opens = it.opens[:n-1]
			it.flag = false
		}
	}
	return t
}
