package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Limits bound what a trace keeps and the work it does (docs/limits.md).
type Limits struct {
	// MaxSamples is how many samples a trace keeps: the points of each
	// plotted line. An archive window with more records is thinned to
	// every second, fourth, ... record; a live trace drops its oldest.
	MaxSamples int
	// MaxValues bounds the values a trace keeps, every node and instance
	// counted, thinned or dropped as MaxSamples is.
	MaxValues int
	// MaxRecords bounds the archive records a trace evaluates; the
	// window ends there and says so.
	MaxRecords int
	// Window is how far back a live trace reaches; Interval the time
	// between its samples.
	Window, Interval time.Duration
	// Start and Finish bound an archive's window: its records from
	// Start to Finish (zero: from its first, to its last).
	Start, Finish time.Time
}

// DefaultLimits are the command's defaults.
var DefaultLimits = Limits{MaxSamples: 10_000, MaxValues: 1_000_000, MaxRecords: 1_000_000, Window: 5 * time.Minute, Interval: time.Second}

func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.MaxSamples > 0 {
		d.MaxSamples = l.MaxSamples
	}
	if l.MaxValues > 0 {
		d.MaxValues = l.MaxValues
	}
	if l.MaxRecords > 0 {
		d.MaxRecords = l.MaxRecords
	}
	if l.Window > 0 {
		d.Window = l.Window
	}
	if l.Interval > 0 {
		d.Interval = l.Interval
	}
	d.Start, d.Finish = l.Start, l.Finish
	return d
}

// observation is what the evaluator told of one node in one sample
// (seen: it told anything; a node a sample skips is not seen).
type observation struct {
	vals []evaluator.Value
	err  error
	seen bool
}

// frame is one kept sample of a trace: every node's values, by the node's
// slot (Trace.nodes), and the sample's before it (what delta() and rate()
// compared with), so the tree of any kept sample can be explained as
// explain explains a live one. Slots, not a map per sample: a 10,000-record
// window is 10,000 frames.
type frame struct {
	at     time.Time
	cur    []observation
	prev   []observation
	values int
}

// obs is slot i's observation (not seen past the frame's slots: a node
// first evaluated after it).
func (f frame) obs(i int) observation {
	if i < len(f.cur) {
		return f.cur[i]
	}
	return observation{}
}

// Trace is one definition evaluated over time: over an archive's
// records, or live, every Interval, keeping the last Window. One fetch
// per sample serves every node (the evaluator's observer), as in explain.
type Trace struct {
	target explain.Target
	src    pmclient.Source
	limits Limits
	live   bool

	mu      sync.Mutex
	frames  []frame
	nodes   []grammar.Node // the nodes by slot, as the observer numbered them
	stride  int            // archive: every stride-th record is kept
	taken   int            // samples evaluated
	values  int            // values kept
	fetches int
	// ended says why an archive window ended before the archive did
	// ("" when it did not); err is a sampling failure.
	ended  string
	err    error
	ready  chan struct{} // closed after the first sample (or failure)
	cancel context.CancelFunc
}

// Window describes what a trace holds.
type Window struct {
	Samples int    // kept
	Taken   int    // evaluated
	Stride  int    // records per kept sample (archive)
	Fetches int    // fetches made
	Ended   string // why an archive window ended early
	Live    bool
}

// replayer is an archive that can start its records again (a trace
// reads the window from its start).
type replayer interface {
	Start() time.Time
	ReplayFrom(ctx context.Context, t time.Time) error
}

