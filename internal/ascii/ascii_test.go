package ascii

import "testing"

func TestIsDigits(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"0", true},
		{"20260101", true},
		{"", false},
		{"1a", false},
		{" 1", false},
		{"-1", false},
		{"1.5", false},
		{"١٢", false}, // Arabic-Indic digits: not C's
		{"/0", false}, // the bytes either side of the digits
		{"9:", false},
	}
	for _, tt := range tests {
		if got := IsDigits(tt.s); got != tt.want {
			t.Errorf("IsDigits(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
