package archive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/wire"
)

// Record is one data record: every metric it holds, or a mark.
type Record struct {
	Timestamp time.Time
	Mark      bool
	Metrics   []pmclient.MetricValues
}

// replayer reads the data volumes forward, one record at a time.
type replayer struct {
	a      *Archive
	vol    int // index into a.volumes
	closer io.Closer
	rr     *recordReader
	// buf holds the record being decoded, reused from record to record
	// (decoded values never point into it).
	buf []byte
	// skipTo is where in the first volume opened reading starts (see
	// RecordsFrom); 0 for just after its label.
	skipTo int64
	// dec decodes the records' values; rec is the Record NextReused
	// returns, again and again.
	dec wire.Decoder
	rec Record
	// forward: libpcp's forward replay (pmFetch, pmFetchArchive), which
	// returns no record earlier than the last one it returned, or than
	// origin before the first (the archive's start, or the time
	// ReplayFrom went to). pmlogextract can write such records: merging
	// archives recorded at once, a record of one came after a <mark>
	// later than it. Off for RecordsFrom, which the interpolation reads
	// record by record as libpcp's does.
	forward bool
	origin  time.Time
}

// forwardReplayer replays from the start as libpcp does (see forward).
func (a *Archive) forwardReplayer() *replayer {
	return &replayer{a: a, vol: -1, forward: true, origin: a.label.Start}
}

// Records replays the data records from the start as libpcp's
// pmFetchArchive does: in file order, less any record earlier than the
// one before it (see forward).
func (a *Archive) Records() *Reader { return &Reader{r: a.forwardReplayer()} }

// Reader iterates over an archive's data records.
type Reader struct{ r *replayer }

// Next returns the next record, or io.EOF after the last. The record is
// the caller's to keep.
func (rd *Reader) Next(ctx context.Context) (*Record, error) { return rd.r.next(ctx, false) }

// NextReused is Next into memory the Reader reuses: the record, its
// metrics and their values are valid only until the next call (strings
// stay valid). Reading a whole archive this way allocates next to
// nothing per record.
func (rd *Reader) NextReused(ctx context.Context) (*Record, error) { return rd.r.next(ctx, true) }

// Close releases the open volume.
func (rd *Reader) Close() error { return rd.r.close() }

func (r *replayer) close() error {
	if r.closer != nil {
		err := r.closer.Close()
		r.closer, r.rr = nil, nil
		return err
	}
	return nil
}

func (r *replayer) next(ctx context.Context, reuse bool) (*Record, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.rr == nil {
			r.vol++
			if r.vol >= len(r.a.volumes) {
				return nil, io.EOF
			}
			if err := r.openVolume(); err != nil {
				return nil, err
			}
		}
		buf, err := r.rr.read(r.buf, recordFront)
		if err == io.EOF {
			r.close()
			continue
		}
		if err != nil {
			return nil, err
		}
		r.buf = buf
		out := &r.rec
		if !reuse {
			out = &Record{}
		}
		err = r.a.decodeRecord(buf, &r.dec, out, reuse)
		if err != nil {
			return nil, fmt.Errorf("%s at byte %d: %w", r.rr.path, r.rr.off-int64(len(buf)-recordFront), err)
		}
		if r.forward {
			if out.Timestamp.Before(r.origin) {
				continue
			}
			r.origin = out.Timestamp
		}
		return out, nil
	}
}

func (r *replayer) openVolume() error {
	v := r.a.volumes[r.vol]
	// Data volumes are read a record at a time: their expansion costs
	// time, not memory, so only the dictionary is capped.
	f, size, err := r.a.openDecoded(v.path, 0)
	if err != nil {
		return fmt.Errorf("archive volume: %w", err)
	}
	bufSize := 256 << 10
	if size >= 0 {
		bufSize = min(bufSize, max(int(size), 4096)) // a small volume needs no more
	}
	rr := &recordReader{r: bufio.NewReaderSize(f, bufSize), path: v.path, size: size}
	rec, err := rr.next()
	if err == io.EOF {
		// Not the archive's end: a volume without even a label is broken.
		f.Close()
		return fmt.Errorf("%s: empty data volume (no label record)", v.path)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("%s: reading the label: %w", v.path, err)
	}
	label, err := parseLabel(rec, v.path)
	if err != nil {
		f.Close()
		return err
	}
	if label.Version != r.a.label.Version || int(label.Volume) != v.n {
		f.Close()
		return fmt.Errorf("%s: label says version %d volume %d, expected version %d volume %d", v.path, label.Version, label.Volume, r.a.label.Version, v.n)
	}
	r.closer, r.rr = f, rr
	if off := r.skipTo; off > 0 {
		r.skipTo = 0
		if err := r.skip(f, off); err != nil {
			r.close()
			return err
		}
	}
	return nil
}

// recordFront is the room read leaves before a data record: its
// value-block offsets count words from 8 bytes before the record, where
// the RESULT PDU it was made from began.
const recordFront = 8

