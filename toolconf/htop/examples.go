package htop

import "github.com/pcp-derive-lsp/pcp-derive-lsp/codes"

// ExampleKind is the kind of file each code's Example is (a meter file
// unless listed), for the analysis' example test: check it as
// /etc/pcp/htop/KIND.Dir()/example.
func ExampleKind(code string) Kind {
	switch code {
	case codes.HtopBadWidth, codes.HtopBadValue:
		return Column
	case codes.HtopScreenColumnName:
		return Screen
	}
	return Meter
}