// recordArchive evaluates every record of an archive window, keeping
// what the limits allow. It returns when the archive or the window ends.
func recordArchive(ctx context.Context, src pmclient.Source, t explain.Target, l Limits) (*Trace, error) {
	tr := newTrace(src, t, l, false)
	defer tr.markReady()
	if !usable(t.Metric) {
		return tr, nil
	}
	if r, ok := src.(replayer); ok {
		if err := r.ReplayFrom(ctx, r.Start()); err != nil {
			return nil, fmt.Errorf("rewinding %s: %w", src.Describe(), err)
		}
	}
	ev, obs, err := tr.evaluator(ctx)
	if err != nil {
		return nil, err
	}
	// Records before Start are evaluated and not kept: the window's first
	// record then has the one before it, as delta() and rate() need.
	for read := 0; read < tr.limits.MaxRecords; read++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		obs.begin()
		s, err := ev.Sample(ctx)
		if errors.Is(err, io.EOF) {
			return tr, nil
		}
		if errors.Is(err, pmclient.ErrNoValues) {
			return nil, explain.ErrNoValues
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", src.Describe(), err)
		}
		if !tr.limits.Finish.IsZero() && s.Timestamp.After(tr.limits.Finish) {
			return tr, nil
		}
		f := obs.end(s.Timestamp)
		if s.Timestamp.Before(tr.limits.Start) {
			continue
		}
		tr.keep(f, obs.nodes, false)
	}
	tr.ended = fmt.Sprintf("the window ends after %d records read (the limit of records a trace reads)", tr.limits.MaxRecords)
	return tr, nil
}

// recordLive starts sampling a live source every Interval until ctx ends
// or Stop is called; the trace keeps the last Window.
func recordLive(ctx context.Context, src pmclient.Source, t explain.Target, l Limits) (*Trace, error) {
	tr := newTrace(src, t, l, true)
	if !usable(t.Metric) {
		tr.markReady()
		return tr, nil
	}
	ev, obs, err := tr.evaluator(ctx)
	if err != nil {
		return nil, err
	}
	ctx, tr.cancel = context.WithCancel(ctx)
	go tr.sampleLive(ctx, ev, obs)
	return tr, nil
}

func (tr *Trace) sampleLive(ctx context.Context, ev *evaluator.Evaluator, obs *observer) {
	defer tr.markReady()
	tick := time.NewTicker(tr.limits.Interval)
	defer tick.Stop()
	timeout := max(10*time.Second, 5*tr.limits.Interval)
	for {
		obs.begin()
		sctx, cancel := context.WithTimeout(ctx, timeout)
		s, err := ev.Sample(sctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, pmclient.ErrNoValues):
			tr.fail(explain.ErrNoValues)
			tr.markReady()
			return
		case err != nil:
			// The page shows the failure (the tree without values) and
			// sampling goes on.
			tr.fail(fmt.Errorf("sampling %s: %w", tr.src.Describe(), err))
			tr.markReady()
		default:
			tr.keep(obs.end(s.Timestamp), obs.nodes, true)
			tr.markReady()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func newTrace(src pmclient.Source, t explain.Target, l Limits, live bool) *Trace {
	return &Trace{target: t, src: src, limits: l.orDefault(), live: live, stride: 1, ready: make(chan struct{})}
}

// usable reports a definition the evaluator can sample (explain shows
// why the others cannot be).
func usable(m *checker.Metric) bool { return m.Status == checker.Valid && !m.Broken }

func (tr *Trace) evaluator(ctx context.Context) (*evaluator.Evaluator, *observer, error) {
	ev, err := explain.NewEvaluator(ctx, tr.src, tr.target)
	if err != nil {
		return nil, nil, err
	}
	obs := &observer{m: tr.target.Metric}
	ev.Observe(obs.observe)
	return ev, obs, nil
}

// Stop ends a live trace's sampling (nothing for an archive's).
func (tr *Trace) Stop() {
	if tr.cancel != nil {
		tr.cancel()
	}
}

// Wait returns once the trace has its first sample, has failed, or ctx
// ends.
func (tr *Trace) Wait(ctx context.Context) error {
	select {
	case <-tr.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (tr *Trace) markReady() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	select {
	case <-tr.ready:
	default:
		close(tr.ready)
	}
}

func (tr *Trace) fail(err error) {
	tr.mu.Lock()
	tr.err = err
	tr.mu.Unlock()
}

// keep adds a sample: an archive's every stride-th, thinned to every
// other one kept when a limit is passed; a live one's, dropping the
// oldest past a limit or the window. nodes are the observer's slots.
func (tr *Trace) keep(f frame, nodes []grammar.Node, live bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.nodes = nodes
	tr.err = nil
	n := tr.taken
	tr.taken++
	tr.fetches++
	if !live && n%tr.stride != 0 {
		return
	}
	tr.frames = append(tr.frames, f)
	tr.values += f.values
	over := func(drop int) bool {
		return len(tr.frames)-drop > tr.limits.MaxSamples || tr.values > tr.limits.MaxValues
	}
	if live {
		drop := 0
		for drop < len(tr.frames)-1 && (f.at.Sub(tr.frames[drop].at) > tr.limits.Window || over(drop)) {
			tr.values -= tr.frames[drop].values
			drop++
		}
		tr.frames = tr.frames[drop:]
		return
	}
	for over(0) && len(tr.frames) > 1 {
		// A new slice: a reader may hold the old one (snapshot).
		kept := make([]frame, 0, len(tr.frames)/2+1)
		tr.values = 0
		for i := 0; i < len(tr.frames); i += 2 {
			kept = append(kept, tr.frames[i])
			tr.values += tr.frames[i].values
		}
		tr.frames = kept
		tr.stride *= 2
	}
}

// Window says what the trace holds now.
func (tr *Trace) Window() Window {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return Window{Samples: len(tr.frames), Taken: tr.taken, Stride: tr.stride, Fetches: tr.fetches, Ended: tr.ended, Live: tr.live}
}

// Err is the last sampling failure of a live trace (nil once a sample
// succeeds again).
func (tr *Trace) Err() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.err
}

// snapshot returns the kept samples and the nodes of their slots (neither
// is written in place after it is handed out: keep and the observer
// append or build anew).
func (tr *Trace) snapshot() ([]frame, []grammar.Node) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.frames[:len(tr.frames):len(tr.frames)], tr.nodes[:len(tr.nodes):len(tr.nodes)]
}

// indexAt is the index of the first kept sample at or after t (the
// latest when none is).
func (tr *Trace) indexAt(t time.Time) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	i := sort.Search(len(tr.frames), func(i int) bool { return !tr.frames[i].at.Truncate(time.Millisecond).Before(t) })
	if i == len(tr.frames) {
		return -1
	}
	return i
}

