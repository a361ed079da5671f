//go:build !linux

package loadtest

import "net"

// rawConn is Linux-only; elsewhere clients use net.Conn.
type rawConn struct{}

func newRawConn(net.Conn) *rawConn { return nil }

func (*rawConn) Read([]byte) (int, error)  { panic("loadtest: rawConn used without raw system calls") }
func (*rawConn) Write([]byte) (int, error) { panic("loadtest: rawConn used without raw system calls") }
