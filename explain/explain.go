// Package explain answers "why does this derived metric show no values?":
// it evaluates one definition as libpcp would and keeps the values of every
// subexpression, with the metadata inferred for it, a phrase in plain words
// for what it computes, and, where values vanish, the reason naming what is
// missing (an operand without values, a matchinst pattern matching nothing,
// operands sharing no instance, a counter with one sample, a guard that
// chose novalue()). Nodes above the one where values vanish point at it.
//
// The whole tree is evaluated by the evaluator in one pass per sample, so
// every leaf is fetched together (one fetch per sample, two samples when
// delta() or rate() need history); the per-node values are what the
// evaluator observed on the way, not separate evaluations.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Explanation is the whole tree of one definition, evaluated once.
type Explanation struct {
	// Name is the derived metric's name ("" for an expression given
	// alone); Expr its expression as libpcp parses it (node spans are
	// offsets into it).
	Name, Expr string
	// Source names where values came from; Version is the PCP release
	// whose rules were followed.
	Source  string
	Version pcpver.Version
	// Timestamp is the sample explained; Samples how many samples were
	// evaluated to reach it (2 when delta() or rate() needed a previous
	// one); Fetches how many fetches were made.
	Timestamp time.Time
	Samples   int
	Fetches   int
	// History reports a tree that needs a previous sample (delta, rate).
	History bool
	// Recorded reports values from an archive; Interval is the time
	// between the two live samples history took.
	Recorded bool
	Interval time.Duration
	Root     *Node
	// Origins are the nodes where values vanish, in evaluation order.
	Origins []*Node
}

// Options tune an explanation.
type Options struct {
	// Interval is the time between the two live samples delta() and
	// rate() need (default one second).
	Interval time.Duration
	// Start: from an archive, the record explained is the first at or
	// after Start (zero: the first record). Earlier records are evaluated
	// too, so delta() and rate() have the record before it as history.
	Start time.Time
	// SampleTimeout bounds each sample (default 30 s): a pmcd that stops
	// answering gives an error, never a hang.
	SampleTimeout time.Duration
}

// Target is one checked definition to explain, with the report it was
// checked in (its other definitions are visible to it).
type Target struct {
	Report *checker.Report
	Metric *checker.Metric
	// Name overrides the reported name ("" keeps the definition's; an
	// expression given alone has a made-up one).
	Name *string
	// Replayed says the sample explained was picked from a window of an
	// archive's records (the web page's slider), not by Explain, which
	// moves past an archive's first record when the tree needs history:
	// a first record without history then has records after it.
	Replayed bool
}

// ErrNoValues reports a source that has metadata but no values.
var ErrNoValues = errors.New("the source has metadata only, no values: explain needs a pmcd or an archive")

// Explain evaluates the target's definition against the source and
// returns every node's values and the reasons values vanish. The tree is
// built and analysed without recursion, so a 10,000-node expression costs
// memory in proportion to it.
func Explain(ctx context.Context, src pmclient.Source, t Target, opts Options) (*Explanation, error) {
	m := t.Metric
	tree, err := m.Def.Tree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Def.Name, err)
	}
	// What the explanation keeps of the check's node metadata is taken
	// before sampling, as the check infers each node again: no map of
	// every node, neither kept with the report nor beside the sample.
	md := inferMetadata(tree, t.Report, m)
	rec := NewRecorder(func(om *checker.Metric) bool { return om == m })
	if m.Status == checker.Valid && !m.Broken {
		if err := sample(ctx, src, t, rec, opts); err != nil {
			return nil, err
		}
	}
	return rec.explain(ctx, src, t, md, true)
}

// Recorder keeps what an evaluator observed of chosen metrics in its
// latest sample and the one before, so an explanation can be built
// without fetching again (the editor's preview cycle samples every open
// definition once and explains any of them from it). Call Begin before
// each Sample of the evaluator the Observer is given to, and End after a
// sample that succeeded: only ended samples are explained, so Explain may
// run while the next sample is being taken.
type Recorder struct {
	keep func(*checker.Metric) bool

	mu      sync.Mutex
	records map[*checker.Metric]*record
	gen     int       // the sample begun last
	done    int       // the sample ended last
	samples int       // the samples ended
	stamp   time.Time // the latest's time
	// interval is the time between explain's own live samples (for the
	// header); fetches counts its fetches.
	interval time.Duration
	fetches  int
}

// record is one metric's observations: those of the last ended sample
// (cur, of sample curGen), the one before it when that was the sample
// just before (prev), and those of the sample under way (pending).
type record struct {
	curGen, pendingGen int
	cur, prev, pending observations
}

// NewRecorder records the metrics keep accepts (nil: every metric).
func NewRecorder(keep func(*checker.Metric) bool) *Recorder {
	return &Recorder{keep: keep, records: map[*checker.Metric]*record{}}
}

