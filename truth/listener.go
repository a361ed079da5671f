package truth

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"bbslab/occupancy"
)

// Listener wraps l so that each request's arrival is known: the time of the
// first read that returns bytes after the previous request's arrival was
// taken (Arrival), one per request on a keep-alive connection. It never
// holds an accept: a stall is held at the handler's entry, after the
// request's bytes were read, so that a request on a connection opened
// during a stall arrives when its bytes came, as on a kept-alive one (a
// paused process's kernel completes the handshakes too, up to the
// backlog). With recording off a read costs one atomic load.
//
// An http.Server serving the listener must set ConnContext to ConnContext
// so that handlers can find their connection.
func Listener(l net.Listener, r *Recorder) net.Listener {
	return &listener{Listener: l, rec: r}
}

type listener struct {
	net.Listener
	rec *Recorder
}

// Accept accepts a connection and wraps it.
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, rec: l.rec}, nil
}

// conn stamps the arrival of each request read on it.
type conn struct {
	net.Conn
	rec *Recorder
	// pending is the next request's arrival, an occupancy.Stamp plus one
	// (the board's one clock, monotonic: a wall clock stepped between a
	// request's arrival and its end, as NTP does on a fresh VM, made its
	// time at the server negative when this was unix ns); 0: none yet;
	// serving: a request is being
	// served, whose body's reads are no arrival.
	pending atomic.Int64
}

// serving marks a connection whose request is being served (Arrival to
// Served).
const serving = -1

// Read stamps the arrival when bytes come and no arrival is pending.
func (c *conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && c.rec.On() && c.pending.Load() == 0 {
		// CompareAndSwap: the handler may take the arrival meanwhile.
		c.pending.CompareAndSwap(0, int64(occupancy.Now())+1)
	}
	return n, err
}

// connKey is the context key of the connection.
type connKey struct{}

// ConnContext is an http.Server's ConnContext for a Listener's connections.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

// Arrival takes the arrival of the request being served on ctx's
// connection, the zero time when it is unknown (no Listener, or a request
// whose bytes came in one read with the previous one's, as pipelined
// requests may).
func Arrival(ctx context.Context) time.Time {
	c, ok := ctx.Value(connKey{}).(*conn)
	if !ok {
		return time.Time{}
	}
	ns := c.pending.Swap(serving)
	if ns <= 0 {
		return time.Time{}
	}
	return occupancy.Stamp(ns - 1).Time()
}

// Served ends the request on ctx's connection that Arrival took: the next
// bytes read on it are the next request's arrival.
func Served(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*conn); ok {
		c.pending.CompareAndSwap(serving, 0)
	}
}
