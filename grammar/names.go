package grammar

import (
	"slices"
	"strings"
	"sync"
)

// nameIndex says, for each name, which definition of a file registers
// it and which of its attribute lines libpcp applies, and where the first
// quoted value over several lines is: what Reparse must know of the lines
// before an edited one, without reading them (a keystroke's cost would
// otherwise grow with the file). It is immutable: a base built from a
// whole file and the names edits changed since, layered over it, like
// the checker's index of which metrics use which. It holds places, not
// the items: an edit that adds or removes lines moves those after it
// (moves), without a pass over the index.
type nameIndex struct {
	base *nameBase
	over map[string]*nameFacts
	// multiLine is where the file's first attribute whose value runs
	// over several lines is (libpcp's line count may differ after it),
	// or nil.
	multiLine *placed
	// moves are the line moves of the edits since the base, in order.
	moves []lineMove
}

// placed is where an item of the index starts, in the text of the
// version that had frame moves (nameIndex.moves[:frame]).
type placed struct {
	at    Pos
	frame int
	attr  string // an attribute line's attribute
}

// lineMove is an edit's move: lines from (1-based) on moved by dl.
type lineMove struct {
	from, dl int32
}

// pos is where p is in the index's version.
func (ix *nameIndex) pos(p placed) Pos {
	for _, m := range ix.moves[p.frame:] {
		if p.at.Line >= m.from {
			p.at.Line += m.dl
		}
	}
	return p.at
}

// place is where an item at at, in the index's version, is.
func (ix *nameIndex) place(at Pos, attr string) placed {
	return placed{at: at, frame: len(ix.moves), attr: attr}
}

// nameBase is the index of a whole file, shared by the versions edits
// made of it, with its registered names in order built on first use
// (completion's prefix search).
type nameBase struct {
	m      map[string]*nameFacts
	once   sync.Once
	sorted []string
}

// registeredSorted are the base's registered names, in order.
func (b *nameBase) registeredSorted() []string {
	b.once.Do(func() {
		for name, nf := range b.m {
			if nf.registered != nil {
				b.sorted = append(b.sorted, name)
			}
		}
		slices.Sort(b.sorted)
	})
	return b.sorted
}

// nameFacts are what a file says of one name.
type nameFacts struct {
	registered *placed  // the definition libpcp registers, or nil
	applied    []placed // the attribute lines libpcp applies, in order
}

// maxNameOverlay bounds the names changed since the base was built;
// past it the next Reparse builds the index from its file again.
const maxNameOverlay = 256

func buildNameIndex(f *File) *nameIndex {
	ix := &nameIndex{base: &nameBase{m: make(map[string]*nameFacts, f.Definitions.Len())}}
	facts := func(name string) *nameFacts {
		nf := ix.base.m[name]
		if nf == nil {
			nf = &nameFacts{}
			ix.base.m[name] = nf
		}
		return nf
	}
	for _, d := range f.Definitions.All() {
		if d.Registered {
			p := ix.place(d.Range.Start, "")
			facts(d.Name).registered = &p
		}
	}
	for _, a := range f.Attributes {
		if a.Applied {
			nf := facts(a.Metric)
			nf.applied = append(nf.applied, ix.place(a.Range.Start, a.Attr))
		}
		if ix.multiLine == nil && multiLine(a) {
			p := ix.place(a.Range.Start, a.Attr)
			ix.multiLine = &p
		}
	}
	return ix
}

// PrepareReparse builds now what the first Reparse of f builds (its
// index of names: 24 ms at 100,000 lines), for a caller with time to
// spare, as an editor has after a document opens. Safe for concurrent
// use.
func (f *File) PrepareReparse() { f.names() }

// names returns the file's index, building it on first use.
func (f *File) names() *nameIndex {
	if ix := f.nameIx.Load(); ix != nil {
		return ix
	}
	ix := buildNameIndex(f)
	f.nameIx.CompareAndSwap(nil, ix)
	return f.nameIx.Load()
}

