package grammar

import (
	"runtime"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// prefetched holds the verdicts of a file's one-line definitions, computed
// on all CPUs while the file is read (the reader itself is sequential:
// each line depends on the lines before it), a chunk of lines at a time
// in file order, so the reader waits only when it catches up with them.
// It is a slice in file order, not a map, so that it costs one small
// record per line and is gone once the file is read.
type prefetched struct {
	lines   []prefetchedLine
	version pcpver.Version
	// claimed[k] says chunk k (prefetchChunk lines from k*prefetchChunk)
	// is being computed, by a worker or by the reader, which computes
	// the chunk it needs itself when no worker has taken it yet; and
	// computed[k] is closed once its verdicts are in lines.
	claimed  []atomic.Bool
	computed []chan struct{}
	queue    atomic.Int64 // the next chunk for a worker to take
	next     int          // the reader's cursor: lines are asked for in file order
	// words[k] are the names and strings of chunk k's expressions,
	// without repeats, in order (File.ExprWords), set before computed[k]
	// is closed.
	words [][]string
}

// prefetchChunk is how many lines' verdicts a worker computes at a time.
const prefetchChunk = 256

type prefetchedLine struct {
	start   int    // file offset of the line
	expr    string // the text after the first "=", leading blanks skipped
	verdict Verdict
	// listed: the words of expr are all in its chunk's words.
	listed bool
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
	p := &prefetched{lines: make([]prefetchedLine, 0, n), version: v}
	definitionLines(text, func(start int, expr string) {
		p.lines = append(p.lines, prefetchedLine{start: start, expr: expr})
	})
	chunks := (len(p.lines) + prefetchChunk - 1) / prefetchChunk
	p.claimed = make([]atomic.Bool, chunks)
	p.computed = make([]chan struct{}, chunks)
	p.words = make([][]string, chunks)
	for k := range p.computed {
		p.computed[k] = make(chan struct{})
	}
	// Workers take the chunks in file order, so the one the reader
	// needs next is done or under way (or the reader's own, when it has
	// caught up); a CPU is left for the reader. Each ends when the
	// chunks are all taken, whether or not the reader reads on: bounded
	// work.
	for range min(max(1, runtime.NumCPU()-1), chunks) {
		go func() {
			var vs verdictScratch
			for p.computeNext(&vs) {
			}
		}()
	}
	return p
}

// computeNext computes the next chunk in the queue not yet claimed; false
// when none is left.
func (p *prefetched) computeNext(vs *verdictScratch) bool {
	k := int(p.queue.Add(1)) - 1
	if k >= len(p.computed) {
		return false
	}
	p.compute(k, vs)
	return true
}

// compute computes the verdicts of chunk k, unless it is claimed already.
func (p *prefetched) compute(k int, vs *verdictScratch) {
	if !p.claimed[k].CompareAndSwap(false, true) {
		return
	}
	// The verdicts' parses lex every expression: the words a check looks
	// up are listed on the way, so that it need not lex them all again
	// (a seventh of the CPU of a 100,000-definition check).
	var words []string
	if vs.seen == nil {
		vs.seen = map[string]struct{}{}
	}
	clear(vs.seen)
	for i := k * prefetchChunk; i < min((k+1)*prefetchChunk, len(p.lines)); i++ {
		l := &p.lines[i]
		l.verdict, l.listed = vs.verdictWords(l.expr, p.version)
		if !l.listed {
			continue
		}
		for _, w := range vs.words {
			if _, dup := vs.seen[w]; !dup {
				vs.seen[w] = struct{}{}
				words = append(words, w)
			}
		}
	}
	p.words[k] = words
	close(p.computed[k])
}

// allWords are the words of every chunk, in file order (each chunk's
// without repeats; across chunks, they repeat), once all are computed:
// the workers compute every chunk the reader did not, so the wait is
// short and bounded. Lines that are not a listed definition (a duplicate,
// one read with libpcp's flag up) add words looked up for nothing, the
// same ones on every run.
func (p *prefetched) allWords() []string {
	n := 0
	for k := range p.computed {
		<-p.computed[k]
		n += len(p.words[k])
	}
	out := make([]string, 0, n)
	for k := range p.computed {
		out = append(out, p.words[k]...)
	}
	return out
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
// starting at start, read with the matchinst flag leak, computing its
// chunk with vs if no worker has yet.
//
// listed says the expression's words are among its chunk's.
func (p *prefetched) verdict(start int, expr string, leak bool, vs *verdictScratch) (v Verdict, listed, ok bool) {
	if p == nil || leak {
		return Verdict{}, false, false
	}
	if p.next >= len(p.lines) || p.lines[p.next].start != start {
		// Lines are read in order; a jump (an attribute's value ran over
		// lines) finds its place again.
		p.next = sort.Search(len(p.lines), func(i int) bool { return p.lines[i].start >= start })
	}
	if p.next < len(p.lines) && p.lines[p.next].start == start && p.lines[p.next].expr == expr {
		k := p.next / prefetchChunk
		p.compute(k, vs)
	wait:
		for {
			select {
			case <-p.computed[k]:
				break wait
			default: // a worker has it under way: take a later one
				if !p.computeNext(vs) {
					<-p.computed[k]
					break wait
				}
			}
		}
		l := p.lines[p.next]
		p.next++
		return l.verdict, l.listed, true
	}
	return Verdict{}, false, false
}
