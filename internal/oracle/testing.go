package oracle

import (
	"context"
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

// PMProxyFor starts a pmproxy for a test (see StartPMProxy) and stops it
// when the test ends. A missing pmproxy fails the test.
func PMProxyFor(t testing.TB) *PMProxy {
	t.Helper()
	p, err := StartPMProxy(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// FleetFor is Fleet for a test: it skips only when
// PCP_DERIVE_LSP_NO_ORACLE=1, and fails when a pmcd is missing.
func FleetFor(t testing.TB) []FleetHost {
	t.Helper()
	hs, err := Fleet(context.Background())
	if errors.Is(err, ErrNoOracle) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// EachRelease runs f for every release (ReleasesFor) in a subtest of its
// own, TEST/PCP/VERSION, the releases in parallel (as many at once as
// go test's -parallel allows), and returns when all have finished, so a
// differential costs about its slowest release rather than their sum.
func EachRelease(t *testing.T, f func(t *testing.T, r Release)) {
	t.Helper()
	rs := ReleasesFor(t)
	t.Run("PCP", func(t *testing.T) {
		for _, r := range rs {
			t.Run(r.Version.String(), func(t *testing.T) {
				t.Parallel()
				f(t, r)
			})
		}
	})
}
