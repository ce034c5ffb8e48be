//go:build !linux

package pmcd

import "syscall"

// haveRawIO: elsewhere sockIO uses net.Conn's reads and writes.
const haveRawIO = false

func rawRead(uintptr, []byte) (int, error)  { return 0, syscall.EINVAL }
func rawWrite(uintptr, []byte) (int, error) { return 0, syscall.EINVAL }