func (ix *nameIndex) facts(name string) *nameFacts {
	if nf, ok := ix.over[name]; ok {
		return nf
	}
	return ix.base.m[name]
}

// RegisteredWithPrefix lists, in order, the names f's definitions
// register that start with prefix: completion's derived names, found in
// the file's name index instead of by reading every definition.
func (f *File) RegisteredWithPrefix(prefix string) []string {
	ix := f.names()
	sorted := ix.base.registeredSorted()
	var out []string
	for i, _ := slices.BinarySearch(sorted, prefix); i < len(sorted) && strings.HasPrefix(sorted[i], prefix); i++ {
		if _, changed := ix.over[sorted[i]]; !changed {
			out = append(out, sorted[i])
		}
	}
	for name, nf := range ix.over {
		if nf.registered != nil && strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// registeredBefore says whether libpcp has name registered before pos.
func (ix *nameIndex) registeredBefore(name string, pos Pos) bool {
	for _, n := range builtinDerived {
		if n == name {
			return true
		}
	}
	nf := ix.facts(name)
	return nf != nil && nf.registered != nil && ix.pos(*nf.registered).Before(pos)
}

// appliedBefore are the attributes libpcp set for name before pos.
func (ix *nameIndex) appliedBefore(name string, pos Pos) map[string]bool {
	var set map[string]bool
	if nf := ix.facts(name); nf != nil {
		for _, a := range nf.applied {
			if ix.pos(a).Before(pos) {
				if set == nil {
					set = map[string]bool{}
				}
				set[a.attr] = true
			}
		}
	}
	return set
}

// multiLineBefore says whether a quoted value over several lines starts
// before pos.
func (ix *nameIndex) multiLineBefore(pos Pos) bool {
	return ix.multiLine != nil && ix.pos(*ix.multiLine).Before(pos)
}

// edited is the index after some lines' definitions and attributes were
// replaced (gone by old, come by new) and the lines after them moved by
// mv (none when mv.dl is 0); the other lines keep theirs. It is nil when
// too many names changed, or edits moved lines, since the base: the file
// builds its own then.
func (ix *nameIndex) edited(oldDefs, newDefs []*Definition, oldAttrs, newAttrs []*Attribute, mv lineMove) *nameIndex {
	next := &nameIndex{base: ix.base, over: make(map[string]*nameFacts, len(ix.over)+2), multiLine: ix.multiLine, moves: ix.moves}
	if mv.dl != 0 {
		next.moves = append(slices.Clip(ix.moves), mv)
	}
	for k, v := range ix.over {
		next.over[k] = v
	}
	touch := func(name string) *nameFacts {
		if nf, ok := next.over[name]; ok && nf != ix.over[name] {
			return nf // already copied in this edit
		}
		nf := &nameFacts{}
		if old := ix.facts(name); old != nil {
			nf.registered, nf.applied = old.registered, slices.Clone(old.applied)
		}
		next.over[name] = nf
		return nf
	}
	// What the lines made before is placed in ix's version, what they
	// make in next's.
	for _, d := range oldDefs {
		if nf := touch(d.Name); nf.registered != nil && ix.pos(*nf.registered) == d.Range.Start {
			nf.registered = nil
		}
	}
	for _, a := range oldAttrs {
		nf := touch(a.Metric)
		nf.applied = slices.DeleteFunc(nf.applied, func(b placed) bool { return ix.pos(b) == a.Range.Start })
	}
	for _, d := range newDefs {
		if nf := touch(d.Name); d.Registered {
			p := next.place(d.Range.Start, "")
			nf.registered = &p
		}
	}
	for _, a := range newAttrs {
		if !a.Applied {
			continue
		}
		nf := touch(a.Metric)
		// In file order: the lines' attributes go before those after them.
		i := len(nf.applied)
		for i > 0 && a.Range.Start.Before(next.pos(nf.applied[i-1])) {
			i--
		}
		nf.applied = slices.Insert(nf.applied, i, next.place(a.Range.Start, a.Attr))
	}
	if len(next.over) > maxNameOverlay || len(next.moves) > maxNameOverlay {
		return nil
	}
	return next
}
