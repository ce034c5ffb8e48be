//go:build unix

package safeopen

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefused: a FIFO with no writer, a character device, a directory
// and a file over the cap are refused with an error that says what they
// are, at once (a FIFO opened for reading blocks until a writer comes:
// this test would hang).
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		path string
		want error
		says string
	}{
		"device":    {"/dev/zero", ErrNotRegular, "a character device"},
		"directory": {dir, ErrNotRegular, "a directory"},
		"too large": {big, ErrTooLarge, "100 bytes"},
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases["fifo"] = struct {
		path string
		want error
		says string
	}{fifo, ErrNotRegular, "a FIFO"}
	for name, c := range cases {
		f, err := Open(c.path, 99)
		if err == nil {
			f.Close()
			t.Errorf("%s: opened", name)
			continue
		}
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v; want %v saying %q and the path", name, err, c.want, c.says)
		}
	}
}

// TestStreams: a caller that takes pipes gets a FIFO with no writer as
// an empty file, without waiting, and still no device.
func TestStreams(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenWith(fifo, 10, Options{Streams: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || len(b) != 0 {
		t.Errorf("a FIFO with no writer read %q, %v; want nothing", b, err)
	}
	if _, err := OpenWith("/dev/zero", 10, Options{Streams: true}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero as a stream: %v", err)
	}
}

// TestReadCap: a file read whole under its cap is its bytes; one that
// grows past the cap after the open fails to read, having read at most
// one byte past it.
func TestReadCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("ReadFile: %q, %v", b, err)
	}
	f, err := Open(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, []byte("0123456789abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if !errors.Is(err, ErrTooLarge) || len(b) > 10 {
		t.Errorf("a file grown past the cap: read %d bytes, %v", len(b), err)
	}
	if b, err := ReadFile(path, NoLimit); err != nil || len(b) != 16 {
		t.Errorf("NoLimit: %d bytes, %v", len(b), err)
	}
}

// TestSeek: a seek moves what is left under the cap with the offset.
func TestSeek(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(6, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "6789" {
		t.Errorf("after a seek to 6: %q, %v", b, err)
	}
}
