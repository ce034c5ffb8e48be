package grammar

import (
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

// Token is one lexeme of an expression. Offsets are bytes into the
// expression text. Value is the decoded text: the instance name or pattern
// with backslash escapes removed, a string without its quotes.
type Token struct {
	Kind TokenKind
	flag bool // the matchinst flag this token was lexed under

	Text   string
	Value  string
	Offset int
	End    int
	Err    string // libpcp's lexer message, for TokError
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
}

func newScanner(src string, v pcpver.Version, flag bool) *scanner {
	s := &scanner{src: src, version: v}
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
			return Token{Kind: TokEOS, Offset: start, End: end}
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

// eos is libpcp's end-of-string token: its position is the last character.
func (s *scanner) eos() Token {
	off := len(s.src) - 1
	if off < 0 {
		off = 0
	}
	return Token{Kind: TokEOS, Offset: off, End: len(s.src)}
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
	tok = Token{Text: text, Value: text, Offset: off, End: off + len(text)}
	switch kind {
	case lxWord:
		word, glued := strings.CutSuffix(text, "(")
		if glued {
			paren := Token{Kind: TokLParen, Text: "(", Value: "(", Offset: off + len(word), End: off + len(text)}
			tok.Text, tok.Value, tok.End = word, word, off+len(word)
			switch {
			case !reservedBeforeParen(word, v):
				// Not a function word in this release: an ordinary name
				// followed by "(".
				tok = classifyName(tok, v)
			case word == "meta":
				tok.Kind = TokMeta
			default:
				tok.Kind = TokFunc
			}
			return tok, paren, true
		}
		return classifyName(tok, v), Token{}, false
	case lxNumber:
		if strings.Contains(text, ".") {
			tok.Kind = TokDouble
		} else if tok.Kind = TokInteger; !fitsU32(text) {
			tok.Kind, tok.Err = TokError, "Constant value too large"
		}
	case lxString:
		tok.Kind, tok.Value = TokString, text[1:len(text)-1]
	case lxBadString:
		tok.Kind, tok.Err = TokError, "unterminated STRING"
	case lxInstName:
		tok.Kind, tok.Value = TokInstName, unescape(text[1:len(text)-1])
	case lxBadInstName:
		tok.Kind, tok.Err = TokError, "unterminated instance name"
	case lxPattern:
		tok.Kind, tok.Value = TokPattern, unescape(text[1:len(text)-1])
	case lxBadPattern:
		tok.Kind, tok.Err = TokError, "unterminated pattern"
	case lxOp:
		tok.Kind = opKinds[text]
	default:
		tok.Kind, tok.Err = TokError, "Illegal character"
	}
	return tok, Token{}, false
}

// classifyName makes a word a NAME or one of the reserved words.
func classifyName(tok Token, v pcpver.Version) Token {
	tok.Kind = TokName
	switch tok.Text {
	case "type":
		tok.Kind = TokType
	case "semantics":
		tok.Kind = TokSemantics
	case "units":
		tok.Kind = TokUnits
	case "indom":
		if v.Has(pcpver.IndomSpec) {
			tok.Kind = TokIndom
		}
	case "meta":
		if v.Has(pcpver.MetaSpec) {
			tok.Kind = TokMeta
		}
	}
	return tok
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
// tokens of 72 bytes had the old and the new array alive at once (90 MB,
// the largest heap of an explain of it).
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
	*it = tokenIter{s: scanner{src: src, version: v}, flag: flag, opens: it.opens[:0]}
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
		if t.End >= len(it.s.src) {
			it.done, it.eos = true, t
		}
	case TokFunc:
		if t.Value == "matchinst" {
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
