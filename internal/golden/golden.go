// Package golden compares what a test produced with a file kept beside
// the tests, and rewrites the file instead when the test binary runs with
// -update (go test ./pkg -update). A package that imports it reads the
// flag through Update and must not define its own -update flag.
package golden

import (
	"flag"
	"os"
	"testing"
)

// update is registered once in each test binary that links this package;
// it is set by the command line only, never by code.
var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// File compares got with the file at path, or writes got there with
// -update. A missing file is a failure that names the flag.
func File(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", path, got)
	}
}
