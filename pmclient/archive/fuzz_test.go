package archive

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// seeds are small real archive files checked in under testdata/.
func seeds(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzReadMeta: any .meta bytes give metadata or an error, never a panic.
func FuzzReadMeta(f *testing.F) {
	seeds(f, "*.meta")
	f.Fuzz(func(t *testing.T, b []byte) {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, "a.meta"), b, 0o644)
		os.WriteFile(filepath.Join(d, "a.0"), nil, 0o644)
		if a, err := Open(filepath.Join(d, "a")); err == nil {
			for indom := range a.meta.indoms {
				a.meta.instancesAt(indom, a.label.Start)
			}
		}
	})
}

// FuzzReadRecords: any volume bytes replay or fail cleanly.
func FuzzReadRecords(f *testing.F) {
	seeds(f, "*.0")
	meta, err := os.ReadFile("testdata/small3.meta")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, "a.meta"), meta, 0o644)
		os.WriteFile(filepath.Join(d, "a.0"), b, 0o644)
		a, err := Open(filepath.Join(d, "a"))
		if err != nil {
			return
		}
		rd := a.Records()
		defer rd.Close()
		for i := 0; i < 10000; i++ {
			if _, err := rd.Next(context.Background()); err != nil {
				return
			}
		}
	})
}
