package checker

import "iter"

// MetricNames maps each registered name of a check to its metric. It is
// immutable once its check returns: the map of a whole check, with the
// names later incremental checks changed layered over it, so that the
// Recheck of a keystroke copies the few names it changed, not a map of
// every definition in the file.
type MetricNames struct {
	base map[string]*Metric
	over map[string]*Metric // names changed since base; nil: removed
	n    int
}

// maxNameLayer bounds the names layered over the base before Recheck
// makes one map of them again (a copy every that many changed names).
const maxNameLayer = 1024

func newMetricNames() MetricNames { return newMetricNamesFor(0) }

// newMetricNamesFor is newMetricNames with room for n metrics.
func newMetricNamesFor(n int) MetricNames {
	return MetricNames{base: make(map[string]*Metric, n)}
}

// Lookup returns the metric registered under name.
func (x MetricNames) Lookup(name string) (*Metric, bool) {
	if m, ok := x.over[name]; ok {
		return m, m != nil
	}
	m, ok := x.base[name]
	return m, ok
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
		for name, m := range x.base {
			if _, changed := x.over[name]; changed {
				continue
			}
			if !yield(name, m) {
				return
			}
		}
		for name, m := range x.over {
			if m != nil && !yield(name, m) {
				return
			}
		}
	}
}

// set registers m under name, while a check builds its report.
func (x *MetricNames) set(name string, m *Metric) {
	if _, ok := x.Lookup(name); !ok {
		x.n++
	}
	if x.over != nil {
		x.over[name] = m
		return
	}
	x.base[name] = m
}

// remove drops name, while a check builds its report.
func (x *MetricNames) remove(name string) {
	if _, ok := x.Lookup(name); !ok {
		return
	}
	x.n--
	if x.over != nil {
		x.over[name] = nil
		return
	}
	delete(x.base, name)
}

// layered is a copy of x to change by set and remove without changing
// x: its changes go to a layer over x's base, which is shared.
func (x MetricNames) layered() MetricNames {
	over := make(map[string]*Metric, len(x.over)+4)
	for k, v := range x.over {
		over[k] = v
	}
	return MetricNames{base: x.base, over: over, n: x.n}
}

// compact makes one map of x when its layer has grown past
// maxNameLayer.
func (x MetricNames) compact() MetricNames {
	if len(x.over) <= maxNameLayer {
		return x
	}
	base := make(map[string]*Metric, x.n)
	for name, m := range x.All() {
		base[name] = m
	}
	return MetricNames{base: base, n: len(base)}
}
