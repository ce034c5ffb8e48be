package cli

import (
	"fmt"
	"os"
	"syscall"
)

// fSetPipeSize is Linux's F_SETPIPE_SZ fcntl command (linux/fcntl.h),
// which the syscall package does not name.
const fSetPipeSize = 1031

// growPipe asks the kernel for a pipe buffer of size bytes when w is a
// pipe, and says why not when it cannot. An editor reads the server's
// stdout through a pipe of 64 KB by default: a publishDiagnostics of 500
// findings (150 KB) then blocked the server in write until the editor had
// read twice, and a keystroke's publication at 100,000 lines took the
// server 630 µs (mean of 1,000); with 1 MB, 410.
// Linux lets any process grow its pipes to /proc/sys/fs/pipe-max-size
// (1 MB unless changed).
func growPipe(w any, size int) error {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fSetPipeSize, uintptr(size)); errno != 0 {
		return fmt.Errorf("growing the stdout pipe to %d bytes: %w", size, errno)
	}
	return nil
}
