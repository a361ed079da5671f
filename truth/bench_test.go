package truth

import (
	"net"
	"testing"
	"time"
)

// BenchmarkRecord is what one request costs the recorder when on, without
// and with the per-request log.
//
//	go test -run '^$' -bench . -benchmem ./truth
func BenchmarkRecord(b *testing.B) {
	for _, log := range []bool{false, true} {
		name := "counts"
		if log {
			name = "counts+log"
		}
		b.Run(name, func(b *testing.B) {
			r := New(0)
			r.Start(time.Time{}, time.Time{}, log)
			b.ReportAllocs()
			for b.Loop() {
				now := time.Now()
				r.Begin()
				r.Record(Request{Arrival: now, Start: now, End: now.Add(time.Millisecond), Status: 200, Bytes: 9000, Path: "/bbs"})
			}
		})
	}
}

// nopConn is a connection whose reads return one byte at once.
type nopConn struct{ net.Conn }

func (nopConn) Read(b []byte) (int, error) { return 1, nil }

// BenchmarkConnRead is the Listener's cost on a read: recording off (one
// atomic load) and on (a clock read when a request arrives).
func BenchmarkConnRead(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			r := New(0)
			if on {
				r.Start(time.Time{}, time.Time{}, false)
			}
			c := &conn{Conn: nopConn{}, rec: r}
			buf := make([]byte, 1)
			for b.Loop() {
				c.Read(buf)
				c.pending.Store(0) // as the request had been served
			}
		})
	}
}
