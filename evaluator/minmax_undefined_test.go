package evaluator

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// minMaxUnwritten tells, sample by sample, which definitions libpcp
// evaluates from memory it never wrote: a min() or max() whose operand has
// no values (no values, not an error) at a fetch.
//
// In every release we compare with (5.2.6 to 7.2.2: eval_expr's
// N_MIN/N_MAX case in libpcp's derive_fetch.c is the same in 5.2.5, 6.0.3,
// 6.3.8, 7.2.0 and later, and each release's python3-pcp shows it), libpcp's
// min() and max() always return one value, from a one-value buffer it
// mallocs the first time the node is evaluated and writes only while
// looping over the operand's values. With none, the value is whatever
// that buffer holds: the last minimum or maximum computed in this
// context if there was one (defined, and what we print too), otherwise
// malloc's leftovers, which differ from run to run (0 from fresh memory,
// or a heap pointer's bits from a reused chunk). From 6.3.0 the operand
// of delta() and rate() may be an expression, and a min() or max() there
// keeps its history the other way: each fetch moves its buffer to "last"
// and mallocs a fresh one, so no values gives leftovers at every such
// fetch, and delta() or rate() at the next fetch subtracts them.
//
// It follows our evaluator's Observer, which reports the nodes a sample
// evaluates as libpcp evaluates them (children before parents): a min()
// or max() libpcp does not reach (a failed left operand, a guard's other
// branch) writes nothing there either.
type minMaxUnwritten struct {
	written  map[nodeOf]bool // min()/max() whose buffer holds a value
	operand  map[nodeOf]int  // values of each node at its last evaluation
	saveLast map[nodeOf]bool // min()/max() that is delta()'s or rate()'s operand
	seen     map[*checker.Metric]bool
	now      map[string]bool // definitions unwritten at this sample
	next     map[string]bool // and at the next (delta/rate of leftovers)
}

type nodeOf struct {
	m *checker.Metric
	n grammar.Node
}

func newMinMaxUnwritten() *minMaxUnwritten {
	return &minMaxUnwritten{written: map[nodeOf]bool{}, operand: map[nodeOf]int{}, saveLast: map[nodeOf]bool{},
		seen: map[*checker.Metric]bool{}, now: map[string]bool{}, next: map[string]bool{}}
}

// endSample ends a sample: it returns the
// definitions found unwritten at it, and starts the next.
func (u *minMaxUnwritten) endSample() map[string]bool {
	done := u.now
	u.now, u.next = u.next, map[string]bool{}
	return done
}

// unwrittenSamples maps a sample's T line (as canonical prints it) to the
// definitions libpcp evaluates from a buffer it never wrote there.
type unwrittenSamples map[string]map[string]bool

// skip: the line is a definition's value that libpcp leaves undefined at
// the sample whose T line is at.
func (s unwrittenSamples) skip(at, line string) bool {
	return s[at][strings.SplitN(line, " ", 2)[0]]
}

// sampleAll takes n samples (n < 0: until the source ends) and returns
// them printed as canonical does, their count, and which definitions
// libpcp leaves undefined at each (minMaxUnwritten).
func sampleAll(ctx context.Context, t *testing.T, ev *Evaluator, n int) (string, int, unwrittenSamples) {
	t.Helper()
	u := newMinMaxUnwritten()
	ev.Observe(u.observe)
	defer ev.Observe(nil)
	undefined := unwrittenSamples{}
	var out strings.Builder
	samples := 0
	for ; n < 0 || samples < n; samples++ {
		s, err := ev.Sample(ctx)
		if n < 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c := canonical(s)
		undefined[c[:strings.IndexByte(c, '\n')]] = u.endSample()
		out.WriteString(c)
	}
	return out.String(), samples, undefined
}

// observe is the evaluator's Observer.
func (u *minMaxUnwritten) observe(m *checker.Metric, n grammar.Node, vals []Value, err error) {
	if !u.seen[m] {
		u.seen[m] = true
		tree, _ := m.Def.Tree()
		grammar.Walk(tree, func(n grammar.Node) bool {
			if c, ok := n.(*grammar.Call); ok && (c.Func == "delta" || c.Func == "rate") {
				if a, ok := grammar.Unwrap(c.Arg).(*grammar.Call); ok && (a.Func == "min" || a.Func == "max") {
					u.saveLast[nodeOf{m, a}] = true
				}
			}
			return true
		})
	}
	key := nodeOf{m, n}
	u.operand[key] = len(vals)
	c, ok := n.(*grammar.Call)
	if !ok || c.Func != "min" && c.Func != "max" || err != nil {
		return // an operand's error is min()'s and max()'s error: nothing read
	}
	switch {
	case u.operand[nodeOf{m, c.Arg}] > 0:
		u.written[key] = !u.saveLast[key]
	case u.saveLast[key]:
		u.now[m.Def.Name] = true
		u.next[m.Def.Name] = true
	case !u.written[key]:
		u.now[m.Def.Name] = true
	}
}
