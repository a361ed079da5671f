package bbs

import "net"

// NoDelayListener wraps l so that every connection it accepts has
// TCP_NODELAY set to noDelay. Go sets TCP_NODELAY on every TCP connection;
// NoDelayListener(l, false) turns Nagle's algorithm back on, so that small
// writes wait for the ACK of earlier unacknowledged data (the real-time Java
// article on latency outliers tried setTcpNoDelay for its start-up delays).
// Connections that are not TCP are passed through unchanged.
func NoDelayListener(l net.Listener, noDelay bool) net.Listener {
	return &noDelayListener{Listener: l, noDelay: noDelay}
}

type noDelayListener struct {
	net.Listener
	noDelay bool
}

// Accept accepts a connection and sets its TCP_NODELAY option.
func (l *noDelayListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(interface{ SetNoDelay(bool) error }); ok {
		// A failure leaves Go's default (no delay); the connection still works,
		// and failing Accept would stop the whole server.
		_ = tc.SetNoDelay(l.noDelay)
	}
	return c, nil
}
