package grammar

import (
	"errors"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestTokenTextValueErr: what each kind of token reads back from its
// expression, the decoded value and libpcp's lexer message included.
func TestTokenTextValueErr(t *testing.T) {
	type want struct {
		kind             TokenKind
		text, value, err string
		offset, end      int
	}
	for _, tc := range []struct {
		expr string
		want []want
	}{
		{`avg(a.b[x\]y]) + "s\"`, []want{
			{TokFunc, "avg", "avg", "", 0, 3},
			{TokLParen, "(", "(", "", 3, 4},
			{TokName, "a.b", "a.b", "", 4, 7},
			{TokInstName, `[x\]y]`, "x]y", "", 7, 13},
			{TokRParen, ")", ")", "", 13, 14},
			{TokPlus, "+", "+", "", 15, 16},
			{TokString, `"s\"`, `s\`, "", 17, 21},
			{TokEOS, "", "", "", 20, 21},
		}},
		{`matchinst(!/a\/b/, x) <= "u"`, []want{
			{TokFunc, "matchinst", "matchinst", "", 0, 9},
			{TokLParen, "(", "(", "", 9, 10},
			{TokNot, "!", "!", "", 10, 11},
			{TokPattern, `/a\/b/`, "a/b", "", 11, 17},
			{TokComma, ",", ",", "", 17, 18},
			{TokName, "x", "x", "", 19, 20},
			{TokRParen, ")", ")", "", 20, 21},
			{TokLEQ, "<=", "<=", "", 22, 24},
			{TokString, `"u"`, "u", "", 25, 28},
			{TokEOS, "", "", "", 27, 28},
		}},
		{"4294967296 1.5 units [i @", []want{
			{TokError, "4294967296", "4294967296", "Constant value too large", 0, 10},
			{TokDouble, "1.5", "1.5", "", 11, 14},
			{TokUnits, "units", "units", "", 15, 20},
			{TokError, "[i @", "[i @", "unterminated instance name", 21, 25},
			{TokEOS, "", "", "", 24, 25},
		}},
		{"a \x01 b \"c", []want{
			{TokName, "a", "a", "", 0, 1},
			{TokError, "\x01", "\x01", "Illegal character", 2, 3},
			{TokName, "b", "b", "", 4, 5},
			{TokError, `"c`, `"c`, "unterminated STRING", 6, 8},
			{TokEOS, "", "", "", 7, 8},
		}},
	} {
		toks := Tokens(tc.expr, pcpver.Latest, false)
		if len(toks) != len(tc.want) {
			t.Errorf("%q: %d tokens, want %d", tc.expr, len(toks), len(tc.want))
			continue
		}
		for i, tok := range toks {
			got := want{tok.Kind, tok.Text(tc.expr), tok.Value(tc.expr), tok.Err(), tok.Offset(), tok.End()}
			if got != tc.want[i] {
				t.Errorf("%q: token %d is %+v, want %+v", tc.expr, i, got, tc.want[i])
			}
		}
	}
}

// TestExpressionTooLong: a text whose offsets do not fit a Token (past
// 2 GiB; here past a lowered bound) lexes as an error at its start, and
// its parse fails there with that message.
func TestExpressionTooLong(t *testing.T) {
	const expr = "a.b + c.d"
	it := newTokenIter(expr, pcpver.Latest, false)
	it.s.maxLen = len(expr) - 1
	var toks []Token
	for {
		tok := it.next()
		toks = append(toks, tok)
		if tok.Kind == TokEOS {
			break
		}
	}
	if len(toks) != 2 || toks[0].Kind != TokError || toks[0].Offset() != 0 || toks[0].Err() != "expression longer than 2 GiB" {
		t.Fatalf("tokens %+v, want an error at 0 and the end", toks)
	}
	_, err := parseTokens(expr, toks)
	var syn *SyntaxError
	if !errors.As(err, &syn) || syn.Offset != 0 || syn.Msg != "expression longer than 2 GiB" {
		t.Errorf("parse: %v, want the error at offset 0", err)
	}
}

// TestLevelTokens: the room a parse's outermost level is given counts a
// parenthesised group once, so a balanced tree's is two tokens, not one
// per token of the expression; and the level's stream gives no more
// participle tokens than that where every group is one atom.
func TestLevelTokens(t *testing.T) {
	for expr, want := range map[string]int{
		"a":                         2,
		"((a + b) * (c + d))":       2,
		"a + (b * c) - rate(d + e)": 7,
		"(a)[i] + -(b)":             6,
		"sum(a) + (b":               6, // an unclosed group is its tokens
	} {
		toks := Tokens(expr, pcpver.Latest, false)
		groups := closingParens(toks)
		if groups == nil {
			groups = make([]int32, len(toks))
		}
		if got := levelTokens(toks, groups); got != want {
			t.Errorf("%q: %d tokens at the outermost level, want %d", expr, got, want)
		}
	}
	expr := "((a + b) * (c + d)) + (e[i] - f)"
	toks := Tokens(expr, pcpver.Latest, false)
	stream := &tokenStream{src: expr, toks: toks, groups: closingParens(toks), keepCall: -1}
	for {
		pt, _ := stream.Next()
		if pt.EOF() {
			break
		}
	}
	if got, room := len(stream.spans), levelTokens(toks, stream.groups); got > room {
		t.Errorf("%q: the outermost level is %d participle tokens, over its room of %d", expr, got, room)
	}
}
