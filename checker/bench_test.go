package checker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// BenchmarkCheckWarm is the language server's per-keystroke work for a
// 1,000-definition file: parse the whole file and check every definition
// against metadata already in memory (a warm cache: no round trips).
func BenchmarkCheckWarm(b *testing.B) {
	src := pmclient.NewCache(liveMetadata(b))
	g := exprgen.New(7, genMetrics)
	g.BrokenShare = 0
	var config strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&config, "bench.m%d = %s\n", i, g.Next())
	}
	text := []byte(config.String())
	ctx := context.Background()
	opts := Options{Version: pcpver.V6_0_3}
	// Warm the cache once, as the server has by the second keystroke.
	if _, err := Check(ctx, []*grammar.File{grammar.ParseConfig("b.conf", text, grammar.Options{Version: pcpver.V6_0_3})}, src, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := grammar.ParseConfig("b.conf", text, grammar.Options{Version: pcpver.V6_0_3})
		if _, err := Check(ctx, []*grammar.File{f}, src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckWarmByRelease is BenchmarkCheckWarm for each proved
// release: version-dependent rules cost the same whatever the target.
func BenchmarkCheckWarmByRelease(b *testing.B) {
	src := pmclient.NewCache(liveMetadata(b))
	g := exprgen.New(7, genMetrics)
	g.BrokenShare = 0
	var config strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&config, "bench.m%d = %s\n", i, g.Next())
	}
	text := []byte(config.String())
	ctx := context.Background()
	for _, v := range pcpver.Proved() {
		b.Run(v.String(), func(b *testing.B) {
			opts := Options{Version: v}
			if _, err := Check(ctx, []*grammar.File{grammar.ParseConfig("b.conf", text, grammar.Options{Version: v})}, src, opts); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				f := grammar.ParseConfig("b.conf", text, grammar.Options{Version: v})
				if _, err := Check(ctx, []*grammar.File{f}, src, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
