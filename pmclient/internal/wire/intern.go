package wire

// Interning bounds: the strings a Decoder keeps for sharing, in number and
// in bytes. Past them new strings are copied as usual.
const (
	maxInterned      = 4096
	maxInternedBytes = 1 << 20
	maxInternedLen   = 256 // longer strings are rarely repeated
)

// interner shares the strings a Decoder has decoded before: archives and
// fetches repeat the same string values (versions, states, names) record
// after record, and a shared string costs nothing more.
type interner struct {
	m     map[string]string
	bytes int
}

// string returns b as a string: one interned before, or a new copy charged
// against the decode's budget (d may be nil: no interning, no charge).
func (d *Decoder) string(b []byte) string {
	if d == nil {
		return string(b)
	}
	in := &d.strings
	if s, ok := in.m[string(b)]; ok { // no allocation for the lookup
		return s
	}
	d.charge(len(b))
	s := string(b)
	if len(b) <= maxInternedLen && len(in.m) < maxInterned && in.bytes+len(b) <= maxInternedBytes {
		if in.m == nil {
			in.m = map[string]string{}
		}
		in.m[s] = s
		in.bytes += len(s)
	}
	return s
}
