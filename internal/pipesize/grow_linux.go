package pipesize

import (
	"fmt"
	"os"
	"syscall"
)

// fSetPipeSize is Linux's F_SETPIPE_SZ fcntl command (linux/fcntl.h),
// which the syscall package does not name.
const fSetPipeSize = 1031

// Grow asks the kernel for a pipe buffer of size bytes when w is a pipe,
// and says why not when it cannot; anything else is left alone. Linux
// lets any process grow its pipes to /proc/sys/fs/pipe-max-size (1 MB
// unless changed).
func Grow(w any, size int) error {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fSetPipeSize, uintptr(size)); errno != 0 {
		return fmt.Errorf("growing the pipe to %d bytes: %w", size, errno)
	}
	return nil
}
