package lsp

import (
	"sort"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// nameLookup is a fileIndex's occurrences grouped by name: what a
// request about one name (document highlight, call hierarchy) reads, in
// time proportional to its answer rather than to the file.
type nameLookup struct {
	ids  map[string]uint32 // name → index into fileIndex.names
	defs [][]int32         // by name: indexes into fileIndex.defs, in file order
	uses [][]int32         // by name: indexes into fileIndex.uses, in index order
}

// lookupCell builds a file's nameLookup once, on first use: most indexes
// (a scanned config nobody asks about) never need one.
type lookupCell struct {
	once sync.Once
	l    *nameLookup
}

// lookupByName is the index's occurrences by name.
func (ix *fileIndex) lookupByName() *nameLookup {
	ix.byName.once.Do(func() {
		l := &nameLookup{ids: make(map[string]uint32, len(ix.names)), defs: make([][]int32, len(ix.names)), uses: make([][]int32, len(ix.names))}
		for i, n := range ix.names {
			l.ids[n] = uint32(i)
		}
		for i, o := range ix.defs {
			l.defs[o.name] = append(l.defs[o.name], int32(i))
		}
		for i, o := range ix.uses {
			l.uses[o.name] = append(l.uses[o.name], int32(i))
		}
		ix.byName.l = l
	})
	return ix.byName.l
}

// defIndexes are the indexes in ix.defs of name's definitions, in file
// order.
func (ix *fileIndex) defIndexes(name string) []int32 {
	l := ix.lookupByName()
	if id, ok := l.ids[name]; ok {
		return l.defs[id]
	}
	return nil
}

// defsOf are the definitions of name in the file, in file order.
func (ix *fileIndex) defsOf(name string) []occurrence {
	ks := ix.defIndexes(name)
	out := make([]occurrence, len(ks))
	for j, k := range ks {
		out[j] = ix.defs[k]
	}
	return out
}

// usesOf are name's uses in the file's expressions (the first list) and
// attribute lines (the second), each in file order.
func (ix *fileIndex) usesOf(name string) (expr, attrs []occurrence) {
	l := ix.lookupByName()
	id, ok := l.ids[name]
	if !ok {
		return nil, nil
	}
	for _, i := range l.uses[id] {
		if int(i) < ix.exprUses {
			expr = append(expr, ix.uses[i])
		} else {
			attrs = append(attrs, ix.uses[i])
		}
	}
	return expr, attrs
}

// enclosingDef is the definition whose expression holds the use at
// position p (a use in an expression comes after its definition's name,
// before the next definition's), false when no definition comes before p.
func (ix *fileIndex) enclosingDef(p protocol.Position) (occurrence, bool) {
	i := sort.Search(len(ix.defs), func(i int) bool { return !before(ix.defs[i].rng.Start, p) }) - 1
	if i < 0 {
		return occurrence{}, false
	}
	return ix.defs[i], true
}

// usesIn are the uses in the expression of the definition at index k of
// ix.defs, in file order.
func (ix *fileIndex) usesIn(k int) []occurrence {
	from := ix.defs[k].rng.Start
	uses := ix.uses[:ix.exprUses]
	lo := sort.Search(len(uses), func(i int) bool { return !before(uses[i].rng.Start, from) })
	hi := len(uses)
	if k+1 < len(ix.defs) {
		to := ix.defs[k+1].rng.Start
		hi = lo + sort.Search(len(uses)-lo, func(i int) bool { return !before(uses[lo+i].rng.Start, to) })
	}
	return uses[lo:hi]
}

// defIndex is the index in ix.defs of the definition whose name is at r,
// or -1.
func (ix *fileIndex) defIndex(r protocol.Range) int {
	i := sort.Search(len(ix.defs), func(i int) bool { return !before(ix.defs[i].rng.Start, r.Start) })
	if i < len(ix.defs) && ix.defs[i].rng == r {
		return i
	}
	return -1
}

// before orders positions.
func before(a, b protocol.Position) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Character < b.Character)
}

// indexCell holds a snapshot's fileIndex, made once on first use.
type indexCell struct {
	once sync.Once
	ix   *fileIndex
}

// index is the snapshot's document as the workspace indexes a config:
// where each name is defined and used. Made on the first request about a
// name in this version (a pass over the file), then shared by the next.
func (s *snapshot) index() *fileIndex {
	s.occ.once.Do(func() { s.occ.ix = indexFile(s.file) })
	return s.occ.ix
}

// closedFiles are the indexes of the workspace's configs that are not
// open (open lists those that are), in a stable order: an open
// document's own index is not brought up to date for them.
func (w *workspace) closedFiles(open map[uri.URI]bool) []wsFile {
	w.mu.Lock()
	defer w.mu.Unlock()
	for u, f := range w.pending {
		if !open[u] { // closed since its last parse
			w.files[u] = indexFile(f)
			delete(w.pending, u)
		}
	}
	out := make([]wsFile, 0, len(w.files))
	for u, f := range w.files {
		if !open[u] {
			out = append(out, wsFile{u, f})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].uri < out[j].uri })
	return out
}
