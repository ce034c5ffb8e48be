package grammar

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// benchConfig is the config bench/parse.sh also gives libpcp: set
// PCP_DERIVE_LSP_BENCH_CONFIG to use that file, else one is generated.
func benchConfig(b *testing.B) []byte {
	if path := os.Getenv("PCP_DERIVE_LSP_BENCH_CONFIG"); path != "" {
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return src
	}
	g := exprgen.New(1, strings.Split("sample.long.one,sample.long.ten,sample.bin,sample.colour,sample.byte_ctr,sample.double.one,kernel.all.load", ","))
	g.BrokenShare = 0
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "gen.m%d = %s\n", i, g.Next())
	}
	return []byte(sb.String())
}

// BenchmarkParseConfig10k parses and syntax-checks a 10,000-definition
// config: the work libpcp's pmLoadDerivedConfig does for the same file.
func BenchmarkParseConfig10k(b *testing.B) {
	src := benchConfig(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ParseConfig("bench.conf", src, Options{Version: pcpver.V6_0_3})
	}
}

// BenchmarkLibpcpVerdict10k is the libpcp-exact verdict alone.
func BenchmarkLibpcpVerdict10k(b *testing.B) {
	f := ParseConfig("bench.conf", benchConfig(b), Options{Version: pcpver.V6_0_3})
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range f.Definitions.All() {
			LibpcpVerdict(d.Expr, pcpver.V6_0_3, false)
		}
	}
}

func benchExprs(b *testing.B) []string {
	f := ParseConfig("bench.conf", benchConfig(b), Options{Version: pcpver.V6_0_3})
	exprs := make([]string, f.Definitions.Len())
	for i, d := range f.Definitions.All() {
		exprs[i] = d.Expr
	}
	return exprs
}

// BenchmarkTokens10k is participle's stateful lexer plus our token
// classification.
func BenchmarkTokens10k(b *testing.B) {
	exprs := benchExprs(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range exprs {
			Tokens(e, pcpver.V6_0_3, false)
		}
	}
}

// BenchmarkSyntaxTree10k is the participle parse from tokens.
func BenchmarkSyntaxTree10k(b *testing.B) {
	exprs := benchExprs(b)
	toks := make([][]Token, len(exprs))
	for i, e := range exprs {
		toks[i] = Tokens(e, pcpver.V6_0_3, false)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, t := range toks {
			parseTokens(exprs[i], t)
		}
	}
}

// BenchmarkParseConfigWithTrees10k adds every definition's syntax tree,
// which the checker and the language server ask for.
func BenchmarkParseConfigWithTrees10k(b *testing.B) {
	src := benchConfig(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		f := ParseConfig("bench.conf", src, Options{Version: pcpver.V6_0_3})
		for _, d := range f.Definitions.All() {
			d.Tree()
		}
	}
}

// BenchmarkParseConfigByRelease parses the same config for each proved
// release: the version checks are comparisons made while lexing and
// reducing, so the cost should not depend on the release (bench/versions.sh
// prints the ratios).
func BenchmarkParseConfigByRelease(b *testing.B) {
	src := benchConfig(b)
	for _, v := range pcpver.Proved() {
		b.Run(v.String(), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				ParseConfig("bench.conf", src, Options{Version: v})
			}
		})
	}
}

// BenchmarkSharedTrees10k is the trees of a check (TreeCache, through
// one Shapes, as check --host builds them), lexing included.
func BenchmarkSharedTrees10k(b *testing.B) {
	f := ParseConfig("bench.conf", benchConfig(b), Options{Version: pcpver.V6_0_3})
	defs := f.Definitions.All()
	b.ReportAllocs()
	for b.Loop() {
		trees := NewTreeCache()
		for _, d := range defs {
			trees.Tree(d)
			d.DropTree()
		}
	}
}
