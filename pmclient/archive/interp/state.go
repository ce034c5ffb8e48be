package interp

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// The states of an instance's bound, as interp.c keeps them: nothing
// searched yet, a <mark> (a gap in the recording) is the nearest
// observation, or a value is. scanned marks a bound whose direction has
// been searched to no avail; setting a state clears it.
const (
	stUndefined uint8 = 1
	stMark      uint8 = 2
	stValue     uint8 = 4
	stScanned   uint8 = 16
)

// metric is interp.c's pmidcntl_t: one metric asked for, its instances
// in the order libpcp builds its result in, and how many values its last
// result had.
type metric struct {
	pmid    pmapi.PMID
	desc    pmapi.Desc
	known   bool // in the archive's metadata
	insts   []*inst
	byID    map[int32]*inst
	numval  int
	lastNum int
}

// inst is interp.c's instcntl_t: the observations around the time asked
// for (prior at or before it, next at or after it), and the times
// outside which the instance has no values (first, last: learnt by
// searching; birth, death: from the metadata of large instance domains).
type inst struct {
	metric         *metric
	id             int32
	tPrior, tNext  float64
	sPrior, sNext  uint8
	vPrior, vNext  pmclient.Value
	tFirst, tLast  float64
	tBirth, tDeath float64
	search         bool
	inResult       bool
}

func newInst(m *metric, id int32) *inst {
	return &inst{metric: m, id: id, tPrior: -1, tNext: -1, sPrior: stUndefined, sNext: stUndefined,
		tFirst: -1, tLast: -1, tBirth: -1, tDeath: -1}
}

// instances enumerates the instances a metric of indom may have, as
// pmGetInDomArchive lists them (the newest instance domain first, each
// by ascending ID, every instance once), and returns them in the order
// of libpcp's hash table, which orders the interpolated result: bucket
// by bucket (ID modulo the number of instances), the later added first
// within a bucket.
func instances(history *archive.InDomHistory) []int32 {
	if history == nil {
		return nil
	}
	list := history.Newest()
	n := uint32(len(list))
	buckets := make([][]int32, n)
	for _, id := range list {
		k := uint32(id) % n
		buckets[k] = append([]int32{id}, buckets[k]...)
	}
	out := make([]int32, 0, len(list))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

// bigInDom is interp.c's HASH_THRESHOLD: an instance domain that ever
// held this many instances gets birth and death times per instance.
const bigInDom = 16

// lifetimes is interp.c's time_caliper: for an instance domain that once
// held bigInDom instances or more, when each instance first appeared and
// when it last disappeared (-1: present at the end), in seconds from the
// archive's start. nil for smaller instance domains.
func lifetimes(history *archive.InDomHistory, start stamp) map[int32][2]float64 {
	if history == nil || history.MaxSize() < bigInDom {
		return nil
	}
	out := map[int32][2]float64{}
	for _, id := range history.Newest() {
		born, died, _, gone := history.Lifetime(id)
		life := [2]float64{since(stampOf(born), start), -1}
		if gone {
			life[1] = since(stampOf(died), start)
		}
		out[id] = life
	}
	return out
}

// update is interp.c's update_bounds for a record read forwards
// (UPD_MARK_FORW): a value at or before tReq nearer than the instance's
// prior replaces it, one at or after tReq nearer than its next replaces
// that, and a <mark> does the same for every instance asked for. An
// instance being searched for that finds its next bound counts in done
// (when done is not nil); a <mark> at or before tReq sets seenMark.
func (s *Source) update(r *rec, tReq float64, done *int, seenMark *bool) {
	if r.mark {
		for _, ic := range s.want {
			if r.t <= tReq && (r.t >= ic.tPrior || ic.tPrior > tReq) {
				ic.tPrior, ic.sPrior, ic.vPrior = r.t, stMark, pmclient.Value{}
				*seenMark = true
			}
			if r.t >= tReq && (r.t <= ic.tNext || ic.tNext < 0 || ic.tNext < tReq) {
				ic.tNext, ic.sNext, ic.vNext = r.t, stMark, pmclient.Value{}
				if ic.search && done != nil {
					ic.search = false
					*done++
					ic.sNext |= stScanned
				}
			}
		}
		return
	}
	for _, mv := range r.metrics {
		m := s.metrics[mv.PMID]
		if m == nil || !m.known {
			continue
		}
		for _, v := range mv.Values {
			ic := m.byID[v.Inst]
			if ic == nil {
				if ic = m.byID[pmclient.InNull]; ic == nil {
					continue
				}
			}
			if r.t <= tReq && (ic.tPrior > tReq || r.t >= ic.tPrior) {
				if ic.tPrior < ic.tNext && ic.tPrior >= tReq {
					// The prior was past tReq: it becomes the next.
					ic.tNext, ic.sNext, ic.vNext = ic.tPrior, ic.sPrior&^stScanned, ic.vPrior
				}
				ic.tPrior, ic.sPrior, ic.vPrior = r.t, stValue, v
			}
			if r.t >= tReq && (ic.tNext < tReq || r.t <= ic.tNext) {
				if ic.tPrior < ic.tNext && ic.tNext <= tReq {
					// The next was not past tReq: it becomes the prior.
					ic.tPrior, ic.sPrior, ic.vPrior = ic.tNext, ic.sNext&^stScanned, ic.vNext
				}
				ic.tNext, ic.sNext, ic.vNext = r.t, stValue, v
				if ic.search && done != nil {
					ic.search = false
					*done++
					ic.sNext |= stScanned
				}
			}
		}
	}
}
