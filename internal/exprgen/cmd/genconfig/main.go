// Command genconfig writes a derived-metric config of generated
// definitions, for benchmarks and for differential runs by hand.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

func main() {
	n := flag.Int("n", 10000, "number of definitions")
	seed := flag.Uint64("seed", 1, "random seed")
	broken := flag.Float64("broken", 0, "share of deliberately broken expressions")
	valid := flag.Bool("valid", false, "keep only expressions libpcp 6 accepts")
	metrics := flag.String("metrics", "sample.long.one,sample.long.ten,sample.bin,sample.colour,sample.byte_ctr,sample.double.one,kernel.all.load", "comma-separated metric names")
	flag.Parse()
	g := exprgen.New(*seed, strings.Split(*metrics, ","))
	g.BrokenShare = *broken
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for i := 0; i < *n; {
		e := g.Next()
		if *valid && !grammar.LibpcpVerdict(e, pcpver.V6_0_3, false).OK {
			continue
		}
		fmt.Fprintf(w, "gen.m%d = %s\n", i, e)
		i++
	}
}
