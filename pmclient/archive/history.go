package archive

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// InDomHistory is every state of an instance domain the archive recorded
// (each metadata record, a v3 delta applied to the state before it), in
// time order. It keeps what changed, not each state whole: every
// instance's spans of presence, so its size is the records' and a
// lookup costs what it answers. Rebuilding each state (or replaying every
// record up to a time at each lookup) was quadratic: 6,000 instances that
// retire one a record made 18 million copies, 1 GB and 14 s of eval -a.
type InDomHistory struct {
	times []time.Time
	// spans are the instances' presence by ascending ID, then time: the
	// instance (ID and name) is in states from to to-1. An ID's last span
	// is where it was last present, under the name it last had.
	spans   []span
	maxSize int // the most instances of one state
}

type span struct {
	pmclient.Instance
	from, to int32
}

// InDomSnapshot is an instance domain in one state, as a full record
// gives it (HistoryOf).
type InDomSnapshot struct {
	At        time.Time
	Instances []pmclient.Instance
}

// newHistory replays observations (in time order, the file's among equal
// times) into spans.
func newHistory(obs []observation) *InDomHistory {
	obs = slices.Clone(obs)
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].at.Before(obs[j].at) })
	total, biggest := 0, 0
	for _, o := range obs {
		total += len(o.instances)
		biggest = max(biggest, len(o.instances))
	}
	h := &InDomHistory{times: make([]time.Time, len(obs)), spans: make([]span, 0, total)}
	open := make(map[int32]int, biggest) // instance ID -> its open span
	close := func(id int32, at int32) {
		if k, ok := open[id]; ok {
			h.spans[k].to = at
			delete(open, id)
		}
	}
	for i, o := range obs {
		at := int32(i)
		h.times[i] = o.at
		if !o.delta && len(open) > 0 {
			// A full record: what it does not list is gone.
			listed := make(map[int32]bool, len(o.instances))
			for _, in := range o.instances {
				listed[in.ID] = true
			}
			for id := range open {
				if !listed[id] {
					close(id, at)
				}
			}
		}
		for id := range o.deleted {
			close(id, at)
		}
		for _, in := range o.instances {
			if k, ok := open[in.ID]; ok {
				if h.spans[k].Name == in.Name {
					continue // present before and now, as it was
				}
				close(in.ID, at)
			}
			open[in.ID] = len(h.spans)
			h.spans = append(h.spans, span{Instance: in, from: at, to: -1})
		}
		h.maxSize = max(h.maxSize, len(open))
	}
	for _, k := range open {
		h.spans[k].to = int32(len(obs))
	}
	slices.SortFunc(h.spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.from, b.from))
	})
	return h
}

// latest is the index of id's last span, if the history holds id.
func (h *InDomHistory) latest(id int32) (int, bool) {
	k := sort.Search(len(h.spans), func(j int) bool { return h.spans[j].ID > id }) - 1
	return k, k >= 0 && h.spans[k].ID == id
}

// HistoryOf is the history of an instance domain recorded in full at
// each of states (tests of what reads histories).
func HistoryOf(states []InDomSnapshot) *InDomHistory {
	obs := make([]observation, len(states))
	for i, s := range states {
		obs[i] = observation{at: s.At, instances: s.Instances}
	}
	return newHistory(obs)
}

// Len is the number of states.
func (h *InDomHistory) Len() int { return len(h.times) }

// MaxSize is the most instances any state held.
func (h *InDomHistory) MaxSize() int { return h.maxSize }

// At is when state i was recorded.
func (h *InDomHistory) At(i int) time.Time { return h.times[i] }

// State is the instances of state i, by ascending ID.
func (h *InDomHistory) State(i int) []pmclient.Instance {
	in := func(s span) bool { return int(s.from) <= i && i < int(s.to) }
	n := 0
	for _, s := range h.spans {
		if in(s) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]pmclient.Instance, 0, n) // counted first: no garbage
	for _, s := range h.spans {
		if in(s) {
			out = append(out, s.Instance)
		}
	}
	return out
}

// StateAt is the instances of the latest state recorded at or before t
// (the latest state for zero t; none before the first), by ascending ID.
func (h *InDomHistory) StateAt(t time.Time) []pmclient.Instance {
	i := len(h.times) - 1
	if !t.IsZero() {
		i = sort.Search(len(h.times), func(k int) bool { return h.times[k].After(t) }) - 1
	}
	if i < 0 {
		return []pmclient.Instance{}
	}
	out := h.State(i)
	if out == nil {
		out = []pmclient.Instance{}
	}
	return out
}

// Newest lists every instance the history holds once, as
// pmGetInDomArchive enumerates them: those of the newest state first,
// then of each state before it, each state's by ascending ID.
func (h *InDomHistory) Newest() []int32 {
	type last struct {
		id    int32
		state int32
	}
	var lasts []last
	for k, s := range h.spans {
		if k+1 == len(h.spans) || h.spans[k+1].ID != s.ID {
			lasts = append(lasts, last{s.ID, s.to - 1})
		}
	}
	slices.SortFunc(lasts, func(a, b last) int {
		return cmp.Or(cmp.Compare(b.state, a.state), cmp.Compare(a.id, b.id))
	})
	out := make([]int32, len(lasts))
	for i, l := range lasts {
		out[i] = l.id
	}
	return out
}

// Lifetime is when an instance was first present and when it was last
// gone: the time of the first state it is in, and of the state after the
// last it is in (ok2 false when it is in the newest state). ok is false
// for an instance the history never held.
func (h *InDomHistory) Lifetime(id int32) (born, died time.Time, ok, ok2 bool) {
	k, ok := h.latest(id)
	if !ok {
		return time.Time{}, time.Time{}, false, false
	}
	first := sort.Search(len(h.spans), func(j int) bool { return h.spans[j].ID >= id })
	born = h.times[h.spans[first].from]
	if to := int(h.spans[k].to); to < len(h.times) {
		return born, h.times[to], true, true
	}
	return born, time.Time{}, true, false
}

// Name is the name an instance had when it was last present ("" for one
// the history never held).
func (h *InDomHistory) Name(id int32) string {
	if k, ok := h.latest(id); ok {
		return h.spans[k].Name
	}
	return ""
}
