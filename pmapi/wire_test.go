package pmapi

import "testing"

// Wire and UnitsFromWire are inverses over every field's range.
func TestUnitsWireRoundTrip(t *testing.T) {
	for _, u := range []Units{
		{},
		{DimSpace: 1, DimTime: -1, ScaleSpace: SpaceKByte, ScaleTime: TimeSec},
		{DimCount: 1, ScaleCount: -3},
		{DimSpace: -8, DimTime: 7, DimCount: -1, ScaleSpace: 15, ScaleTime: 15, ScaleCount: 7},
		{ExtraUnit: -16, ExtraScale: 7},
		{ExtraUnit: 15, ExtraScale: 1, DimTime: -1, ScaleTime: TimeSec},
	} {
		if got := UnitsFromWire(u.Wire()); got != u {
			t.Errorf("%+v: round trip gives %+v", u, got)
		}
	}
	for _, w := range []uint32{0, 0x10f03000, 0xffffffff, 0x12345678} {
		if got := UnitsFromWire(w).Wire(); got != w {
			t.Errorf("%#x: round trip gives %#x", w, got)
		}
	}
}
