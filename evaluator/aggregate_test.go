package evaluator

import (
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// TestFormatAggregate: pmPrintValue's forms of an aggregate, by length
// and content.
func TestFormatAggregate(t *testing.T) {
	for _, tc := range []struct {
		blob []byte
		want string
	}{
		{[]byte("hullo world!"), `"hullo world!" [68756c6c6f20776f726c6421]`},
		{nil, `"" []`},
		{[]byte("13"), `"13" [3133]`},
		{[]byte{0, 0, 0x80, 0x3f}, `1 [0000803f]`}, // the float 1, not printable
		{[]byte{0, 0, 0xc0, 0x7f}, `[0000c07f]`},   // a float NaN
		{[]byte("abcdefgh"), `7523094288207667809 8.540883223036124e+194 "abcdefgh" [6162636465666768]`}, // 8 bytes: integer, double, string
		{[]byte{1, 2, 3}, `[010203]`},
	} {
		if got := Format(pmapi.TypeAggregate, pmapi.Value{Blob: tc.blob}); got != tc.want {
			t.Errorf("Format(% x) = %s, want %s", tc.blob, got, tc.want)
		}
	}
}
