package pmcd

import (
	"io"
	"net"
	"os"
	"syscall"
)

// sockIO reads and writes a conn's socket without telling the Go scheduler
// about each read and write (see rawRead), and waits in Go's network
// poller as net.Conn does, honouring the deadlines conn sets (and through
// them the caller's cancellation).
//
// Why: net.Conn's reads and writes are system calls the scheduler enters
// and leaves; on a client that waits for pmcd between them, each one
// wakes the scheduler's monitor thread (sysmon) from the sleep it falls
// into while every P is idle, and that thread then ticks every 20 µs
// until the next wait: context switches and CPU time that compete with
// pmcd and the agents the fetch waits for. A read or write on a
// non-blocking socket never blocks, so it needs none of that (the
// figures are in docs/limits.md, "Measurements behind the bounds").
type sockIO struct {
	nc net.Conn
	rc syscall.RawConn // nil: net.Conn's own reads and writes

	// readFd and writeFd are readOnce and writeOnce as method values,
	// made once so that a read or write allocates no closure; p, n and
	// err are their argument and results.
	readFd, writeFd func(fd uintptr) bool
	p               []byte
	n               int
	err             error
}

// maxRawRead bounds one read system call: the thread cannot be preempted
// while the kernel copies, so a large PDU is read in slices.
const maxRawRead = 64 << 10

func newSockIO(nc net.Conn) *sockIO {
	s := &sockIO{nc: nc}
	if sc, ok := nc.(syscall.Conn); ok && haveRawIO {
		if rc, err := sc.SyscallConn(); err == nil {
			s.rc = rc
			s.readFd, s.writeFd = s.readOnce, s.writeOnce
		}
	}
	return s
}

// Read reads what the socket has, up to len(p) bytes, waiting in the
// network poller while it has nothing.
func (s *sockIO) Read(p []byte) (int, error) {
	if s.rc == nil || len(p) == 0 {
		return s.nc.Read(p)
	}
	s.p, s.n, s.err = p[:min(len(p), maxRawRead)], 0, nil
	rerr := s.rc.Read(s.readFd)
	n, err := s.n, s.err
	s.p, s.err = nil, nil
	switch {
	case rerr != nil:
		// A deadline has passed (the request's, or the one a cancelled
		// context set) or the socket is closed: net.Conn says so in its
		// own words.
		return s.nc.Read(p)
	case err != nil:
		return 0, s.opError("read", err)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting in the network poller while the socket's
// buffer is full.
func (s *sockIO) Write(p []byte) (int, error) {
	if s.rc == nil {
		return s.nc.Write(p)
	}
	s.p, s.n, s.err = p, 0, nil
	rerr := s.rc.Write(s.writeFd)
	n, err := s.n, s.err
	s.p, s.err = nil, nil
	switch {
	case rerr != nil:
		m, err := s.nc.Write(p[n:])
		return n + m, err
	case err != nil:
		return n, s.opError("write", err)
	}
	return n, nil
}

// readOnce reads once; false (nothing there yet) makes the RawConn wait
// for the socket to be readable and call it again.
func (s *sockIO) readOnce(fd uintptr) bool {
	for {
		s.n, s.err = rawRead(fd, s.p)
		if s.err != syscall.EINTR {
			return s.err != syscall.EAGAIN
		}
	}
}

// writeOnce writes what the socket's buffer takes; false (full) makes the
// RawConn wait for room and call it again with the rest.
func (s *sockIO) writeOnce(fd uintptr) bool {
	for len(s.p) > 0 {
		n, err := rawWrite(fd, s.p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			s.err = err
			return true
		}
		s.n += n
		s.p = s.p[n:]
	}
	return true
}

// opError is the error net.Conn would have returned for err.
func (s *sockIO) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: s.nc.LocalAddr().Network(), Source: s.nc.LocalAddr(), Addr: s.nc.RemoteAddr(), Err: os.NewSyscallError(op, err)}
}
