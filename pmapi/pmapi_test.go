package pmapi

import "testing"

// Every type's pmTypeStr name reads back as the type, and ParseType takes
// nothing else: other cases and spellings are for callers to translate.
func TestTypeNames(t *testing.T) {
	cases := []struct {
		typ  Type
		name string
	}{
		{TypeNoSupport, "NO_SUPPORT"}, {Type32, "32"}, {TypeU32, "U32"}, {Type64, "64"}, {TypeU64, "U64"},
		{TypeFloat, "FLOAT"}, {TypeDouble, "DOUBLE"}, {TypeString, "STRING"}, {TypeAggregate, "AGGREGATE"},
		{TypeAggregateStatic, "AGGREGATE_STATIC"}, {TypeEvent, "EVENT"}, {TypeHighresEvent, "HIGHRES_EVENT"},
		{TypeUnknown, "UNKNOWN"},
	}
	for _, c := range cases {
		if got := c.typ.String(); got != c.name {
			t.Errorf("Type(%d).String() = %q, want %q", int32(c.typ), got, c.name)
		}
		if got, ok := ParseType(c.name); !ok || got != c.typ {
			t.Errorf("ParseType(%q) = %d, %v; want %d", c.name, int32(got), ok, int32(c.typ))
		}
	}
	// The numbers are pmapi.h's: they travel in PDUs and archives.
	if Type32 != 0 || TypeDouble != 5 || TypeHighresEvent != 10 || TypeUnknown != 255 || TypeNoSupport != -1 {
		t.Errorf("type numbers moved: 32=%d DOUBLE=%d HIGHRES_EVENT=%d", Type32, TypeDouble, TypeHighresEvent)
	}
	for _, bad := range []string{"", "u32", "double", "???", "11", "NOSUPPORT", " 32"} {
		if got, ok := ParseType(bad); ok {
			t.Errorf("ParseType(%q) = %d, want no type", bad, int32(got))
		}
	}
	if got := Type(11).String(); got != "???" {
		t.Errorf("Type(11).String() = %q, want ???", got)
	}
}

// The three semantics read back from their names; anything else is
// "unknown (N)" when written and refused when read.
func TestSemNames(t *testing.T) {
	cases := []struct {
		sem  Sem
		name string
	}{{SemCounter, "counter"}, {SemInstant, "instant"}, {SemDiscrete, "discrete"}}
	for _, c := range cases {
		if got := c.sem.String(); got != c.name {
			t.Errorf("Sem(%d).String() = %q, want %q", int32(c.sem), got, c.name)
		}
		if got, ok := ParseSem(c.name); !ok || got != c.sem {
			t.Errorf("ParseSem(%q) = %d, %v; want %d", c.name, int32(got), ok, int32(c.sem))
		}
	}
	if got := Sem(0).String(); got != "unknown (0)" {
		t.Errorf("Sem(0).String() = %q", got)
	}
	for _, bad := range []string{"", "Counter", "unknown (0)", "0", "rate", "???"} {
		if got, ok := ParseSem(bad); ok {
			t.Errorf("ParseSem(%q) = %d, want no semantics", bad, int32(got))
		}
	}
}

func TestParsePMIDAndInDom(t *testing.T) {
	pmids := []struct {
		in   string
		want PMID
		ok   bool
	}{
		{"60.2.0", NewPMID(60, 2, 0), true},
		{"0.0.0", 0, true},
		{"511.4095.1023", NewPMID(511, 4095, 1023), true},
		{"29.0.6", NewPMID(29, 0, 6), true},
		{"60.2", 0, false},
		{"60.2.0.1", 0, false},
		{"60.x.0", 0, false},
		{"-1.0.0", 0, false},
		{"", 0, false},
	}
	for _, c := range pmids {
		got, err := ParsePMID(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParsePMID(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if c.ok && got.String() != c.in {
			t.Errorf("ParsePMID(%q).String() = %q", c.in, got)
		}
	}
	indoms := []struct {
		in   string
		want InDom
		ok   bool
	}{
		{"60.2", NewInDom(60, 2), true},
		{"29.2", NewInDom(29, 2), true},
		{"511.4194303", NewInDom(511, 4194303), true},
		{"60", 0, false},
		{"60.", 0, false},
		{".2", 0, false},
		{"60.2.1", 0, false},
		{"none", 0, false},
	}
	for _, c := range indoms {
		got, err := ParseInDom(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseInDom(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if c.ok && got.String() != c.in {
			t.Errorf("ParseInDom(%q).String() = %q", c.in, got)
		}
	}
}
