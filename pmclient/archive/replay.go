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
}

// Records replays every data record from the start, in time order.
func (a *Archive) Records() *Reader { return &Reader{r: &replayer{a: a, vol: -1}} }

// Reader iterates over an archive's data records.
type Reader struct{ r *replayer }

// Next returns the next record, or io.EOF after the last.
func (rd *Reader) Next(ctx context.Context) (*Record, error) { return rd.r.next(ctx) }

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

func (r *replayer) next(ctx context.Context) (*Record, error) {
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
		out, err := r.a.decodeRecord(buf)
		if err != nil {
			return nil, fmt.Errorf("%s at byte %d: %w", r.rr.path, r.rr.off-int64(len(buf)-recordFront), err)
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
	rr := &recordReader{r: bufio.NewReaderSize(f, 256<<10), path: v.path, size: size}
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
// inside the frame of the PDU it was made from (without its trailer).
// Nothing decoded points into framed.
func (a *Archive) decodeRecord(framed []byte) (*Record, error) {
	pdu := framed[:len(framed)-4]
	c := &cursor{b: pdu, off: 12}
	out := &Record{Timestamp: c.stamp(a.label.Version)}
	n := int(int32(c.u32()))
	if c.err != nil {
		return nil, c.err
	}
	if n == 0 {
		out.Mark = true
		return out, nil
	}
	metrics, err := wire.DecodeVsets(pdu, c.off, n, a.meta.types)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	out.Metrics = metrics
	return out, nil
}

// Recorded implements pmclient.Recording: Fetch replays the records.
func (a *Archive) Recorded() bool { return true }

// Fetch implements pmclient.Source for an archive: each call returns the
// next data record in time order that holds any of the requested metrics
// (as pmFetch in libpcp's forward mode does, which also passes over <mark>
// records), with no values for those it lacks, and io.EOF after the last
// record. Rewind starts again.
func (a *Archive) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.replay == nil {
		a.replay = &replayer{a: a, vol: -1}
	}
	var rec *Record
	have := map[pmapi.PMID]pmclient.MetricValues{}
	for {
		var err error
		if rec, err = a.replay.next(ctx); err != nil {
			return nil, err
		}
		clear(have)
		for _, m := range rec.Metrics {
			have[m.PMID] = m
		}
		if !rec.Mark && (len(pmids) == 0 || anyPresent(have, pmids)) {
			break
		}
		// Like pmFetch in forward mode, skip <mark> records and records
		// with none of the metrics (Records reports every record).
	}
	res := &pmclient.Result{Timestamp: rec.Timestamp, Mark: rec.Mark}
	for _, p := range pmids {
		m, ok := have[p]
		if !ok {
			m = pmclient.MetricValues{PMID: p}
		}
		res.Metrics = append(res.Metrics, m)
	}
	a.replayAt = rec.Timestamp
	return res, nil
}

func anyPresent(have map[pmapi.PMID]pmclient.MetricValues, pmids []pmapi.PMID) bool {
	for _, p := range pmids {
		if _, ok := have[p]; ok {
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

// LookupNames implements pmclient.Source.
func (a *Archive) LookupNames(_ context.Context, names []string) ([]pmapi.PMID, []error, error) {
	pmids := make([]pmapi.PMID, len(names))
	errs := make([]error, len(names))
	for i, n := range names {
		if id, ok := a.meta.byName[n]; ok {
			pmids[i] = id
		} else {
			pmids[i], errs[i] = pmapi.PMIDNull, pmclient.ErrUnknownName
		}
	}
	return pmids, errs, nil
}

// NamesOf implements pmclient.Source.
func (a *Archive) NamesOf(_ context.Context, pmids []pmapi.PMID) ([][]string, []error, error) {
	names := make([][]string, len(pmids))
	errs := make([]error, len(pmids))
	for i, p := range pmids {
		if ns, ok := a.meta.names[p]; ok {
			names[i] = ns
		} else {
			errs[i] = pmclient.ErrUnknownPMID
		}
	}
	return names, errs, nil
}

// Children implements pmclient.Source from the archive's namespace.
func (a *Archive) Children(_ context.Context, name string) ([]pmclient.Child, error) {
	seen := map[string]bool{}
	var out []pmclient.Child
	prefix := name
	if prefix != "" {
		prefix += "."
	}
	for _, n := range a.meta.order {
		if n == name {
			return nil, nil // a leaf
		}
		rest, ok := cutPrefix(n, prefix)
		if !ok {
			continue
		}
		child, _, deeper := cut(rest, ".")
		if !seen[child] {
			seen[child] = true
			out = append(out, pmclient.Child{Name: child, Leaf: !deeper})
		}
	}
	if len(out) == 0 {
		return nil, pmclient.ErrUnknownName
	}
	return out, nil
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// AllNames implements pmclient.NameLister.
func (a *Archive) AllNames(context.Context) ([]string, error) { return a.Names(), nil }

// Descs implements pmclient.Source.
func (a *Archive) Descs(_ context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	descs := make([]pmapi.Desc, len(pmids))
	errs := make([]error, len(pmids))
	for i, p := range pmids {
		if d, ok := a.meta.descs[p]; ok {
			descs[i] = d
		} else {
			errs[i] = pmclient.ErrUnknownPMID
		}
	}
	return descs, errs, nil
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
	return a.meta.instancesAt(indom, at), nil
}

// InstancesAt returns an instance domain as it was at time t.
func (a *Archive) InstancesAt(indom pmapi.InDom, t time.Time) []pmclient.Instance {
	return a.meta.instancesAt(indom, t)
}

// HelpText implements pmclient.Source.
func (a *Archive) HelpText(_ context.Context, target pmclient.HelpTarget, long bool) (string, error) {
	typ, ident := uint32(1), uint32(target.PMID)
	if long {
		typ = 2
	}
	if target.InDom != pmapi.InDomNull {
		typ |= 8
		ident = uint32(target.InDom)
	} else {
		typ |= 4
	}
	text, ok := a.meta.text[[2]uint32{typ, ident}]
	if !ok && long {
		text, ok = a.meta.text[[2]uint32{typ&^2 | 1, ident}]
	}
	if !ok || text == "" {
		return "", pmclient.ErrNoHelp
	}
	return text, nil
}

// End returns the timestamp of the last data record.
func (a *Archive) End(ctx context.Context) (time.Time, error) {
	a.mu.Lock()
	if a.endRead {
		defer a.mu.Unlock()
		return a.end, nil
	}
	a.mu.Unlock()
	rd := a.Records()
	defer rd.Close()
	var last time.Time
	for {
		rec, err := rd.Next(ctx)
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

// Labels implements pmclient.Labeler with the label sets in force at the
// end of the archive (a later record for the same level replaces an
// earlier one).
func (a *Archive) Labels(_ context.Context, typ pmclient.LabelType, ident uint32) ([]pmclient.LabelSet, error) {
	if typ == pmclient.LabelCluster {
		ident &^= 0x3ff
	}
	obs := a.meta.labels[[2]uint32{uint32(typ), ident}]
	if len(obs) == 0 {
		return nil, nil
	}
	return obs[len(obs)-1].sets, nil
}
