package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Position is where a data record starts: a volume and a byte offset in
// its (decompressed) contents. Readers that look ahead and come back, as
// libpcp's interpolation does (it keeps the offset of the last record at
// or before the time asked for and reads forward from there at the next
// fetch), keep Positions instead of the records in between. The zero
// Position is the first record of the archive.
type Position struct {
	volume int   // index into the archive's volumes
	offset int64 // 0: the first record after the volume's label
}

// Position returns where the next call to Next starts reading: at the
// record it returns, unless it skips records before that one (see
// forward).
func (rd *Reader) Position() Position {
	r := rd.r
	if r.rr == nil {
		return Position{volume: r.vol + 1}
	}
	return Position{volume: r.vol, offset: r.rr.off}
}

// RecordsFrom replays the data records from pos (a Position a Reader
// returned) in time order. A plain volume is entered with a seek; a
// compressed one is decompressed up to pos, which costs time, not memory.
func (a *Archive) RecordsFrom(pos Position) (*Reader, error) {
	if pos.volume < 0 || pos.offset < 0 || pos.volume > len(a.volumes) {
		return nil, fmt.Errorf("archive %s: no record at volume %d byte %d", a.base, pos.volume, pos.offset)
	}
	return &Reader{r: &replayer{a: a, vol: pos.volume - 1, skipTo: pos.offset}}, nil
}

// skip moves a freshly opened volume from just after its label to byte
// off: by seeking when the file allows it, else by reading.
func (r *replayer) skip(f io.ReadCloser, off int64) error {
	rr := r.rr
	if off <= rr.off {
		return nil
	}
	if rr.size >= 0 && off > rr.size {
		return fmt.Errorf("%s: byte %d is past the end (%d bytes): %w", rr.path, off, rr.size, errCorrupt)
	}
	if s, ok := f.(io.Seeker); ok {
		if _, err := s.Seek(off, io.SeekStart); err != nil {
			return fmt.Errorf("%s: seeking to byte %d: %w", rr.path, off, err)
		}
		rr.r.Reset(f)
	} else if n, err := io.CopyN(io.Discard, rr.r, off-rr.off); err != nil {
		return fmt.Errorf("%s: skipping to byte %d (at %d): %w", rr.path, off, rr.off+n, err)
	}
	rr.off = off
	return nil
}

// InDomSnapshot is an instance domain as one metadata record left it (a
// v3 delta record applied to the state before it).
type InDomSnapshot struct {
	At        time.Time
	Instances []pmclient.Instance // by ascending ID, as libpcp sorts them
}

// InDomHistory returns every state of an instance domain the archive
// recorded, oldest first (nil for an instance domain it never recorded).
// libpcp's interpolation enumerates the instances a metric may have from
// these, and times when each instance was born and died.
func (a *Archive) InDomHistory(indom pmapi.InDom) []InDomSnapshot {
	obs := append([]observation(nil), a.meta.indoms[indom]...)
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].at.Before(obs[j].at) })
	var out []InDomSnapshot
	cur := map[int32]string{}
	for _, o := range obs {
		if !o.delta {
			cur = map[int32]string{}
		}
		for id := range o.deleted {
			delete(cur, id)
		}
		for _, in := range o.instances {
			cur[in.ID] = in.Name
		}
		snap := InDomSnapshot{At: o.at, Instances: make([]pmclient.Instance, 0, len(cur))}
		for id, name := range cur {
			snap.Instances = append(snap.Instances, pmclient.Instance{ID: id, Name: name})
		}
		sort.Slice(snap.Instances, func(i, j int) bool { return snap.Instances[i].ID < snap.Instances[j].ID })
		out = append(out, snap)
	}
	return out
}

// Start is the time in the archive's label: libpcp measures every time
// in the archive from it.
func (a *Archive) Start() time.Time { return a.label.Start }

// ReplayFrom makes Fetch continue from the first data record at or after
// t (as pmSetMode(PM_MODE_FORW, t) positions libpcp): the window's start
// when an archive is replayed record by record.
func (a *Archive) ReplayFrom(ctx context.Context, t time.Time) error {
	rd := a.Records()
	defer rd.Close()
	pos := rd.Position()
	for {
		rec, err := rd.NextReused(ctx)
		if errors.Is(err, io.EOF) {
			pos = rd.Position()
			break
		}
		if err != nil {
			return err
		}
		if !rec.Timestamp.Before(t) {
			break
		}
		pos = rd.Position()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.replay != nil {
		a.replay.close()
	}
	a.replay = &replayer{a: a, vol: pos.volume - 1, skipTo: pos.offset, forward: true, origin: t}
	a.replayAt = t
	return nil
}
