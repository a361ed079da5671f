//go:build !linux

package loadtest

import "net"

// rawConn is the Linux-only raw system-call path (rawconn.go); elsewhere
// clients read and write through net.Conn.
type rawConn struct{}

// newRawConn returns nil: without raw system calls the client uses nc.
func newRawConn(net.Conn) *rawConn { return nil }

func (*rawConn) Read([]byte) (int, error)  { panic("loadtest: rawConn used without raw system calls") }
func (*rawConn) Write([]byte) (int, error) { panic("loadtest: rawConn used without raw system calls") }