// decodeRecord decodes a data record read after recordFront spare bytes,
// inside the frame of the PDU it was made from (without its trailer), into
// out: with dec's reused buffers when reuse is set, else into fresh
// memory. Nothing decoded points into framed.
func (a *Archive) decodeRecord(framed []byte, dec *wire.Decoder, out *Record, reuse bool) error {
	pdu := framed[:len(framed)-4]
	c := cursor{b: pdu, off: 12}
	*out = Record{Timestamp: c.stamp(a.label.Version)}
	n := int(int32(c.u32()))
	if c.err != nil {
		return c.err
	}
	if n == 0 {
		out.Mark = true
		return nil
	}
	var metrics []pmclient.MetricValues
	var err error
	if reuse {
		metrics, err = dec.Decode(pdu, c.off, n, a.meta.types)
	} else {
		metrics, err = dec.DecodeFresh(pdu, c.off, n, a.meta.types)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	out.Metrics = metrics
	return nil
}

// Recorded implements pmclient.Recording: Fetch replays the records.
func (a *Archive) Recorded() bool { return true }

// Fetch implements pmclient.Source for an archive: each call returns the
// next data record in time order that holds any of the requested metrics
// (as pmFetch in libpcp's forward mode does, which also passes over <mark>
// records), with no values for those it lacks, and io.EOF after the last
// record. Rewind starts again.
func (a *Archive) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	return a.fetch(ctx, pmids, false)
}

// FetchReused implements pmclient.FetchReuser: Fetch into memory the
// archive reuses, valid until the next Fetch or FetchReused.
func (a *Archive) FetchReused(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	return a.fetch(ctx, pmids, true)
}

// fetch is Fetch, into a.fetched's reused memory when reuse is set.
func (a *Archive) fetch(ctx context.Context, pmids []pmapi.PMID, reuse bool) (*pmclient.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.replay == nil {
		a.replay = a.forwardReplayer()
	}
	f := &a.fetched
	if f.at == nil {
		f.at = map[pmapi.PMID]int{}
	}
	var rec *Record
	for {
		var err error
		if rec, err = a.replay.next(ctx, true); err != nil {
			return nil, err
		}
		clear(f.at)
		for i, m := range rec.Metrics {
			f.at[m.PMID] = i
		}
		if !rec.Mark && (len(pmids) == 0 || f.anyPresent(pmids)) {
			break
		}
		// Like pmFetch in forward mode, skip <mark> records and records
		// with none of the metrics (Records reports every record).
	}
	a.replayAt = rec.Timestamp
	res := &f.res
	if !reuse {
		res = &pmclient.Result{}
	}
	*res = pmclient.Result{Timestamp: rec.Timestamp, Mark: rec.Mark, Metrics: res.Metrics[:0]}
	if !reuse {
		res.Metrics = make([]pmclient.MetricValues, 0, len(pmids))
	}
	total := 0
	for _, p := range pmids {
		m := pmclient.MetricValues{PMID: p}
		if i, ok := f.at[p]; ok {
			m = rec.Metrics[i]
			total += len(m.Values)
		}
		res.Metrics = append(res.Metrics, m)
	}
	if reuse {
		f.res.Metrics = res.Metrics
		return res, nil
	}
	// The record's values are in the replayer's reused memory: copy the
	// ones asked for, all in one slab.
	slab := make([]pmapi.Value, 0, total)
	for i := range res.Metrics {
		if vals := res.Metrics[i].Values; len(vals) > 0 {
			start := len(slab)
			slab = append(slab, vals...)
			res.Metrics[i].Values = slab[start:len(slab):len(slab)]
		}
	}
	return res, nil
}

// fetchState is what Fetch reuses from call to call: where each metric
// is in the current record, and FetchReused's result.
type fetchState struct {
	at  map[pmapi.PMID]int
	res pmclient.Result
}

func (f *fetchState) anyPresent(pmids []pmapi.PMID) bool {
	for _, p := range pmids {
		if _, ok := f.at[p]; ok {
			return true
		}
	}
	return false
}

// Rewind restarts Fetch at the first record.
func (a *Archive) Rewind() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.replay != nil {
		a.replay.close()
	}
	a.replay, a.replayAt = nil, time.Time{}
}

// Instances implements pmclient.Source: the instance domain as it was at
// the record Fetch returned last (before any Fetch, as it is at the end).
func (a *Archive) Instances(_ context.Context, indom pmapi.InDom) ([]pmclient.Instance, error) {
	if _, ok := a.meta.indoms[indom]; !ok {
		return nil, pmclient.ErrUnknownInDom
	}
	a.mu.Lock()
	at := a.replayAt
	a.mu.Unlock()
	return a.InDomHistory(indom).StateAt(at), nil
}

// InstancesAt returns an instance domain as it was at time t.
func (a *Archive) InstancesAt(indom pmapi.InDom, t time.Time) []pmclient.Instance {
	h := a.InDomHistory(indom)
	if h == nil {
		return []pmclient.Instance{}
	}
	return h.StateAt(t)
}

// HelpText implements pmclient.Source. An archive without the long help
// of a metric or instance domain answers with its one-line text.
func (a *Archive) HelpText(ctx context.Context, target pmclient.HelpTarget, long bool) (string, error) {
	text, err := a.index.HelpText(ctx, target, long)
	if err != nil && long {
		return a.index.HelpText(ctx, target, false)
	}
	return text, err
}

// End returns the timestamp of the last data record in the file, as
// pmGetArchiveEnd does: even one a forward replay skips (see forward).
func (a *Archive) End(ctx context.Context) (time.Time, error) {
	a.mu.Lock()
	if a.endRead {
		defer a.mu.Unlock()
		return a.end, nil
	}
	a.mu.Unlock()
	rd := &Reader{r: &replayer{a: a, vol: -1}}
	defer rd.Close()
	var last time.Time
	for {
		rec, err := rd.NextReused(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return last, err
		}
		last = rec.Timestamp
	}
	a.mu.Lock()
	a.end, a.endRead = last, true
	a.mu.Unlock()
	return last, nil
}
