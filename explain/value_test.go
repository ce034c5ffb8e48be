package explain

import (
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// TestValueRaw: a Value gives back the evaluator's value it was made of,
// at every numeric type's extremes and for a string, and its text is
// pminfo's.
func TestValueRaw(t *testing.T) {
	for _, tc := range []struct {
		typ  pmapi.Type
		v    evaluator.Value
		text string
	}{
		{pmapi.Type32, evaluator.Value{Inst: -1, Int: math.MinInt32}, "-2147483648"},
		{pmapi.Type64, evaluator.Value{Inst: 3, Int: math.MinInt64}, "-9223372036854775808"},
		{pmapi.TypeU32, evaluator.Value{Inst: 0, Uint: math.MaxUint32}, "4294967295"},
		{pmapi.TypeU64, evaluator.Value{Inst: 7, Uint: math.MaxUint64}, "18446744073709551615"},
		{pmapi.TypeFloat, evaluator.Value{Inst: -1, Float: float64(float32(1.5))}, "1.5"},
		{pmapi.TypeDouble, evaluator.Value{Inst: -1, Float: math.Inf(-1)}, "-inf"},
		{pmapi.TypeDouble, evaluator.Value{Inst: -1, Float: 0.1 + 0.2}, "0.3"},
		{pmapi.TypeString, evaluator.Value{Inst: 2, String: "a \"quoted\" one"}, "a \"quoted\" one"},
	} {
		got := makeValue(tc.typ, tc.v)
		if got.Text != tc.text {
			t.Errorf("%v %+v: text %q, want %q", tc.typ, tc.v, got.Text, tc.text)
		}
		if got.Number != tc.typ.Arithmetic() {
			t.Errorf("%v %+v: Number %v", tc.typ, tc.v, got.Number)
		}
		if raw := got.Raw(); !reflect.DeepEqual(raw, tc.v) {
			t.Errorf("%v: Raw() = %+v, want %+v", tc.typ, raw, tc.v)
		}
	}
}

// TestValueSize holds a Value to 48 bytes: a big expression has one per
// node and instance (it was 112 with the evaluator's value inside).
func TestValueSize(t *testing.T) {
	if size := unsafe.Sizeof(Value{}); size > 48 {
		t.Errorf("a Value is %d bytes, want at most 48", size)
	}
}
