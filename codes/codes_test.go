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

// TestRegistryComplete: every code says what its page needs: a kind, a
// default severity, a summary, the libpcp behaviour, an example with its
// fix (or why there is none), and how to fix it.
func TestRegistryComplete(t *testing.T) {
	kinds := map[Kind]bool{}
	for _, k := range Kinds {
		kinds[k] = true
	}
	for _, in := range All() {
		switch in.Severity {
		case SevError, SevWarning, SevInfo, SevHint:
		default:
			t.Errorf("%s: default severity %q", in.Code, in.Severity)
		}
		if !kinds[in.Kind] {
			t.Errorf("%s: kind %q", in.Code, in.Kind)
		}
		if in.Summary == "" || in.Behaviour == "" || in.FixNote == "" {
			t.Errorf("%s: summary, behaviour and fix note are all needed", in.Code)
		}
		if (in.Example == "") == (in.NoExample == "") {
			t.Errorf("%s: wants an example or a reason for none, not both", in.Code)
		}
		if (in.Example == "") != (in.Fix == "") {
			t.Errorf("%s: an example goes with its fix", in.Code)
		}
	}
}

func TestDocURL(t *testing.T) {
	if got := DocURL("", "syntax"); got != DefaultDocsURL+"syntax.md" {
		t.Errorf("default: %s", got)
	}
	if got := DocURL("https://docs.example.com/codes", "masked"); got != "https://docs.example.com/codes/masked.md" {
		t.Errorf("configured: %s", got)
	}
}
