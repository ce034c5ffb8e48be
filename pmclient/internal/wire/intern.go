package wire

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"

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

// maxBoxedErrors bounds the error codes a Decoder keeps boxed.
const maxBoxedErrors = 16

// boxedError is an error code and the error value made of it once.
type boxedError struct {
	code int32
	err  error
}

// errorOf is pmclient.Error(code) as an error. Storing a code in an error
// interface allocates, and a metric that has no values (PM_ERR_VALUE,
// PM_ERR_AGAIN) usually has the same code fetch after fetch: the codes
// seen, a handful, are boxed once and shared.
func (d *Decoder) errorOf(code int32) error {
	for _, e := range d.errs {
		if e.code == code {
			return e.err
		}
	}
	err := error(pmclient.Error(code))
	if len(d.errs) < maxBoxedErrors {
		d.errs = append(d.errs, boxedError{code, err})
	}
	return err
}
