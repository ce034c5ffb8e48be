package lsp

import (
	"sort"
	"unsafe"
)

// rope is a run of bytes held as slices of buffers that are never written
// again once a rope holds them, read in order. A document's publication
// keeps its findings' JSON as one, so that the next keystroke's is the
// runs of the last one before and after the findings it changed, and the
// few bytes of those findings: at 100,000 lines with 2% in error (763 kB
// of JSON) copying the unchanged runs into a new frame was most of the
// composing of a publication, and they are written to the client from
// where they are (lockedConn.writeRuns).
//
// The zero rope is empty. A rope never changes the bytes it holds; its
// list of runs is its own (a publication reuses a replaced one's).
type rope struct {
	runs []ropeRun
	len  int
}

// ropeRun is a slice of a buffer a rope holds, and the whole buffer, so
// that a rope can say how much memory it keeps alive (held).
type ropeRun struct {
	b    []byte
	from []byte // the buffer b is a slice of
	end  int    // the rope's length up to b's end
}

// maxRopeRuns bounds a publication's runs: past it the rope is compacted
// into one buffer (a copy of the JSON, as every keystroke made before
// ropes), so that runs do not pile up as edits move around a document.
const maxRopeRuns = 16

// maxRopeSlack is how much more memory than its length a rope may keep
// alive through the buffers it slices (a small document's findings
// kept in one large buffer, or runs of many superseded publications)
// before it is compacted: its own bytes twice over, and this.
const maxRopeSlack = 64 << 10

// Len is the rope's length in bytes.
func (r *rope) Len() int { return r.len }

// append adds b, a slice of the buffer from that nothing writes again, at
// the rope's end.
func (r *rope) append(b, from []byte) {
	if len(b) == 0 {
		return
	}
	r.len += len(b)
	r.runs = append(r.runs, ropeRun{b: b, from: from, end: r.len})
}

// appendSlice adds the bytes [lo, hi) of src at the rope's end.
func (r *rope) appendSlice(src *rope, lo, hi int) {
	if lo >= hi {
		return
	}
	// The run holding byte lo, then each run up to byte hi.
	i := sort.Search(len(src.runs), func(i int) bool { return src.runs[i].end > lo })
	for ; i < len(src.runs) && lo < hi; i++ {
		run := src.runs[i]
		start := run.end - len(run.b)
		b := run.b[lo-start : min(hi, run.end)-start]
		r.append(b, run.from)
		lo += len(b)
	}
}

// appendTo appends the rope's bytes to dst.
func (r *rope) appendTo(dst []byte) []byte {
	for _, run := range r.runs {
		dst = append(dst, run.b...)
	}
	return dst
}

// bytes are the rope's runs, for a write.
func (r *rope) bytes(dst [][]byte) [][]byte {
	for _, run := range r.runs {
		dst = append(dst, run.b)
	}
	return dst
}

// held is the memory the rope keeps alive: each buffer it slices, once.
func (r *rope) held() int {
	n := 0
	for i, run := range r.runs {
		seen := false
		for _, earlier := range r.runs[:i] {
			if unsafe.SliceData(earlier.from) == unsafe.SliceData(run.from) {
				seen = true
				break
			}
		}
		if !seen {
			n += cap(run.from)
		}
	}
	return n
}

// fragmented says whether the rope should be compacted: too many runs,
// or much more memory kept alive than its bytes.
func (r *rope) fragmented() bool {
	return len(r.runs) > maxRopeRuns || r.held() > 2*r.len+maxRopeSlack
}

// compacted is the rope in one buffer of its own.
func (r *rope) compacted() rope {
	b := r.appendTo(make([]byte, 0, r.len))
	var c rope
	c.append(b, b)
	return c
}
