package grammar

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"

// EachToken calls f with each token Tokens would return, the end of the
// string included, without making the list: a caller that reads each
// token once (the words a check looks up) allocates nothing for them.
func EachToken(src string, v pcpver.Version, flag bool, f func(Token)) {
	it := newTokenIter(src, v, flag)
	for {
		t := it.next()
		f(t)
		if t.Kind == TokEOS {
			return
		}
	}
}
