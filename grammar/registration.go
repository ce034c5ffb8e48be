package grammar

import "slices"

// Registration is what the file does with a name, from its index of
// names (kept up to date per edit, so the cost does not grow with the
// file): the definition libpcp registers under it (nil for none) and the
// attribute lines of it libpcp applies, in file order.
func (f *File) Registration(name string) (def *Definition, attrs []*Attribute) {
	ix := f.names()
	nf := ix.facts(name)
	if nf == nil {
		return nil, nil
	}
	// The index holds places: the items there are f's.
	if nf.registered != nil {
		def = f.DefinitionAtPos(ix.pos(*nf.registered))
	}
	for _, p := range nf.applied {
		at := ix.pos(p)
		if i, ok := slices.BinarySearchFunc(f.Attributes, at, func(a *Attribute, at Pos) int { return a.Range.Start.Compare(at) }); ok {
			attrs = append(attrs, f.Attributes[i])
		}
	}
	return def, attrs
}
