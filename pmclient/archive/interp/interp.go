// Package interp replays an archive as libpcp does in interpolation mode
// (PM_MODE_INTERP, what pmval -a, pmrep -a and pmFetch after pmSetMode
// use): a fetch every interval from an origin, each value computed from
// the observations recorded around the time asked for, so that derived
// metrics evaluated over it give the values PCP's tools print.
//
// It lives beside the archive reader because it is a way of reading an
// archive: it needs the reader's record positions (libpcp reads forward
// from the last record at or before the time asked for, and comes back
// there at the next fetch) and the instance domains' history, and it
// answers pmclient.Source like the reader does.
//
// The rules are interp.c's, followed step by step rather than
// summarised, because its state is what the values depend on: which
// records each fetch reads, what is kept between fetches (an
// observation found once stays until a nearer one is read), when <mark>
// records cut a counter's history. For the instance's bounds:
//
//   - A counter is interpolated linearly between the observations before
//     and after (both needed, no <mark> between), rounded as C rounds.
//   - An instantaneous value is the observation before (both needed);
//     from PCP 6.3.2 (Options.Nearest) the nearer of the two.
//   - A discrete value is the observation before (only it needed); from
//     6.3.2 the one after when it is a value and nearer.
//   - Strings and other non-numeric types take the value before.
//   - After a <mark> read since the last fetch, a counter that had values
//     has none for one fetch (no rate across the gap).
//
// What is not modelled: reading backwards (the source steps forwards
// only), libpcp's temporal index (its first positioning can, in theory,
// miss a <mark> between the first time asked for and the first record
// after it), $PCP_COUNTER_WRAP and $PCP_IGNORE_MARK_RECORDS.
package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// Options place the fetches in time and choose the release's rules.
type Options struct {
	// Origin is the time of the first fetch.
	Origin time.Time
	// Interval is the time between fetches (more than zero).
	Interval time.Duration
	// Nearest: instantaneous and discrete values take the nearer
	// observation (PCP 6.3.2 and later, pcpver.InterpNearest).
	Nearest bool
}

// Source is an archive read in interpolation mode: Fetch returns the
// values at Origin, then at each Interval after it, and io.EOF past the
// archive's end, as libpcp returns PM_ERR_EOL. Every other method is
// the archive's (metadata does not depend on time), except Instances,
// which answers at the time of the next fetch, as pmGetInDom does after
// a fetch in libpcp. Safe for concurrent use.
type Source struct {
	*archive.Archive

	mu      sync.Mutex
	opts    Options
	start   stamp   // the archive label's time: every t is measured from it
	end     float64 // the last record's time (libpcp's ac_end)
	origin  stamp   // the time of the next fetch (libpcp's c_origin)
	step    stamp
	metrics map[pmapi.PMID]*metric
	want    []*inst // every instance asked for, in libpcp's ac_want order
	serial  bool    // positioned: the first fetch is done

	// Reading: libpcp's ac_offset, where each fetch starts reading; the
	// records after it that a fetch has read already (so the next can
	// read them again without the disk); and a reader at aheadEnd.
	offset      archive.Position
	ahead       []*rec
	aheadEnd    archive.Position
	aheadValues int
	scout       *archive.Reader
	tracked     map[pmapi.PMID]bool // the metrics whose values ahead keeps
	maxRecords  int                 // caps on ahead (tests lower them)
	maxValues   int
	histories   map[pmapi.InDom]*archive.InDomHistory
}

// history is an instance domain's history, read from the archive once.
// The caller holds s.mu.
func (s *Source) history(indom pmapi.InDom) *archive.InDomHistory {
	h, ok := s.histories[indom]
	if !ok {
		h = s.Archive.InDomHistory(indom)
		s.histories[indom] = h
	}
	return h
}

// rec is a data record as interpolation needs it: its time from the
// archive's start, the values of the metrics asked for, and where the
// record after it starts.
type rec struct {
	t       float64
	mark    bool
	metrics []pmclient.MetricValues
	end     archive.Position
}

