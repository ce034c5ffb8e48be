package pmapi

import (
	"fmt"
	"testing"
)

// Every type's pmTypeStr name reads back as the type, and ParseType takes
// nothing else: other cases and spellings are for callers to translate.
func TestTypeNames(t *testing.T) {
	var names []string
	for typ := TypeNoSupport; typ <= TypeUnknown; typ++ {
		name := typ.String()
		if got, ok := ParseType(name); ok != (name != "???") || ok && got != typ {
			t.Errorf("ParseType(%q) = %d, %v; want %d", name, int32(got), ok, int32(typ))
		}
		if name != "???" {
			names = append(names, name)
		}
	}
	// pmTypeStr's spellings, in pmapi.h's order (its numbers travel in
	// PDUs and archives).
	const want = "[NO_SUPPORT 32 U32 64 U64 FLOAT DOUBLE STRING AGGREGATE AGGREGATE_STATIC EVENT HIGHRES_EVENT UNKNOWN]"
	if got := fmt.Sprint(names); got != want {
		t.Errorf("type names %s, want %s", got, want)
	}
	if Type32 != 0 || TypeDouble != 5 || TypeHighresEvent != 10 || TypeUnknown != 255 || TypeNoSupport != -1 {
		t.Errorf("type numbers moved: 32=%d DOUBLE=%d HIGHRES_EVENT=%d", Type32, TypeDouble, TypeHighresEvent)
	}
	for _, bad := range []string{"", "u32", "double", "???", "11", "NOSUPPORT", " 32"} {
		if got, ok := ParseType(bad); ok {
			t.Errorf("ParseType(%q) = %d, want no type", bad, int32(got))
		}
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

// ParsePMID and ParseInDom read what PMID.String and InDom.String write,
// and refuse anything else.
func TestParsePMIDAndInDom(t *testing.T) {
	check := func(call, in string, got fmt.Stringer, err error, want string) {
		t.Helper()
		if err != nil {
			if want != "error" {
				t.Errorf("%s(%q): %v, want %s", call, in, err, want)
			}
		} else if got.String() != want {
			t.Errorf("%s(%q) = %s, want %s", call, in, got, want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"60.2.0", "60.2.0"}, {"0.0.0", "0.0.0"}, {"511.4095.1023", "511.4095.1023"}, {"29.0.6", "29.0.6"},
		{"60.2", "error"}, {"60.2.0.1", "error"}, {"60.x.0", "error"}, {"-1.0.0", "error"}, {"", "error"},
	} {
		pmid, err := ParsePMID(c.in)
		check("ParsePMID", c.in, pmid, err, c.want)
	}
	for _, c := range []struct{ in, want string }{
		{"60.2", "60.2"}, {"29.2", "29.2"}, {"511.4194303", "511.4194303"},
		{"60", "error"}, {"60.", "error"}, {".2", "error"}, {"60.2.1", "error"}, {"none", "error"},
	} {
		indom, err := ParseInDom(c.in)
		check("ParseInDom", c.in, indom, err, c.want)
	}
}
