// Package pageserver serves a fixed page over a minimal HTTP/1.1 server:
//
//	ln, scheme, err := pageserver.Listen("127.0.0.1:0", false) // true: https
//	err = pageserver.Serve(ctx, ln, 2048, 0) // "loadtest pageserver -size 2048" runs it
//
// It is the target of "loadtest bench", cheap enough that bench measures
// the generator, not the server. It answers every request with the same
// bytes, keeping the connection open unless the client closes it.
package pageserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Serve answers every request on ln with a page of size bytes, each after
// delay, until ctx ends; then it closes ln and every connection and
// returns nil once they are done.
func Serve(ctx context.Context, ln net.Listener, size int, delay time.Duration) error {
	page := bytes.Repeat([]byte("x"), size)
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(size) + "\r\n\r\n" + string(page))
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]struct{}{}
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	defer stop()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return fmt.Errorf("accept: %w", err)
		}
		mu.Lock()
		conns[c] = struct{}{}
		mu.Unlock()
		wg.Go(func() {
			serveConn(c, resp, delay)
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
			c.Close()
		})
	}
	wg.Wait()
	return nil
}

// serveConn answers the requests of one connection.
func serveConn(c net.Conn, resp []byte, delay time.Duration) {
	br := bufio.NewReaderSize(c, 4096)
	for {
		closeAfter := false
		length := 0
		for i := 0; ; i++ {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 {
				break
			}
			if i == 0 {
				closeAfter = bytes.Contains(line, []byte("HTTP/1.0"))
				continue
			}
			k, v, ok := strings.Cut(string(line), ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch strings.ToLower(k) {
			case "content-length":
				length, _ = strconv.Atoi(v)
			case "connection":
				closeAfter = strings.EqualFold(v, "close")
			}
		}
		if length > 0 {
			if _, err := br.Discard(length); err != nil {
				return
			}
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		if _, err := c.Write(resp); err != nil || closeAfter {
			return
		}
	}
}