// Begin starts a sample: what is observed next belongs to it.
func (r *Recorder) Begin() {
	r.mu.Lock()
	r.gen++
	r.mu.Unlock()
}

// End ends the sample begun last, taken at s.Timestamp: its observations
// become the latest.
func (r *Recorder) End(s *evaluator.Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rc := range r.records {
		if rc.pendingGen != r.gen {
			continue
		}
		rc.prev = nil
		if rc.curGen == r.gen-1 {
			rc.prev = rc.cur
		}
		rc.cur, rc.curGen, rc.pending = rc.pending, r.gen, nil
	}
	r.done, r.stamp = r.gen, s.Timestamp
	r.samples++
}

// Observer is the function to give the evaluator (Evaluator.Observe).
func (r *Recorder) Observer() evaluator.Observer {
	return func(m *checker.Metric, n grammar.Node, vals []evaluator.Value, err error) {
		if r.keep != nil && !r.keep(m) {
			return
		}
		if _, paren := n.(*grammar.Paren); paren {
			// Its values are its inside's, and the tree has no node for
			// it: a third of a parenthesised tree's observations.
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		rc := r.records[m]
		if rc == nil {
			rc = &record{}
			r.records[m] = rc
		}
		if rc.pendingGen != r.gen {
			rc.pending, rc.pendingGen = nil, r.gen
		}
		rc.pending = rc.pending.add(observed{n, newObservation(vals, err)})
	}
}

// latest returns a metric's observations in the last ended sample and the
// one before, and the recorder's counters, consistently.
func (r *Recorder) latest(m *checker.Metric) (cur, prev observations, samples int, stamp time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.records[m]; rc != nil && rc.curGen == r.done && r.done > 0 {
		cur, prev = rc.cur, rc.prev
	}
	return cur, prev, r.samples, r.stamp
}

// Explain builds the explanation of a target from the latest sample
// recorded (no values when it was not sampled). Instance names are asked
// of the source, one request per instance domain.
func (r *Recorder) Explain(ctx context.Context, src pmclient.Source, t Target) (*Explanation, error) {
	tree, err := t.Metric.Def.Tree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Metric.Def.Name, err)
	}
	return r.explain(ctx, src, t, newMetadata(tree, t.Report.NodesOf(t.Metric)), false)
}

// explain is Explain with the metadata of the target's nodes; consume lets
// go of each observation of the latest sample once its node has it
// (Explain's own recorder, used once), so that the evaluator's values and
// the explanation's are not all alive at once.
func (r *Recorder) explain(ctx context.Context, src pmclient.Source, t Target, md metadata, consume bool) (*Explanation, error) {
	m := t.Metric
	def := m.Def
	syntax, err := def.Tree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", def.Name, err)
	}
	cur, prev, samples, stamp := r.latest(m)
	x := &Explanation{Name: def.Name, Expr: def.Expr, Source: src.Describe(), Version: t.Report.Version, Timestamp: stamp, Samples: samples, Fetches: r.fetches, Recorded: recording(src), Interval: r.interval}
	if t.Name != nil {
		x.Name = *t.Name
	}
	x.History = needsHistoryTree(m)
	tr := &tree{expr: def.Expr, phrasing: phrasing{rep: t.Report, nodes: md.special}}
	if m.Status != checker.Valid || m.Broken {
		x.Root = build(syntax, md, tr, 0, nil)
		analyseUnusable(x, m, src)
		return x, nil
	}
	// Each node takes its values as it is made: the evaluator's go while
	// the explanation's nodes come, not after they are all alive.
	mg := &merge{o: cur, consume: consume, set: (*Node).setObservation}
	x.Root = build(syntax, md, tr, cur.values(), mg.visit)
	mg.finish(x.Root)
	names := &instanceNames{ctx: ctx, src: src, lists: map[pmapi.InDom]map[int32]string{}}
	postOrder(x.Root, func(n *Node) {
		if d := n.Desc(); d != nil && d.InDom != pmapi.InDomNull && n.hasInstances() {
			names.list(d.InDom)
		}
	})
	tr.names = names.lists
	a := &diagnosis{ctx: ctx, x: x, m: m, phrasing: tr.phrasing, src: src, prev: prev, names: names, samples: samples, replayed: t.Replayed}
	a.run()
	return x, nil
}

