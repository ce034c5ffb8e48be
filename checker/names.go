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
// An edit that adds or removes lines (an Enter) moves every metric after
// it to a copy on other lines; rather than a map of the copies (a map of
// half the file per Enter), the names keep pointing at the metrics they
// were set to and the edit's line move is recorded (moves): a look-up
// applies the moves made since the name was set to its metric's place and
// finds the copy there in the report's list (metrics), by binary search,
// as the grammar's index of names places its items (grammar/names.go).
type MetricNames struct {
	base map[string]*Metric // set before any move
	over map[string]named   // names changed since base; a nil metric: removed
	n    int
	// moves are the line moves of the edits since base, in order, and
	// metrics the list the moved metrics are found in (the report's).
	moves   []lineMove
	metrics pvec.Vec[*Metric]
}

// named is a metric set in the version that had frame moves
// (MetricNames.moves[:frame]).
type named struct {
	m     *Metric
	frame int
}

// lineMove is an edit's move: the metrics on lines from on (in the
// version before it) moved dl lines.
type lineMove struct {
	from, dl int32
}

// maxNameLayer bounds the names layered over the base before Recheck
// makes one map of them again (a copy every that many changed names);
// maxNameMoves likewise bounds the moves a look-up applies.
const (
	maxNameLayer = 1024
	maxNameMoves = 64
)

func newMetricNames() MetricNames { return newMetricNamesFor(0) }

// newMetricNamesFor is newMetricNames with room for n metrics.
func newMetricNamesFor(n int) MetricNames {
	return MetricNames{base: make(map[string]*Metric, n)}
}

// Lookup returns the metric registered under name.
func (x MetricNames) Lookup(name string) (*Metric, bool) {
	if e, ok := x.over[name]; ok {
		if e.m == nil {
			return nil, false
		}
		return x.current(name, e)
	}
	m, ok := x.base[name]
	if !ok {
		return nil, false
	}
	return x.current(name, named{m: m})
}

// current is the metric e names now: e's own unless a later move put a
// copy of it on another line.
//
// The copy is where the moves put it, by how Recheck records them: a move
// is recorded only when every metric from its line on (in the version
// before it) is copied exactly dl lines further and none before it moves
// (grammar's shift.go, moveMetrics); a metric made anew, removed or
// checked again sets or removes its name after the move, in a later
// frame, so the moves applied to a name are those of edits that moved its
// metric as a whole; and the report's list is in the order of the
// definitions, one per line, so the binary search finds the one at the
// place. Should a copy still not
// be there (a move recorded wrongly), the list is searched by name
// (TestMetricNamesWrongMove): slower, never the metric as it was set,
// whose lines are stale. ok is false when the list does not name it.
func (x MetricNames) current(name string, e named) (_ *Metric, ok bool) {
	if e.frame == len(x.moves) {
		return e.m, true
	}
	at := e.m.Def.Range.Start
	moved := false
	for _, mv := range x.moves[e.frame:] {
		if at.Line >= mv.from {
			at, moved = at.MovedBy(mv.dl), true
		}
	}
	if !moved {
		return e.m, true
	}
	k := x.metrics.Search(func(m *Metric) bool { return !m.Def.Range.Start.Before(at) })
	if k < x.metrics.Len() {
		if m := x.metrics.At(k); m.Def.Name == name && m.Def.Range.Start == at {
			return m, true
		}
	}
	for m := range x.metrics.Values() {
		if m.Def.Name == name {
			return m, true
		}
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
		for name, m := range x.base {
			if _, changed := x.over[name]; changed {
				continue
			}
			if m, ok := x.current(name, named{m: m}); ok && !yield(name, m) {
				return
			}
		}
		for name, e := range x.over {
			if e.m == nil {
				continue
			}
			if m, ok := x.current(name, e); ok && !yield(name, m) {
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
		x.over[name] = named{m: m, frame: len(x.moves)}
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
		x.over[name] = named{frame: len(x.moves)}
		return
	}
	delete(x.base, name)
}

// move records that the metrics on lines from on moved dl lines, to
// copies that the list set by listed holds; the names set after it are
// in the moved version. Only a layered MetricNames moves.
func (x *MetricNames) move(from, dl int32) {
	x.moves = append(x.moves[:len(x.moves):len(x.moves)], lineMove{from: from, dl: dl})
}

// listed says where moved metrics are: the report's list, once it holds
// them.
func (x *MetricNames) listed(metrics pvec.Vec[*Metric]) { x.metrics = metrics }

// layered is a copy of x to change by set, remove and move without
// changing x: its changes go to a layer over x's base, which is shared.
func (x MetricNames) layered() MetricNames {
	over := make(map[string]named, len(x.over)+4)
	for k, v := range x.over {
		over[k] = v
	}
	return MetricNames{base: x.base, over: over, n: x.n, moves: x.moves, metrics: x.metrics}
}

// compact makes one map of x when its layer has grown past maxNameLayer
// or its moves past maxNameMoves: with moves, of the list they are found
// in, which holds every metric of the names (one file's check).
func (x MetricNames) compact() MetricNames {
	if len(x.over) <= maxNameLayer && len(x.moves) <= maxNameMoves {
		return x
	}
	base := make(map[string]*Metric, x.n)
	if len(x.moves) > 0 {
		for m := range x.metrics.Values() {
			base[m.Def.Name] = m
		}
		return MetricNames{base: base, n: len(base)}
	}
	for name, m := range x.All() {
		base[name] = m
	}
	return MetricNames{base: base, n: len(base)}
}
