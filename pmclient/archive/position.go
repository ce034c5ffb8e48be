package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
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

// InDomHistory returns every state of an instance domain the archive
// recorded (nil for an instance domain it never recorded), built once.
// libpcp's interpolation enumerates the instances a metric may have from
// it, and times when each instance was born and died.
func (a *Archive) InDomHistory(indom pmapi.InDom) *InDomHistory {
	obs, ok := a.meta.indoms[indom]
	if !ok {
		return nil
	}
	a.histMu.Lock()
	defer a.histMu.Unlock()
	h := a.hists[indom]
	if h == nil {
		if a.hists == nil {
			a.hists = map[pmapi.InDom]*InDomHistory{}
		}
		h = newHistory(obs)
		a.hists[indom] = h
	}
	return h
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