// Caps on the records kept between fetches; past them records are read
// again from the archive instead (see forward).
const (
	maxAheadRecords = 1 << 16
	maxAheadValues  = 1 << 18
)

// New prepares interpolated fetches over an archive.
func New(ctx context.Context, a *archive.Archive, opts Options) (*Source, error) {
	if opts.Interval <= 0 {
		return nil, fmt.Errorf("interpolating %s: the interval must be more than zero", a.Describe())
	}
	end, err := a.End(ctx)
	if err != nil {
		return nil, fmt.Errorf("interpolating %s: finding its end: %w", a.Describe(), err)
	}
	start := stampOf(a.Start())
	step := stamp{int64(opts.Interval / time.Second), int64(opts.Interval % time.Second)}
	return &Source{Archive: a, opts: opts, start: start, end: since(stampOf(end), start),
		origin: stampOf(opts.Origin), step: step, metrics: map[pmapi.PMID]*metric{},
		maxRecords: maxAheadRecords, maxValues: maxAheadValues, histories: map[pmapi.InDom]*archive.InDomHistory{}}, nil
}

// Recorded implements pmclient.Recording: each Fetch moves on in time.
func (s *Source) Recorded() bool { return true }

// Instances implements pmclient.Source: the instance domain as it is at
// the time of the next fetch (libpcp's context time moves on by the
// interval as each fetch returns, and derived metrics look instance
// names up there).
func (s *Source) Instances(_ context.Context, indom pmapi.InDom) ([]pmclient.Instance, error) {
	s.mu.Lock()
	known := s.history(indom) != nil
	at := s.origin.time()
	s.mu.Unlock()
	if !known {
		return nil, pmclient.ErrUnknownInDom
	}
	return s.Archive.InstancesAt(indom, at), nil
}

// InstanceName names an instance from the whole history of its domain
// (an interpolated value may belong to an instance the domain no longer
// lists at that time); "" if the archive never named it.
func (s *Source) InstanceName(indom pmapi.InDom, id int32) string {
	s.mu.Lock()
	h := s.history(indom)
	s.mu.Unlock()
	if h == nil {
		return ""
	}
	return h.Name(id)
}

// errBeforeStart is PM_ERR_EOL for a time before the archive starts.
var errBeforeStart = fmt.Errorf("%w: the time asked for is before the archive starts", io.EOF)

// FetchReused implements pmclient.FetchReuser as Fetch does (fresh
// memory meets its contract): the embedded Archive's FetchReused would
// replay raw records, not interpolate.
func (s *Source) FetchReused(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	return s.Fetch(ctx, pmids)
}

// Fetch implements pmclient.Source: the interpolated values of the
// metrics at the current time, which then moves on by the interval.
func (s *Source) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.origin
	s.origin = s.origin.advance(s.step) // moved on even when the fetch fails, as libpcp does
	tReq := since(at, s.start)
	// libpcp's "magic slop" of a millisecond at either end.
	if tReq < -0.001 {
		return nil, errBeforeStart
	}
	if tReq > s.end+0.001 {
		return nil, io.EOF
	}
	if err := s.prepare(ctx, pmids); err != nil {
		return nil, err
	}
	if err := s.fetch(ctx, tReq); err != nil {
		return nil, err
	}
	res := &pmclient.Result{Timestamp: at.time()}
	for _, p := range pmids {
		res.Metrics = append(res.Metrics, s.result(p, tReq))
	}
	return res, nil
}

