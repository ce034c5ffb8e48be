package analysis

import "github.com/pcp-derive-lsp/pcp-derive-lsp/checker"

// Users are the metrics of a checked one-file analysis whose expressions
// name op, from the index of which metrics use which that Recheck keeps
// up to date per edit (built now, once, when Prepare has not yet); ok is
// false when there is no such index (no check, or several files).
func (r *Result) Users(op string) (_ []string, ok bool) {
	if r.Report == nil || r.refs == nil {
		return nil, false
	}
	refs := r.refs.load()
	if refs == nil {
		r.refs.p.CompareAndSwap(nil, checker.NewRefs(r.Report))
		refs = r.refs.load()
	}
	return refs.Users(op), true
}
