package bbs

import "golang.org/x/sys/windows"

// getsockoptNoDelay reads TCP_NODELAY of the socket fd.
func getsockoptNoDelay(fd uintptr) (int, error) {
	return windows.GetsockoptInt(windows.Handle(fd), windows.IPPROTO_TCP, windows.TCP_NODELAY)
}