// prepare makes the control structures for metrics asked for the first
// time and lists the instances asked for in libpcp's order (ac_want: a
// list each instance is pushed on the front of, metric by metric).
func (s *Source) prepare(ctx context.Context, pmids []pmapi.PMID) error {
	changed := false
	for _, p := range pmids {
		if p == pmapi.PMIDNull || s.metrics[p] != nil {
			continue
		}
		changed = true
		m := &metric{pmid: p, lastNum: -1, byID: map[int32]*inst{}}
		s.metrics[p] = m
		descs, errs, err := s.Archive.Descs(ctx, []pmapi.PMID{p})
		if err != nil {
			return err
		}
		if errs[0] != nil {
			continue // not in the archive: PM_ERR_PMID_LOG
		}
		m.desc, m.known = descs[0], true
		if m.desc.InDom == pmapi.InDomNull {
			ic := newInst(m, pmclient.InNull)
			m.insts, m.byID[ic.id] = []*inst{ic}, ic
			continue
		}
		history := s.history(m.desc.InDom)
		lives := lifetimes(history, s.start)
		for _, id := range instances(history) {
			ic := newInst(m, id)
			if life, ok := lives[id]; ok {
				ic.tBirth, ic.tDeath = life[0], life[1]
			}
			m.insts = append(m.insts, ic)
			m.byID[id] = ic
		}
	}
	if changed {
		// Records read ahead kept only the values of the metrics asked
		// for before: read them again.
		s.tracked = map[pmapi.PMID]bool{}
		for p := range s.metrics {
			s.tracked[p] = true
		}
		s.dropAhead()
	}
	s.want = s.want[:0]
	for _, p := range pmids {
		m := s.metrics[p]
		if m == nil {
			continue
		}
		m.numval = 0
		if !m.known {
			continue
		}
		for _, ic := range m.insts {
			ic.search, ic.inResult = false, true
			s.want = append(s.want, ic)
			m.numval++
		}
	}
	for i, j := 0, len(s.want)-1; i < j; i, j = i+1, j-1 {
		s.want[i], s.want[j] = s.want[j], s.want[i]
	}
	return nil
}

// fetch brings every instance's bounds to tReq, as __pmLogFetchInterp's
// passes do, and decides which instances have a value.
func (s *Source) fetch(ctx context.Context, tReq float64) error {
	seenMark := false
	if !s.serial {
		if err := s.position(ctx, tReq); err != nil {
			return err
		}
	}
	if err := s.boundBelow(ctx, tReq, &seenMark); err != nil {
		return err
	}
	if unbound := s.unboundAbove(tReq); len(unbound) > 0 {
		if err := s.searchForward(ctx, tReq, unbound, &seenMark); err != nil {
			return err
		}
	}
	s.settle(tReq, seenMark)
	return nil
}

// position brings every wanted instance's bounds up to tReq on the
// first fetch. libpcp seeks with the temporal index and reads backwards
// to the nearest observations before tReq; reading forwards from the
// start to tReq finds the same ones.
func (s *Source) position(ctx context.Context, tReq float64) error {
	seenMark := false
	if err := s.roll(ctx, tReq, &seenMark); err != nil {
		return err
	}
	s.serial = true
	for _, ic := range s.want {
		ic.metric.lastNum = -1
	}
	return nil
}

// boundBelow is the second pass: instances not bounded below. Rolling
// forwards to tReq brings the prior bounds up to date; a search
// backwards could only find what forward reading already applied,
// except that it learns there is nothing before (tFirst).
func (s *Source) boundBelow(ctx context.Context, tReq float64, seenMark *bool) error {
	rolled := false
	back := 0
	for _, ic := range s.want {
		if (ic.tFirst >= 0 && tReq < ic.tFirst) || ic.unborn(tReq) {
			continue
		}
		if (ic.tPrior < 0 || ic.tPrior > tReq) && back == 0 && !rolled {
			rolled = true
			if err := s.roll(ctx, tReq, seenMark); err != nil {
				return err
			}
		}
		if (ic.sPrior&stUndefined != 0 && ic.sPrior&stScanned == 0) ||
			(ic.tPrior > tReq && ic.sPrior&stScanned == 0) ||
			(ic.sNext&stMark != 0 && ic.tPrior == tReq) {
			back++
			if ic.sPrior&stUndefined != 0 || ic.tPrior > tReq {
				// Searched back to the archive's start in vain.
				ic.sPrior |= stScanned
				if ic.tFirst < tReq {
					ic.tFirst = tReq
				}
			}
		}
	}
	return nil
}