// Explain is the explain tree at kept sample i (negative: the latest):
// the sample and the one before it are replayed into an explain.Recorder,
// so the diagnosis is explain's own, from the values the plots show.
func (tr *Trace) Explain(ctx context.Context, frames []frame, nodes []grammar.Node, i int) (*explain.Explanation, error) {
	rec := explain.NewRecorder(func(m *checker.Metric) bool { return m == tr.target.Metric })
	if len(frames) > 0 {
		if i < 0 || i >= len(frames) {
			i = len(frames) - 1
		}
		f := frames[i]
		feed := func(at time.Time, obs []observation) {
			rec.Begin()
			o := rec.Observer()
			for slot, v := range obs {
				if v.seen && slot < len(nodes) {
					o(tr.target.Metric, nodes[slot], v.vals, v.err)
				}
			}
			rec.End(&evaluator.Sample{Timestamp: at})
		}
		if f.prev != nil {
			feed(f.at.Add(-time.Nanosecond), f.prev)
		}
		feed(f.at, f.cur)
	}
	return rec.Explain(ctx, tr.src, tr.target)
}

// observer collects one metric's node values sample by sample, each node
// in a slot numbered as it is first seen.
type observer struct {
	m       *checker.Metric
	slots   map[grammar.Node]int
	nodes   []grammar.Node
	pending []observation
	last    []observation
	values  int
}

func (o *observer) begin() {
	o.pending, o.values = make([]observation, len(o.nodes)), 0
}

func (o *observer) observe(m *checker.Metric, n grammar.Node, vals []evaluator.Value, err error) {
	if m != o.m {
		return
	}
	slot, ok := o.slots[n]
	if !ok {
		if o.slots == nil {
			o.slots = map[grammar.Node]int{}
		}
		slot = len(o.nodes)
		o.slots[n] = slot
		o.nodes = append(o.nodes, n)
	}
	for len(o.pending) <= slot {
		o.pending = append(o.pending, observation{})
	}
	o.pending[slot] = observation{vals, err, true}
	o.values += max(len(vals), 1)
}

// end closes the sample taken at stamp.
func (o *observer) end(stamp time.Time) frame {
	f := frame{at: stamp, cur: o.pending, prev: o.last, values: o.values}
	o.last = o.pending
	return f
}
