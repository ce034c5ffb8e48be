package grammar

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestPrefetchedVerdicts: the verdicts computed while the reader reads
// (by the workers, or by the reader for a chunk no worker has taken, or
// while it waits for one) are each line's own verdict, whether the reader
// reads in order, starts at the end, or jumps back.
func TestPrefetchedVerdicts(t *testing.T) {
	g := exprgen.New(7, []string{"sample.long.one", "kernel.all.load", "hinv.ncpu"})
	var b strings.Builder
	type line struct {
		start int
		expr  string
	}
	var lines []line
	for i := range 10*prefetchChunk + 17 {
		if i%10 == 3 {
			b.WriteString("# a comment = not a definition\n")
		}
		expr := g.Next()
		if strings.ContainsRune(expr, '\n') {
			continue
		}
		head := fmt.Sprintf("gen.m%d = ", i)
		lines = append(lines, line{b.Len(), expr})
		b.WriteString(head + expr + "\n")
		lines[len(lines)-1].start = b.Len() - len(head) - len(expr) - 1
	}
	text := b.String()
	for _, order := range []string{"in order", "last first", "backwards"} {
		p := prefetchVerdicts(text, pcpver.V6_0_3)
		idx := make([]int, len(lines))
		for i := range idx {
			idx[i] = i
		}
		switch order {
		case "last first":
			idx = append([]int{len(lines) - 1}, idx...)
		case "backwards":
			for i := range idx {
				idx[i] = len(lines) - 1 - i
			}
		}
		var vs verdictScratch
		for _, i := range idx {
			start := strings.LastIndexByte(text[:lines[i].start], '\n') + 1
			got, listed, ok := p.verdict(start, lines[i].expr, false, &vs)
			if !ok {
				t.Fatalf("%s: line %d (%q) not prefetched", order, i, lines[i].expr)
			}
			want := LibpcpVerdict(lines[i].expr, pcpver.V6_0_3, false)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: line %d (%q): prefetched %+v, alone %+v", order, i, lines[i].expr, got, want)
			}
			if listed != want.OK && !strings.Contains(lines[i].expr, "/") {
				t.Errorf("%s: line %d (%q): listed %v with verdict OK %v", order, i, lines[i].expr, listed, want.OK)
			}
			if listed {
				// Every word the lexer gives is among its chunk's.
				chunk := map[string]bool{}
				for _, w := range p.words[(p.next-1)/prefetchChunk] { // the line's chunk: p.next is past it
					chunk[w] = true
				}
				EachToken(lines[i].expr, pcpver.V6_0_3, false, func(tok Token) {
					if w := tok.Value(lines[i].expr); (tok.Kind == TokName || tok.Kind == TokString) && !chunk[w] {
						t.Fatalf("%s: line %d (%q): word %q is not among its chunk's", order, i, lines[i].expr, w)
					}
				})
			}
		}
	}
}