// unboundAbove is the third pass: the instances not bounded above, to
// be searched for forwards, in ascending order of tLast (marked search).
func (s *Source) unboundAbove(tReq float64) []*inst {
	var unbound []*inst
	for _, ic := range s.want {
		if (ic.tLast >= 0 && tReq > ic.tLast) || ic.unborn(tReq) {
			continue
		}
		if (ic.sNext&stUndefined != 0 && ic.sNext&stScanned == 0) || ic.tNext < tReq ||
			(ic.sPrior&stMark != 0 && ic.tNext == tReq) {
			ic.search = true
			// Before the first whose tLast is not smaller.
			at := len(unbound)
			for i, ub := range unbound {
				if ic.tLast <= ub.tLast {
					at = i
					break
				}
			}
			unbound = append(unbound[:at], append([]*inst{ic}, unbound[at:]...)...)
		}
	}
	return unbound
}

// searchForward reads forwards from tReq until every unbound instance
// has its next observation, or is known to have none (after its tLast);
// those still unbound at the end have nothing after tReq.
func (s *Source) searchForward(ctx context.Context, tReq float64, unbound []*inst, seenMark *bool) error {
	forw := len(unbound)
	done := 0
	err := s.forward(ctx, tReq, func(r *rec) bool {
		s.update(r, tReq, &done, seenMark)
		// Give up on those known to have nothing after r.
		kept := unbound[:0]
		for i, ic := range unbound {
			if ic.tLast > r.t {
				kept = append(kept, unbound[i:]...)
				break
			}
			if ic.search && ic.tLast >= 0 {
				ic.search = false
				ic.sNext |= stScanned
				done++
				continue
			}
			kept = append(kept, ic)
		}
		unbound = kept
		return done < forw
	})
	if err != nil {
		return err
	}
	for _, ic := range unbound {
		if ic.tNext < tReq && (ic.tLast < 0 || tReq < ic.tLast) {
			ic.tLast = tReq
			ic.sNext |= stScanned
		}
		ic.search = false
	}
	return nil
}

// settle decides which instances have a value at tReq, and marks a
// counter that cannot be interpolated.
func (s *Source) settle(tReq float64, seenMark bool) {
	for _, ic := range s.want {
		m := ic.metric
		if m.desc.Sem == pmapi.SemDiscrete {
			if ic.sPrior&(stMark|stUndefined) != 0 || ic.tPrior > tReq || (ic.tBirth != -1 && ic.tBirth > tReq) ||
				(ic.tDeath != -1 && tReq > ic.tDeath) {
				m.numval--
				ic.inResult = false
			}
			continue
		}
		switch {
		case ic.sPrior&(stMark|stUndefined) != 0 || ic.tPrior > tReq ||
			ic.sNext&(stMark|stUndefined) != 0 || ic.tNext < tReq:
			m.numval--
			ic.inResult = false
		case m.desc.Sem == pmapi.SemCounter && !numeric(m.desc.Type):
			m.numval = errTypeNumval
		case m.desc.Sem == pmapi.SemCounter && seenMark && m.lastNum > 0:
			// A <mark> since the last fetch: no values this time, so
			// that no rate is computed across the gap.
			m.numval--
			ic.inResult = false
		}
	}
}

// errTypeNumval marks a counter that cannot be interpolated (not a
// number): libpcp answers PM_ERR_TYPE for the metric.
const errTypeNumval = -1 << 30

func numeric(t pmapi.Type) bool {
	switch t {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
		return true
	}
	return false
}

// unborn: the metadata of a large instance domain says the instance
// does not exist at t (time_caliper's skips).
func (ic *inst) unborn(t float64) bool {
	return (ic.tBirth >= 0 && t < ic.tBirth) || (ic.tDeath >= 0 && t > ic.tDeath)
}

