package cli

import "testing"

// TestReleaseSpans: releases that follow each other in the list are one
// span from three on; the others are named one by one.
func TestReleaseSpans(t *testing.T) {
	names := []string{"5.2.6", "5.3.7", "6.0.3", "6.2.0", "6.3.8", "7.0.2", "7.2.2"}
	for _, tc := range []struct {
		indices []int
		want    string
	}{
		{[]int{6}, "7.2.2"},
		{[]int{0, 1}, "5.2.6, 5.3.7"},
		{[]int{0, 1, 2, 3}, "5.2.6 to 6.2.0"},
		{[]int{0, 2, 3, 4, 6}, "5.2.6, 6.0.3 to 6.3.8, 7.2.2"},
		{[]int{0, 1, 3, 4}, "5.2.6, 5.3.7, 6.2.0, 6.3.8"},
		{nil, ""},
	} {
		if got := releaseSpans(names, tc.indices); got != tc.want {
			t.Errorf("releaseSpans(%v) = %q, want %q", tc.indices, got, tc.want)
		}
	}
}
