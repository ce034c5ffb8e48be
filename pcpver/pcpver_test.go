package pcpver

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Version
		err  bool
	}{
		{"6.0.3", Version{6, 0, 3}, false},
		{"6.2", Version{6, 2, 0}, false},
		{"7", Version{7, 0, 0}, false},
		{" 6.3.8-1.1 ", Version{6, 3, 8}, false},
		{"pcp6", V6_0_3, false},
		{"PCP7", Latest, false},
		{"latest", Latest, false},
		{"5.0", Version{5, 0, 0}, false},
		{"4.3.2", Version{}, true},
		{"6.x", Version{}, true},
		{"6.0.3.1", Version{}, true},
		{"", Version{}, true},
		{"-1", Version{}, true},
	} {
		got, err := Parse(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList("5.2, 6.0.3,latest,6.0.3")
	if err != nil || len(got) != 3 || got[0] != (Version{5, 2, 0}) || got[1] != V6_0_3 || got[2] != Latest {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	if all, _ := ParseList("all"); len(all) != len(Proved()) {
		t.Errorf("all = %v", all)
	}
	if _, err := ParseList("6.0,nope"); err == nil {
		t.Error("a bad member is accepted")
	}
}

// TestFeatures pins what each proved release has, the facts the
// differential tests confirm against the real libraries.
func TestFeatures(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		has     []Feature
		hasNot  []Feature
		grammar Grammar
	}{
		{V5_2_6, nil, []Feature{DimensionlessIsCount, DeltaSigned, Novalue}, Grammar60},
		{V6_0_3, []Feature{DimensionlessIsCount, DeltaSigned}, []Feature{EquivInDoms, ExprInstance, Novalue, DeltaOfExpr, InterpNearest}, Grammar60},
		{V5_3_7, []Feature{DimensionlessIsCount, DeltaSigned}, []Feature{EquivInDoms, ExprInstance, Novalue, DeltaOfExpr}, Grammar60},
		{V6_2_0, []Feature{EquivInDoms, ExprInstance}, []Feature{RateSkipsBackwards, Novalue, MetaSpec, LazyTernary, DeltaOfExpr}, Grammar60},
		{Version{6, 2, 2}, []Feature{Novalue, LazyTernary, Continuation}, []Feature{DeltaOfExpr}, Grammar622},
		{V7_0_2, []Feature{Novalue, DeltaOfExpr, InterpNearest}, []Feature{IndomSpec, UnknownOperandReported, ControlLines, ExtraUnits}, Grammar63},
		{V6_3_8, []Feature{Novalue, DeltaOfExpr, EquivInDoms, InterpNearest}, []Feature{IndomSpec, UnknownOperandReported, ControlLines}, Grammar63},
		{Version{7, 1, 0}, []Feature{IndomSpec, UnknownOperandReported}, []Feature{ControlLines, ExtraUnits}, Grammar71},
		{V7_2_2, Features(), nil, Grammar71},
	} {
		for _, f := range tc.has {
			if !tc.v.Has(f) {
				t.Errorf("%s lacks %s (since %s)", tc.v, f, f.Since())
			}
		}
		for _, f := range tc.hasNot {
			if tc.v.Has(f) {
				t.Errorf("%s has %s (since %s)", tc.v, f, f.Since())
			}
		}
		if g := tc.v.Grammar(); g != tc.grammar {
			t.Errorf("%s parses with grammar %d, want %d", tc.v, g, tc.grammar)
		}
	}
	prev := Version{}
	for _, f := range Features() {
		if f.Since().Less(prev) {
			t.Errorf("%s (%s) is listed after a newer feature", f, f.Since())
		}
		prev = f.Since()
		if f.String() == "" {
			t.Errorf("feature %d has no name", f)
		}
	}
}

// TestProved: the proved releases are distinct and oldest first (the
// compatibility matrix and "all" list them in this order), and each
// parses from its own name.
func TestProved(t *testing.T) {
	prev := Version{}
	for _, v := range Proved() {
		if !prev.Less(v) {
			t.Errorf("%s is listed after %s", v, prev)
		}
		prev = v
		if got, err := Parse(v.String()); err != nil || got != v {
			t.Errorf("Parse(%q) = %v, %v", v, got, err)
		}
	}
	if got := Proved(); got[len(got)-1] != Latest {
		t.Errorf("the newest proved release is %s, Latest is %s", got[len(got)-1], Latest)
	}
}
