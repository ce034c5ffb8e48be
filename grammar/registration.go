package grammar

// Registration is what the file does with a name, from its index of
// names (kept up to date per edit, so the cost does not grow with the
// file): the definition libpcp registers under it (nil for none) and the
// attribute lines of it libpcp applies, in file order.
func (f *File) Registration(name string) (*Definition, []*Attribute) {
	nf := f.names().facts(name)
	if nf == nil {
		return nil, nil
	}
	return nf.registered, nf.applied
}
