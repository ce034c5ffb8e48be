package htop

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"percent", "process", "command", "device", "cgroup"}
	tests := []struct {
		word, want string
	}{
		{"percent", "percent"},  // the same
		{"PERCENT", "percent"},  // case
		{"percant", "percent"},  // substitution
		{"precent", "percent"},  // swap of neighbours
		{"percnt", "percent"},   // deletion
		{"perrcent", "percent"}, // insertion
		{"Devcie", "device"},    // case and swap
		{"cgruop", "cgroup"},    // swap of neighbours
		{"gcruop", ""},          // two swaps
		{"prcnt", ""},           // two deletions
		{"", ""},
		{"procesxx", ""},
	}
	for _, tt := range tests {
		if got := nearest(tt.word, known); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
