package oracle

import (
	"errors"
	"testing"
)

// ReleasesFor is Releases for a test: it skips the test only when
// PCP_DERIVE_LSP_NO_ORACLE=1 asks to, and fails it when a release is
// missing (CI never skips a comparison).
func ReleasesFor(t testing.TB) []Release {
	t.Helper()
	rs, err := Releases()
	if errors.Is(err, ErrNoOracle) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