// result builds a metric's values, in libpcp's order.
func (s *Source) result(p pmapi.PMID, tReq float64) pmclient.MetricValues {
	mv := pmclient.MetricValues{PMID: p}
	m := s.metrics[p]
	switch {
	case m == nil:
		return mv
	case !m.known:
		mv.Err = pmclient.ErrNotInArchive
		return mv
	case m.numval < 0:
		mv.Err = pmclient.ErrType
		m.lastNum = m.numval
		return mv
	}
	for _, ic := range m.insts {
		if !ic.inResult {
			continue
		}
		if v, ok := ic.value(tReq, s.opts.Nearest); ok {
			v.Inst = ic.id
			mv.Values = append(mv.Values, v)
		}
	}
	m.lastNum = m.numval
	return mv
}

// roll is do_roll: read forwards from the offset up to tReq.
func (s *Source) roll(ctx context.Context, tReq float64, seenMark *bool) error {
	return s.forward(ctx, tReq, func(r *rec) bool {
		if r.t > tReq {
			return false
		}
		s.update(r, tReq, nil, seenMark)
		return true
	})
}

// forward reads the records from the offset on, in order, until visit
// returns false or the archive ends. A record at or before tReq moves
// the offset past it before visit sees it, as libpcp moves ac_offset:
// the next fetch starts reading after it. Records after tReq are kept
// for the next fetch (up to the caps; past them the next fetch reads
// them from the archive again).
func (s *Source) forward(ctx context.Context, tReq float64, visit func(*rec) bool) error {
	detached := false // the scout has read past records it could not keep
	defer func() {
		if detached {
			s.closeScout()
		}
	}()
	for i := 0; ; {
		var r *rec
		if i < len(s.ahead) {
			r = s.ahead[i]
			i++
			if r.t <= tReq {
				s.offset = r.end
				s.aheadValues -= r.values()
				s.ahead, i = s.ahead[i:], 0
			}
		} else {
			var err error
			if r, err = s.readScout(ctx); err != nil || r == nil {
				return err
			}
			switch {
			case r.t <= tReq:
				// The scout is at the record after r: nothing is ahead.
				s.offset, s.aheadEnd = r.end, r.end
				s.ahead, s.aheadValues, i, detached = nil, 0, 0, false
			case !detached && len(s.ahead) < s.maxRecords && s.aheadValues+r.values() <= s.maxValues:
				s.ahead = append(s.ahead, r)
				s.aheadValues += r.values()
				s.aheadEnd = r.end
				i++
			default:
				detached = true
			}
		}
		if !visit(r) {
			return nil
		}
	}
}

func (r *rec) values() int {
	n := 1
	for _, m := range r.metrics {
		n += len(m.Values)
	}
	return n
}

// readScout reads the record at the scout, opening it at aheadEnd when
// it is closed; nil at the archive's end.
func (s *Source) readScout(ctx context.Context) (*rec, error) {
	if s.scout == nil {
		rd, err := s.Archive.RecordsFrom(s.aheadEnd)
		if err != nil {
			return nil, err
		}
		s.scout = rd
	}
	raw, err := s.scout.Next(ctx)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("interpolating %s: %w", s.Archive.Describe(), err)
	}
	r := &rec{t: since(stampOf(raw.Timestamp), s.start), mark: raw.Mark, end: s.scout.Position()}
	for _, m := range raw.Metrics {
		if s.tracked[m.PMID] {
			r.metrics = append(r.metrics, m)
		}
	}
	return r, nil
}

func (s *Source) closeScout() {
	if s.scout != nil {
		s.scout.Close()
		s.scout = nil
	}
}

// dropAhead forgets the records read ahead: the next read starts at the
// offset again.
func (s *Source) dropAhead() {
	s.closeScout()
	s.ahead, s.aheadValues, s.aheadEnd = nil, 0, s.offset
}

// Close releases the open volume.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeScout()
	return nil
}
