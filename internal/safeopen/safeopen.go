// Package safeopen is the one way the program opens a file a user names:
// configs, hosts files, indom configs, the project config, snapshots,
// archives. Only a regular file is read: a FIFO would block the open
// until something writes to it, and a device such as /dev/zero never
// ends, so both are refused with an error that says what the file is.
// The open itself never blocks (a FIFO swapped in between the check and
// the open is caught after it), and what is read is capped, so that a
// file growing while it is read cannot grow the process.
package safeopen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// NoLimit reads a file whatever its size (archives' data volumes, which
// are replayed a record at a time under their own caps).
const NoLimit = math.MaxInt64

// ErrNotRegular is what refusing a FIFO, socket or device wraps.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what a file over its cap wraps.
var ErrTooLarge = errors.New("over the size limit")

// File is a regular file open for reading, which reads at most its cap.
type File struct {
	f    *os.File
	info fs.FileInfo
	left int64 // bytes that may still be read
	max  int64
}

// Options say what a caller accepts beyond a regular file.
type Options struct {
	// Streams accepts a pipe (a FIFO, or what /dev/stdin names when
	// stdin is one), opened without waiting for a writer: a FIFO with
	// none reads as empty. Devices are refused all the same.
	Streams bool
}

// Open opens path for reading when it is a regular file of at most max
// bytes. Reading more than max bytes from the File (the file grew) fails
// with an error wrapping ErrTooLarge.
func Open(path string, max int64) (*File, error) {
	return OpenWith(path, max, Options{})
}

// OpenWith is Open with what opts accept besides.
func OpenWith(path string, max int64, opts Options) (*File, error) {
	// Look before opening: opening a device may do something (a tape
	// rewinds), and a FIFO is refused without touching it.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := allowed(path, info, max, opts); err != nil {
		return nil, err
	}
	f, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	// Again on what was opened: the name may lead elsewhere by now.
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := allowed(path, info, max, opts); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, info: info, left: max, max: max}, nil
}

// allowed refuses what is no regular file (unless opts accept a stream)
// and a regular file over max bytes.
func allowed(path string, info fs.FileInfo, max int64, opts Options) error {
	m := info.Mode()
	switch {
	case m.IsRegular():
		if info.Size() > max {
			return fmt.Errorf("%s: %d bytes, %w of %d bytes", path, info.Size(), ErrTooLarge, max)
		}
		return nil
	case m.IsDir():
		return fmt.Errorf("%s: a directory, %w", path, ErrNotRegular)
	case m&fs.ModeNamedPipe != 0 && opts.Streams:
		return nil
	}
	return fmt.Errorf("%s: %s, %w: not read (a FIFO would wait for a writer, a device may never end)", path, Kind(m), ErrNotRegular)
}

// Kind names what a file that is not a regular file is.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Read reads from the file, and fails once more than the cap was read.
func (f *File) Read(p []byte) (int, error) {
	if f.left < 0 {
		return 0, f.tooLarge()
	}
	if f.left < int64(len(p))-1 {
		p = p[:f.left+1] // one byte past the cap tells it is over
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	if f.left < 0 {
		return n + int(f.left), f.tooLarge()
	}
	return n, err
}

func (f *File) tooLarge() error {
	return fmt.Errorf("%s: grew past %d bytes while read, %w", f.f.Name(), f.max, ErrTooLarge)
}

// Seek moves the read offset as os.File.Seek does; the cap counts from
// the start of the file, so what is left to read follows the offset.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	n, err := f.f.Seek(offset, whence)
	if err == nil {
		f.left = f.max - n
	}
	return n, err
}

// Stat is what the opened file was when it was opened.
func (f *File) Stat() fs.FileInfo { return f.info }

// Name is the path the file was opened by.
func (f *File) Name() string { return f.f.Name() }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads the regular file path whole, when it has at most max
// bytes, in one allocation of its size.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := f.info.Size()
	buf := make([]byte, 0, min(size, max)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
