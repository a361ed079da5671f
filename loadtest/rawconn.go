//go:build linux

package loadtest

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// rawConn does TCP I/O by raw non-blocking system calls, polling only when not ready:
// net.Conn's syscall-state processor hand-overs cost more than the requests on one pinned core.
type rawConn struct {
	rc      syscall.RawConn
	buf     []byte
	n       int
	err     error
	readFn  func(fd uintptr) bool
	writeFn func(fd uintptr) bool
}

func newRawConn(nc net.Conn) *rawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawConn{rc: rc}
	r.readFn, r.writeFn = r.doRead, r.doWrite
	return r
}

func (r *rawConn) doRead(fd uintptr) bool {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))), uintptr(len(r.buf)))
	switch {
	case e == syscall.EINTR:
		return r.doRead(fd) // retry at once, as doWrite does: waiting could miss a spent edge
	case e == syscall.EAGAIN:
		return false
	case e != 0:
		r.n, r.err = 0, e
	case n == 0:
		r.n, r.err = 0, io.EOF
	default:
		r.n, r.err = int(n), nil
	}
	return true
}

func (r *rawConn) doWrite(fd uintptr) bool {
	for len(r.buf) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.buf))), uintptr(len(r.buf)))
		switch {
		case e == syscall.EAGAIN:
			return false
		case e == syscall.EINTR:
			continue
		case e != 0:
			r.err = e
			return true
		}
		r.n += int(n)
		r.buf = r.buf[n:]
	}
	return true
}

func (r *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.buf, r.n, r.err = p, 0, nil
	if err := r.rc.Read(r.readFn); err != nil {
		return 0, err
	}
	r.buf = nil
	return r.n, r.err
}

func (r *rawConn) Write(p []byte) (int, error) {
	r.buf, r.n, r.err = p, 0, nil
	if err := r.rc.Write(r.writeFn); err != nil {
		return r.n, err
	}
	r.buf = nil
	return r.n, r.err
}
