package grammar

import (
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// prefetched holds the verdicts of a file's one-line definitions, computed
// on all CPUs before the file is read (the reader itself is sequential:
// each line depends on the lines before it). It is a slice in file order,
// not a map, so that it costs one small record per line and is gone once
// the file is read.
type prefetched struct {
	lines []prefetchedLine
	next  int // the reader's cursor: lines are asked for in file order
}

type prefetchedLine struct {
	start   int    // file offset of the line
	expr    string // the text after the first "=", leading blanks skipped
	verdict Verdict
}

// prefetchVerdicts computes, for every line of text with an "=" (comments
// and attribute lines aside), the verdict of the text after the "=" as
// the one-line definition libpcp would see with its matchinst flag down,
// the usual case. The reader uses a verdict only for the same line, the
// same expression text and the flag down; anything else it computes
// itself.
func prefetchVerdicts(text string, v pcpver.Version) *prefetched {
	// Counted first, then listed into a list of that size: grown by
	// append, the list of a million definitions was copied twenty times.
	n := 0
	definitionLines(text, func(int, string) { n++ })
	p := &prefetched{lines: make([]prefetchedLine, 0, n)}
	definitionLines(text, func(start int, expr string) {
		p.lines = append(p.lines, prefetchedLine{start: start, expr: expr})
	})
	workers := min(runtime.NumCPU(), len(p.lines)/256+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var vs verdictScratch
			for i := w; i < len(p.lines); i += workers {
				p.lines[i].verdict = vs.verdict(p.lines[i].expr, v, false)
			}
		}()
	}
	wg.Wait()
	return p
}

// definitionLines calls each with the start and the expression of each
// line of text that reads as a one-line definition.
func definitionLines(text string, each func(start int, expr string)) {
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		if eq := strings.IndexByte(line, '='); eq >= 0 && !strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") &&
			strings.IndexByte(line[:eq], '(') < 0 {
			if expr := strings.TrimLeft(line[eq+1:], " \t"); expr != "" {
				each(start, expr)
			}
		}
		start = end + 1
	}
}

// verdict returns the prefetched verdict of the expression of the line
// starting at start, read with the matchinst flag leak.
func (p *prefetched) verdict(start int, expr string, leak bool) (Verdict, bool) {
	if p == nil || leak {
		return Verdict{}, false
	}
	if p.next >= len(p.lines) || p.lines[p.next].start != start {
		// Lines are read in order; a jump (an attribute's value ran over
		// lines) finds its place again.
		p.next = sort.Search(len(p.lines), func(i int) bool { return p.lines[i].start >= start })
	}
	if p.next < len(p.lines) && p.lines[p.next].start == start && p.lines[p.next].expr == expr {
		l := p.lines[p.next]
		p.next++
		return l.verdict, true
	}
	return Verdict{}, false
}
