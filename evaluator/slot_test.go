package evaluator

import (
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// TestSlotSize holds a plan's slot to 40 bytes: a big expression has one
// per node (a 262,143-node tree's plan was 66 MB at 176 bytes a slot, 14
// MB at 56).
func TestSlotSize(t *testing.T) {
	if size := unsafe.Sizeof(slot{}); size > 40 {
		t.Errorf("a slot is %d bytes, want at most 40", size)
	}
}

// TestConstantWord: a constant's value survives its word at every type's
// extremes, and a type without a word comes back as zero.
func TestConstantWord(t *testing.T) {
	for _, tc := range []struct {
		typ pmapi.Type
		v   Value
	}{
		{pmapi.Type32, Value{Inst: pmapi.InNull, Int: math.MinInt32}},
		{pmapi.Type64, Value{Inst: pmapi.InNull, Int: math.MinInt64}},
		{pmapi.TypeU32, Value{Inst: pmapi.InNull, Uint: math.MaxUint32}},
		{pmapi.TypeU64, Value{Inst: pmapi.InNull, Uint: math.MaxUint64}},
		{pmapi.TypeFloat, Value{Inst: pmapi.InNull, Float: float64(float32(0.1))}},
		{pmapi.TypeDouble, Value{Inst: pmapi.InNull, Float: math.Copysign(0, -1)}},
		{pmapi.TypeString, Value{Inst: pmapi.InNull}},
	} {
		got := valueOfWord(tc.typ, wordOf(tc.typ, tc.v))
		if !reflect.DeepEqual(got, tc.v) || math.Signbit(got.Float) != math.Signbit(tc.v.Float) {
			t.Errorf("%v: %+v came back as %+v", tc.typ, tc.v, got)
		}
	}
}
