package checker

import (
	"iter"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
)

// MetricNames maps each registered name of a check to its metric. It is
// immutable once its check returns: the map of a whole check, with the
// names later incremental checks changed layered over it, so that the
// Recheck of a keystroke copies the few names it changed, not a map of
// every definition in the file.
//
// A name holds its metric's index in the report's list (metrics), not the
// metric: an edit that adds or removes lines (an Enter) replaces every
// metric after it by a copy on other lines, in the same place of the
// list, and a name that pointed at the metric would keep the version it
// was set in alive (its metrics and, through them, their definitions;
// docs/limits.md has the figures). An edit that adds or removes metrics shifts
// the indexes after it; the shift is recorded (shifts), and a look-up
// applies the shifts made since its name was set, as the grammar's index
// of names places its items (grammar/names.go).
type MetricNames struct {
	base map[string]int32 // set before any shift
	over map[string]named // names changed since base
	n    int
	// shifts are the index shifts of the edits since base, in order, and
	// metrics the list the indexes are of (the report's).
	shifts  []indexShift
	metrics pvec.Vec[*Metric]
}

// named is a metric's index in the version that had frame shifts
// (MetricNames.shifts[:frame]); an index below 0: the name was removed.
type named struct {
	at, frame int32
}

// indexShift is an edit's shift: the metrics from index from on (in the
// version before it) moved by d places.
type indexShift struct {
	from, d int32
}

// maxNameLayer bounds the names layered over the base before Recheck
// makes one map of them again (a copy every that many changed names);
// maxNameShifts likewise bounds the shifts a look-up applies.
const (
	maxNameLayer  = 1024
	maxNameShifts = 64
)

func newMetricNames() MetricNames { return newMetricNamesFor(0) }

// newMetricNamesFor is newMetricNames with room for n metrics.
func newMetricNamesFor(n int) MetricNames {
	return MetricNames{base: make(map[string]int32, n)}
}

// Lookup returns the metric registered under name.
func (x MetricNames) Lookup(name string) (*Metric, bool) {
	e, ok := x.entry(name)
	if !ok {
		return nil, false
	}
	return x.current(name, e)
}

// entry is name's index as it was set, and whether name is registered.
func (x MetricNames) entry(name string) (named, bool) {
	if e, ok := x.over[name]; ok {
		return e, e.at >= 0
	}
	at, ok := x.base[name]
	return named{at: at}, ok
}

// current is the metric e names now: the one at its index after the
// shifts made since it was set. ok is false when the list has another
// metric there (a shift recorded wrongly, or a list not yet listed).
func (x MetricNames) current(name string, e named) (*Metric, bool) {
	at := e.at
	for _, s := range x.shifts[e.frame:] {
		if at >= s.from {
			at += s.d
		}
	}
	if at < 0 || int(at) >= x.metrics.Len() {
		return nil, false
	}
	if m := x.metrics.At(int(at)); m.Def.Name == name {
		return m, true
	}
	return nil, false
}

// Metric returns the metric registered under name, nil for none.
func (x MetricNames) Metric(name string) *Metric {
	m, _ := x.Lookup(name)
	return m
}

// Len is the number of names.
func (x MetricNames) Len() int { return x.n }

// All yields every name and its metric, in no particular order.
func (x MetricNames) All() iter.Seq2[string, *Metric] {
	return func(yield func(string, *Metric) bool) {
		for name, at := range x.base {
			if _, changed := x.over[name]; changed {
				continue
			}
			if m, ok := x.current(name, named{at: at}); ok && !yield(name, m) {
				return
			}
		}
		for name, e := range x.over {
			if e.at < 0 {
				continue
			}
			if m, ok := x.current(name, e); ok && !yield(name, m) {
				return
			}
		}
	}
}

// set registers the metric at index at of the list under name, while a
// check builds its report.
func (x *MetricNames) set(name string, at int) {
	if _, ok := x.entry(name); !ok {
		x.n++
	}
	if x.over != nil {
		x.over[name] = named{at: int32(at), frame: int32(len(x.shifts))}
		return
	}
	x.base[name] = int32(at)
}

// remove drops name, while a check builds its report.
func (x *MetricNames) remove(name string) {
	if _, ok := x.entry(name); !ok {
		return
	}
	x.n--
	if x.over != nil {
		x.over[name] = named{at: -1, frame: int32(len(x.shifts))}
		return
	}
	delete(x.base, name)
}

// shift records that the metrics from index from on moved by d places in
// the list that listed sets next; the names set after it are indexes of
// that list. Only a layered MetricNames shifts.
func (x *MetricNames) shift(from, d int) {
	if d == 0 {
		return
	}
	x.shifts = append(x.shifts[:len(x.shifts):len(x.shifts)], indexShift{from: int32(from), d: int32(d)})
}

// listed sets the list the names' indexes are of: the report's, once it
// holds their metrics.
func (x *MetricNames) listed(metrics pvec.Vec[*Metric]) { x.metrics = metrics }

// layered is a copy of x to change by set, remove and shift without
// changing x: its changes go to a layer over x's base, which is shared.
func (x MetricNames) layered() MetricNames {
	over := make(map[string]named, len(x.over)+4)
	for k, v := range x.over {
		over[k] = v
	}
	return MetricNames{base: x.base, over: over, n: x.n, shifts: x.shifts, metrics: x.metrics}
}

// compact makes one map of x when its layer has grown past maxNameLayer
// or its shifts past maxNameShifts: each name's index in today's list.
func (x MetricNames) compact() MetricNames {
	if len(x.over) <= maxNameLayer && len(x.shifts) <= maxNameShifts {
		return x
	}
	base := make(map[string]int32, x.n)
	for k, m := range x.metrics.All() {
		if got, ok := x.Lookup(m.Def.Name); ok && got == m {
			base[m.Def.Name] = int32(k)
		}
	}
	return MetricNames{base: base, n: len(base), metrics: x.metrics}
}
