package cli

import (
	"slices"
	"testing"
)

// TestWithoutProfiles: check --fix checks again without starting the
// profiles a second time (the first run's cover both).
func TestWithoutProfiles(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--cpuprofile", "c.prof", "a.conf"}, []string{"a.conf"}},
		{[]string{"-cpuprofile=c.prof", "--memprofile", "m.prof", "--format", "json", "a.conf"}, []string{"--format", "json", "a.conf"}},
		{[]string{"a.conf", "--", "--cpuprofile"}, []string{"a.conf", "--", "--cpuprofile"}},
	} {
		if got := withoutProfiles(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("withoutProfiles(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
