package pipesize

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// fGetPipeSize is Linux's F_GETPIPE_SZ.
const fGetPipeSize = 1032

func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fGetPipeSize, 0)
	if errno != 0 {
		t.Fatalf("F_GETPIPE_SZ: %v", errno)
	}
	return int(n)
}

// TestGrow: serve's stdout, when a pipe, holds a publication of
// hundreds of findings whole; a file or a writer that is not a file is
// left alone, without an error.
func TestGrow(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before := pipeSize(t, w)
	if err := Grow(w, Stdout); err != nil {
		t.Fatal(err)
	}
	if got := pipeSize(t, r); got < Stdout {
		t.Errorf("pipe of %d bytes after Grow (%d before), want at least %d", got, before, Stdout)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Grow(f, Stdout); err != nil {
		t.Errorf("a file: %v", err)
	}
	if err := Grow(new(struct{}), Stdout); err != nil {
		t.Errorf("not a file: %v", err)
	}
	// Past what the kernel allows an unprivileged process: an error
	// that says so (serve logs it and goes on).
	if os.Geteuid() != 0 {
		if err := Grow(w, 1<<30); err == nil {
			t.Error("growing a pipe to 1 GB: no error")
		}
	}
}
