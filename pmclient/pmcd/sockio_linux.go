package pmcd

import (
	"syscall"
	"unsafe"
)

// haveRawIO: sockIO makes its own system calls here.
const haveRawIO = true

// rawRead is read(2) as a raw system call, one the scheduler is not told
// of: only for a non-blocking descriptor, where it returns at once.
func rawRead(fd uintptr, p []byte) (int, error) { return rawIO(syscall.SYS_READ, fd, p) }

// rawWrite is write(2) as rawRead is read(2).
func rawWrite(fd uintptr, p []byte) (int, error) { return rawIO(syscall.SYS_WRITE, fd, p) }

func rawIO(trap, fd uintptr, p []byte) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	n, _, errno := syscall.RawSyscall(trap, fd, uintptr(ptr), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
