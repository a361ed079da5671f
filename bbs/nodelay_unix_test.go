//go:build unix

package bbs

import "golang.org/x/sys/unix"

// getsockoptNoDelay reads TCP_NODELAY of the socket fd.
func getsockoptNoDelay(fd uintptr) (int, error) {
	return unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NODELAY)
}