// sample runs the evaluator over as many samples as the tree needs: one,
// or two an interval apart for delta() and rate(); from an archive, every
// record up to the one explained.
func sample(ctx context.Context, src pmclient.Source, t Target, rec *Recorder, opts Options) error {
	m := t.Metric
	ev, err := NewEvaluator(ctx, src, t)
	if err != nil {
		return err
	}
	ev.Observe(rec.Observer())
	timeout := opts.SampleTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	fetches := len(leaves(m)) > 0 || recording(src)
	take := func() (*evaluator.Sample, error) {
		rec.Begin()
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		s, err := ev.Sample(sctx)
		switch {
		case err == nil:
			rec.End(s)
			if fetches {
				rec.fetches++
			}
			return s, nil
		case errors.Is(err, io.EOF):
			return nil, err // nothing was observed
		case errors.Is(err, pmclient.ErrNoValues):
			return nil, ErrNoValues
		case sctx.Err() != nil && ctx.Err() == nil:
			return nil, fmt.Errorf("sampling %s: no answer within %v: %w", src.Describe(), timeout, err)
		}
		return nil, fmt.Errorf("sampling %s: %w", src.Describe(), err)
	}
	if recording(src) {
		return sampleRecording(rec, opts, m, take)
	}
	if _, err := take(); err != nil {
		return err
	}
	if needsHistoryTree(m) {
		interval := opts.Interval
		if interval <= 0 {
			interval = time.Second
		}
		rec.interval = interval
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
		if _, err := take(); err != nil {
			return err
		}
	}
	return nil
}

// sampleRecording steps through an archive to the first record at or
// after opts.Start, evaluating every record on the way (delta() and rate()
// then have the record before it as history); when the tree needs history
// and that record is the archive's first, the next one is explained.
func sampleRecording(rec *Recorder, opts Options, m *checker.Metric, take func() (*evaluator.Sample, error)) error {
	history := needsHistoryTree(m)
	var last time.Time
	reached := false
	for {
		s, err := take()
		if errors.Is(err, io.EOF) {
			switch {
			case reached:
				return nil // no record after the first: one sample
			case rec.samples == 0:
				return errors.New("the archive has no record of these metrics")
			}
			return fmt.Errorf("the archive has no record at or after %s (its last is at %s)", stamp(opts.Start), stamp(last))
		}
		if err != nil {
			return err
		}
		last = s.Timestamp
		if reached || s.Timestamp.Before(opts.Start) {
			if reached {
				return nil // the record after the first, for history
			}
			continue
		}
		if history && rec.samples == 1 {
			reached = true // the archive's first record: take one more
			continue
		}
		return nil
	}
}

// NewEvaluator is an evaluator of the target alone, with the derived
// metrics it names: libpcp binds those as operands (before 6.2.2) and the
// evaluator must know them. Explain samples with it; a caller that keeps
// values over time (the web page's plots) samples with it too, so both see
// the same nodes.
func NewEvaluator(ctx context.Context, src pmclient.Source, t Target) (*evaluator.Evaluator, error) {
	rep := t.Report
	m := t.Metric
	metrics := []*checker.Metric{m}
	for _, name := range leaves(m) {
		if other, ok := rep.ByName.Lookup(name); ok && other != m && !slices.Contains(metrics, other) {
			metrics = append(metrics, other)
		}
	}
	one := &checker.Report{Metrics: pvec.Of(metrics), ByName: rep.ByName, Operands: rep.Operands, Version: rep.Version, Source: rep.Source}
	ev, err := evaluator.New(ctx, src, one)
	if err != nil {
		return nil, fmt.Errorf("binding the operands of %s: %w", m.Def.Name, err)
	}
	return ev, nil
}

// needsHistoryTree reports whether the metric's expression has no value
// until a second sample.
func needsHistoryTree(m *checker.Metric) bool {
	tree, err := m.Def.Tree()
	return err == nil && grammar.NeedsHistory(tree)
}

func stamp(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") }

// recording reports a source whose Fetch steps through an archive.
func recording(src pmclient.Source) bool {
	r, ok := src.(pmclient.Recording)
	return ok && r.Recorded()
}

// leaves lists the metric names a definition fetches.
func leaves(m *checker.Metric) []string {
	var out []string
	tree, err := m.Def.Tree()
	if err != nil {
		return nil
	}
	grammar.Walk(tree, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Call:
			return n.Func != "defined" && n.Func != "anon"
		case *grammar.Metric:
			out = append(out, n.Name)
		}
		return true
	})
	return out
}

// instanceNames names instances, one instance-domain request per domain.
type instanceNames struct {
	ctx   context.Context
	src   pmclient.Source
	lists map[pmapi.InDom]map[int32]string
}

func (in *instanceNames) list(indom pmapi.InDom) map[int32]string {
	if l, ok := in.lists[indom]; ok {
		return l
	}
	l := map[int32]string{}
	insts, _ := in.src.Instances(in.ctx, indom)
	for _, i := range insts {
		l[i.ID] = i.Name
	}
	in.lists[indom] = l
	return l
}

func (in *instanceNames) name(indom pmapi.InDom, id int32) string { return in.list(indom)[id] }
