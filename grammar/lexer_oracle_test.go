package grammar

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// The regular-expression rules of participle's stateful lexer that the
// hand-written scanner replaced, kept as the oracle it is proved against.
// Byte 0xFF, libpcp's end of the string (lexer.go's ff), is \x{FFFD} to a
// regular expression (as any byte that is not UTF-8, or a real U+FFFD,
// which the text here never has): a rule of its own where a token
// starts, the end of a string, instance name or pattern, and the byte a
// word, number or operator consumes after itself (oracleTokens trims
// it from the token).
var (
	oracleRootRules = []lexer.Rule{
		{Name: "whitespace", Pattern: `[ \t\n\v\f\r]+`},
		{Name: "FF", Pattern: `\x{FFFD}`},
		{Name: "MatchinstCall", Pattern: `matchinst\(`, Action: lexer.Push("Matchinst")},
		{Name: "Word", Pattern: `[A-Za-z][A-Za-z0-9_.]*(?:\(|\x{FFFD})?`},
		{Name: "Op", Pattern: `<=|>=|==|!=|&&|\|\||[-+*/()?:,]|[<>=!]\x{FFFD}?`},
		{Name: "Number", Pattern: `(?:[0-9]*\.[0-9]*|[0-9]+)\x{FFFD}?`},
		{Name: "String", Pattern: `"[^"\x{FFFD}]*"`},
		{Name: "BadString", Pattern: `"[^"\x{FFFD}]*\x{FFFD}?`},
		{Name: "InstName", Pattern: `\[(?:\\[^\x{FFFD}]|[^\]\\\x{FFFD}])*\]`},
		{Name: "BadInstName", Pattern: `\[(?:\\[^\x{FFFD}]|[^\]\\\x{FFFD}])*\\?\x{FFFD}?`},
		{Name: "Illegal", Pattern: `[&|]\x{FFFD}|[\s\S]`},
	}
	oraclePatternRules = []lexer.Rule{
		{Name: "Pattern", Pattern: `/(?:\\[^\x{FFFD}]|[^/\\\x{FFFD}])*/`},
		{Name: "BadPattern", Pattern: `/(?:\\[^\x{FFFD}]|[^/\\\x{FFFD}])*\\?\x{FFFD}?`},
	}
	oracleMatchinstRules = append(append([]lexer.Rule{}, oraclePatternRules...),
		lexer.Rule{Name: "MatchinstCall", Pattern: `matchinst\(`, Action: lexer.Push("Matchinst")},
		lexer.Rule{Name: "WordCall", Pattern: `[A-Za-z][A-Za-z0-9_.]*\(`, Action: lexer.Push("Matchinst")},
		lexer.Rule{Name: "Open", Pattern: `\(`, Action: lexer.Push("Matchinst")},
		lexer.Rule{Name: "Close", Pattern: `\)`, Action: lexer.Pop()},
		lexer.Include("Root"),
	)
	oraclePlain = lexer.MustStateful(lexer.Rules{"Root": oracleRootRules, "Matchinst": oracleMatchinstRules})
	oracleLeak  = lexer.MustStateful(lexer.Rules{
		"Root":      append(append([]lexer.Rule{}, oraclePatternRules...), oracleRootRules...),
		"Matchinst": oracleMatchinstRules,
	})
)

var oracleKinds = map[string]lexeme{
	"MatchinstCall": lxWord, "Word": lxWord, "WordCall": lxWord, "Op": lxOp, "Open": lxOp, "Close": lxOp,
	"Number": lxNumber, "String": lxString, "BadString": lxBadString, "InstName": lxInstName,
	"BadInstName": lxBadInstName, "Pattern": lxPattern, "BadPattern": lxBadPattern, "Illegal": lxIllegal,
}

// oracleTokens is Tokens as it was, over participle's regular expressions.
func oracleTokens(t *testing.T, src string, v pcpver.Version, flag bool) []Token {
	names := func(def *lexer.StatefulDefinition) map[lexer.TokenType]string {
		m := map[lexer.TokenType]string{}
		for n, tt := range def.Symbols() {
			m[tt] = n
		}
		return m
	}
	var lx lexer.Lexer
	var sym map[lexer.TokenType]string
	base := 0
	restart := func(off int, flag bool) {
		def := oraclePlain
		if flag {
			def = oracleLeak
		}
		var err error
		if lx, err = def.LexString("", src[off:]); err != nil {
			t.Fatal(err)
		}
		sym, base = names(def), off
	}
	restart(0, flag)
	var out, pending []Token
	depth, opens := 0, []int(nil)
	for {
		var tok Token
		if len(pending) > 0 {
			tok, pending = pending[0], pending[1:]
		} else {
			for {
				pt, err := lx.Next()
				if err != nil || pt.EOF() {
					tok = Token{Kind: TokEOS, off: int32(max(len(src)-1, 0)), end: int32(len(src))}
					break
				}
				off := base + pt.Pos.Offset
				rule := sym[pt.Type]
				isPattern := rule == "Pattern" || rule == "BadPattern"
				if isPattern != flag && (isPattern || pt.Value == "/") {
					restart(off, flag)
					continue
				}
				if rule == "FF" {
					tok = Token{Kind: TokEOS, off: int32(off), end: int32(off + 1)}
					break
				}
				value := pt.Value
				switch rule {
				case "Word", "Op", "Number", "Illegal":
					if len(value) > 1 && value[len(value)-1] == 0xff {
						value = value[:len(value)-1] // consumed, not part of the token
					}
				}
				var split Token
				var glued bool
				tok, split, glued = classify(oracleKinds[rule], value, off, v)
				if glued {
					pending = append(pending, split)
				}
				break
			}
		}
		tok.flag = flag
		out = append(out, tok)
		switch tok.Kind {
		case TokEOS:
			return out
		case TokFunc:
			if tok.Text(src) == "matchinst" {
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

// TestScannerMatchesRegexpLexer: the hand-written scanner lexes every
// expression as participle's regular-expression lexer did, token for
// token, in both flag states, on generated, seed and random text.
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestScannerMatchesRegexpLexer(t *testing.T) {
	var exprs []string
	g := exprgen.New(3, strings.Split("sample.long.one,sample.bin,kernel.all.load,sample.colour", ","))
	g.BrokenShare = 0.3
	for range 3000 {
		exprs = append(exprs, g.Next())
	}
	exprs = append(exprs, loadStarterSeeds()...)
	paths, _ := filepath.Glob("testdata/config/*.conf")
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		for _, line := range strings.Split(string(b), "\n") {
			if _, e, ok := strings.Cut(line, "="); ok {
				exprs = append(exprs, e)
			}
		}
	}
	// Random text over the characters that matter to the rules.
	alphabet := []string{"a", "Z", "_", ".", "0", "9", "(", ")", "[", "]", "/", "\\", "\"", "<", ">", "=", "!", "&", "|",
		"-", "+", "*", "?", ":", ",", " ", "\t", "\n", "é", "\xff", "matchinst(", "avg(", "x.y", "1.5", "'", "#", "@"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(24) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		exprs = append(exprs, sb.String())
	}
	for _, e := range testsize.Sample(t, exprs) {
		for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
			for _, flag := range []bool{false, true} {
				got, want := Tokens(e, v, flag), oracleTokens(t, e, v, flag)
				if len(got) != len(want) {
					t.Fatalf("%q (flag %v): %d tokens, want %d:\n got %+v\nwant %+v", e, flag, len(got), len(want), got, want)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%q (flag %v): token %d is %+v, want %+v", e, flag, i, got[i], want[i])
					}
				}
			}
		}
	}
}
