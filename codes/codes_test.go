package codes

import "testing"

func TestRegistryUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range All() {
		if seen[in.Code] {
			t.Errorf("code %q registered twice", in.Code)
		}
		seen[in.Code] = true
		if in.Summary == "" {
			t.Errorf("code %q has no summary", in.Code)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"unknown-metirc", "unknown-metric"},
		{"unknow-metric", "unknown-metric"},
		{"sytnax", "syntax"},
		{"no-vaule", "no-value"},
		{"frobnicate", ""},
	} {
		if got := Closest(tc.in); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
