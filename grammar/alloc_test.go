package grammar

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// allocConfig is a generated config of n definitions.
func allocConfig(n int) []byte {
	g := exprgen.New(5, strings.Split("sample.long.one,sample.long.ten,sample.bin,sample.colour,sample.byte_ctr,sample.double.one,kernel.all.load", ","))
	g.BrokenShare = 0.05
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "gen.m%d = %s\n", i, g.Next())
	}
	return []byte(sb.String())
}

// TestParseAllocationBound bounds what reading a config allocates per
// definition (verdicts and findings, no trees), and what is left of it
// once read: tokens are not kept, names and expressions are substrings of
// one copy of the file. Today about 1.2 KB and 9 allocations per
// definition of 83 bytes of text; a return of per-token records (72 bytes
// a token) or per-line copies does not fit.
func TestParseAllocationBound(t *testing.T) {
	const n = 3000
	src := allocConfig(n)
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ParseConfig("a.conf", src, Options{Version: pcpver.Latest})
		}
	})
	bytesPer, allocsPer := res.AllocedBytesPerOp()/n, res.AllocsPerOp()/n
	t.Logf("read: %d bytes, %d allocations per definition (%d bytes of text)", bytesPer, allocsPer, len(src)/n)
	if bytesPer > 4<<10 || allocsPer > 24 {
		t.Errorf("reading allocates %d bytes and %d allocations per definition; the bound is 4 KiB and 24", bytesPer, allocsPer)
	}
}

// TestTreeAllocationBound bounds what building a definition's syntax
// tree allocates (participle's parse included): today about 12 KB and
// 106 allocations per definition of 83 bytes of text, where participle's
// first grammar took about 2.3 times the bytes of the grammar before
// atoms (14 KB and 141 allocations).
func TestTreeAllocationBound(t *testing.T) {
	const n = 3000
	f := ParseConfig("a.conf", allocConfig(n), Options{Version: pcpver.Latest})
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range f.Definitions.All() {
				d.DropTree()
				d.Tree()
			}
		}
	})
	bytesPer, allocsPer := res.AllocedBytesPerOp()/n, res.AllocsPerOp()/n
	t.Logf("trees: %d bytes, %d allocations per definition", bytesPer, allocsPer)
	if bytesPer > 24<<10 || allocsPer > 250 {
		t.Errorf("a tree allocates %d bytes and %d allocations per definition; the bound is 24 KiB and 250", bytesPer, allocsPer)
	}
}

// TestLexingCallsAllocatesNothingPerCall: a word glued to its "(" is
// split into two tokens, and the parenthesis waits in the scanner's slot.
// Lexing an expression allocates the same whether it calls one function
// or twelve; the queue the slot replaced allocated once per call (25 MB
// of a 100,000-definition check).
func TestLexingCallsAllocatesNothingPerCall(t *testing.T) {
	one := "rate(sample.long.one) + 1"
	twelve := strings.Repeat("rate(sample.long.one) + avg(sample.long.ten) + ", 6) + "1"
	allocs := func(expr string) float64 {
		var vs verdictScratch
		vs.verdict(expr, pcpver.Latest, false) // its buffers, grown once
		return testing.AllocsPerRun(100, func() {
			EachToken(expr, pcpver.Latest, false, func(Token) {})
			vs.verdict(expr, pcpver.Latest, false)
		})
	}
	if a, b := allocs(one), allocs(twelve); b > a {
		t.Errorf("lexing twelve calls allocates %.0f times, one call %.0f: the split parentheses allocate", b, a)
	}
	// And the parentheses still come out, after their words.
	var kinds []TokenKind
	EachToken("rate(a) + count(b)", pcpver.Latest, false, func(t Token) { kinds = append(kinds, t.Kind) })
	want := []TokenKind{TokFunc, TokLParen, TokName, TokRParen, TokPlus, TokFunc, TokLParen, TokName, TokRParen, TokEOS}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("tokens %v, want %v", kinds, want)
	}
}

// TestLongExpressionTokensOnce: a long expression's tokens are counted
// before they are kept, so their slice is made once at its size (grown by
// append, a 1 MB expression had its old and new arrays of tokens, then of
// 72 bytes, alive at once), and counting changes none of them.
func TestLongExpressionTokensOnce(t *testing.T) {
	expr := "sample.long.one" + strings.Repeat(" + (1.5 * matchinst(/a/, sample.bin))", 2000)
	if len(expr) <= countTokensAbove {
		t.Fatalf("the expression (%d bytes) is not long", len(expr))
	}
	var toks []Token
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			toks = Tokens(expr, pcpver.Latest, false)
		}
	})
	size := int64(len(toks)) * int64(unsafe.Sizeof(Token{}))
	// The race detector's instrumentation allocates beside the slice,
	// and the allocator rounds a large one up to its 8 KB pages.
	if got := res.AllocedBytesPerOp(); !raceDetector && got > size+8<<10 {
		t.Errorf("lexing %d bytes into %d bytes of tokens allocated %d bytes, want the slice once at its size", len(expr), size, got)
	}
	var want []Token
	for it := newTokenIter(expr, pcpver.Latest, false); ; {
		tok := it.next()
		want = append(want, tok)
		if tok.Kind == TokEOS {
			break
		}
	}
	if !slices.Equal(toks, want) {
		t.Errorf("the tokens of a long expression differ from those lexed one at a time")
	}
}
