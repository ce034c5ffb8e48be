package grammar

import (
	"slices"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
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

// The lexer is participle's stateful lexer. libpcp lexes "/" as the start of
// a pattern while a flag set by the matchinst function word is up; the
// flag drops when the parser reduces the matchinst call. The "Matchinst"
// state approximates that with parenthesis nesting; the token readers below
// correct it where the parser's view differs (see lazyLexer and Tokens).
var (
	// Rules are ordered by how often they match, for speed; a word glued
	// to "(" is split into a function word (or a name) and "(" later.
	rootRules = []lexer.Rule{
		{Name: "whitespace", Pattern: `[ \t\n\v\f\r]+`},
		{Name: "MatchinstCall", Pattern: `matchinst\(`, Action: lexer.Push("Matchinst")},
		{Name: "Word", Pattern: `[A-Za-z][A-Za-z0-9_.]*\(?`},
		{Name: "Op", Pattern: `<=|>=|==|!=|&&|\|\||[-+*/()?:,<>=!]`},
		{Name: "Number", Pattern: `[0-9]*\.[0-9]*|[0-9]+`},
		{Name: "String", Pattern: `"[^"]*"`},
		{Name: "BadString", Pattern: `"[^"]*`},
		{Name: "InstName", Pattern: `\[(?:\\[\s\S]|[^\]\\])*\]`},
		{Name: "BadInstName", Pattern: `\[(?:\\[\s\S]|[^\]\\])*\\?`},
		{Name: "Illegal", Pattern: `[\s\S]`},
	}
	patternRules = []lexer.Rule{
		{Name: "Pattern", Pattern: `/(?:\\[\s\S]|[^/\\])*/`},
		{Name: "BadPattern", Pattern: `/(?:\\[\s\S]|[^/\\])*\\?`},
	}
	// Inside matchinst( every "(" pushes and ")" pops, so the state ends
	// with the call's closing parenthesis.
	matchinstRules = append(append([]lexer.Rule{}, patternRules...),
		lexer.Rule{Name: "MatchinstCall", Pattern: `matchinst\(`, Action: lexer.Push("Matchinst")},
		lexer.Rule{Name: "WordCall", Pattern: `[A-Za-z][A-Za-z0-9_.]*\(`, Action: lexer.Push("Matchinst")},
		lexer.Rule{Name: "Open", Pattern: `\(`, Action: lexer.Push("Matchinst")},
		lexer.Rule{Name: "Close", Pattern: `\)`, Action: lexer.Pop()},
		lexer.Include("Root"),
	)

	// plainLexer starts with the matchinst flag down; leakedLexer starts
	// with it up, as libpcp does after a failed parse inside matchinst().
	plainLexer = lexer.MustStateful(lexer.Rules{
		"Root":      rootRules,
		"Matchinst": matchinstRules,
	})
	leakedLexer = lexer.MustStateful(lexer.Rules{
		"Root":      append(append([]lexer.Rule{}, patternRules...), rootRules...),
		"Matchinst": matchinstRules,
	})
	plainRuleNames  = symbolNames(plainLexer)
	leakedRuleNames = symbolNames(leakedLexer)
)

// scanner walks an expression with participle's lexer, restarting it from
// a given offset in a given flag state when libpcp's flag says the current
// state is wrong.
type scanner struct {
	src     string
	version pcpver.Version
	base    int
	lx      lexer.Lexer
	sym     map[lexer.TokenType]string
}

func newScanner(src string, v pcpver.Version, flag bool) *scanner {
	s := &scanner{src: src, version: v}
	s.restart(0, flag)
	return s
}

func (s *scanner) restart(offset int, flag bool) {
	def, names := plainLexer, plainRuleNames
	if flag {
		def, names = leakedLexer, leakedRuleNames
	}
	s.sym = names
	lx, err := def.LexString("", s.src[offset:])
	if err != nil {
		// LexString only fails on a reader error, impossible for a string.
		panic(err)
	}
	s.base, s.lx = offset, lx
}

func symbolNames(def *lexer.StatefulDefinition) map[lexer.TokenType]string {
	m := map[lexer.TokenType]string{}
	for name, t := range def.Symbols() {
		m[t] = name
	}
	return m
}

// next returns the next token as libpcp would lex it with the matchinst
// flag in the given state. Pending pieces of split tokens (a function word's
// parenthesis) are returned first.
func (s *scanner) next(flag bool, pending *[]Token) Token {
	if len(*pending) > 0 {
		t := (*pending)[0]
		*pending = (*pending)[1:]
		return t
	}
	for {
		pt, err := s.lx.Next()
		if err != nil || pt.EOF() {
			return s.eos()
		}
		off := s.base + pt.Pos.Offset
		rule := s.sym[pt.Type]
		isPattern := rule == "Pattern" || rule == "BadPattern"
		if isPattern != flag && (isPattern || pt.Value == "/") {
			s.restart(off, flag)
			continue
		}
		tok, split := classify(rule, pt.Value, off, s.version)
		if split != nil {
			*pending = append(*pending, *split)
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
// "(" becomes the word and, in split, its parenthesis.
func classify(rule, text string, off int, v pcpver.Version) (tok Token, split *Token) {
	tok = Token{Text: text, Value: text, Offset: off, End: off + len(text)}
	switch rule {
	case "MatchinstCall", "Word", "WordCall":
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
			return tok, &paren
		}
		return classifyName(tok, v), nil
	case "Number":
		if strings.Contains(text, ".") {
			tok.Kind = TokDouble
		} else if tok.Kind = TokInteger; !fitsU32(text) {
			tok.Kind, tok.Err = TokError, "Constant value too large"
		}
	case "String":
		tok.Kind, tok.Value = TokString, text[1:len(text)-1]
	case "BadString":
		tok.Kind, tok.Err = TokError, "unterminated STRING"
	case "InstName":
		tok.Kind, tok.Value = TokInstName, unescape(text[1:len(text)-1])
	case "BadInstName":
		tok.Kind, tok.Err = TokError, "unterminated instance name"
	case "Pattern":
		tok.Kind, tok.Value = TokPattern, unescape(text[1:len(text)-1])
	case "BadPattern":
		tok.Kind, tok.Err = TokError, "unterminated pattern"
	case "Op", "Open", "Close":
		tok.Kind = opKinds[text]
	default:
		tok.Kind, tok.Err = TokError, "Illegal character"
	}
	return tok, nil
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
// parses; flag is its state before the first token (see Check's Leak).
func Tokens(src string, v pcpver.Version, flag bool) []Token {
	s := newScanner(src, v, flag)
	var (
		out     = make([]Token, 0, len(src)/3+2)
		pending []Token
		depth   int
		opens   []int
	)
	for {
		t := s.next(flag, &pending)
		t.flag = flag
		out = append(out, t)
		switch t.Kind {
		case TokEOS:
			if cap(out) > len(out)+len(out)/4 {
				// The capacity was a guess from the text's length; a
				// definition's tokens live as long as its file.
				out = slices.Clone(out)
			}
			return out
		case TokFunc:
			if t.Value == "matchinst" {
				opens = append(opens, depth)
				flag = true
			}
		case TokLParen:
			depth++
		case TokRParen:
			depth--
			if n := len(opens); n > 0 && depth == opens[n-1] {
				opens = opens[:n-1]
				flag = false
			}
		}
	}
}
