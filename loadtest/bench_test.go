package loadtest

import (
	"context"
	"net"
	"testing"
	"time"
)

// BenchmarkExchange measures one request-response on a kept-alive
// connection against a minimal in-process server (allocations per request
// are the interesting figure).
func BenchmarkExchange(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2048\r\n\r\n" + string(make([]byte, 2048)))
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			c.Write(resp)
		}
	}()
	req, err := compileRequest(Request{URL: "http://" + ln.Addr().String() + "/"}, 0, true)
	if err != nil {
		b.Fatal(err)
	}
	c := conn{addr: req.addr, keepAlive: true, stopCtx: context.Background(), reg: newConnRegistry()}
	defer c.close()
	var o outcome
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.do(time.Now(), req.static, false, nil, &o)
		if o.kind != KindOK {
			b.Fatalf("exchange: %v %v", o.kind, o.err)
		}
	}
}
