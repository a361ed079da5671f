package pageserver

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// serve starts Serve on a free port and returns its URL; the server stops
// when the test ends, and the test fails if Serve returns an error.
func serve(t *testing.T, size int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, size, 0) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve after its context ended = %v; want nil", err)
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

// TestServePages checks that GETs and POSTs with a body, many on one
// kept-alive connection, each get the page of the size asked for.
func TestServePages(t *testing.T) {
	u := serve(t, 100)
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for i := range 20 {
		var resp *http.Response
		var err error
		if i%2 == 0 {
			resp, err = client.Get(u)
		} else {
			resp, err = client.PostForm(u, url.Values{"a": {"b"}, "n": {fmt.Sprint(i)}})
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(body) != 100 || strings.Trim(string(body), "x") != "" {
			t.Fatalf("request %d: status %d, %d bytes (%v); want 200 and 100 bytes of x", i, resp.StatusCode, len(body), err)
		}
	}
}

// TestServeCloses checks that the server closes the connection after an
// answer when the client asks (Connection: close) or speaks HTTP/1.0.
func TestServeCloses(t *testing.T) {
	u := serve(t, 10)
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
	for _, req := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.0\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, req)
		b, err := io.ReadAll(bufio.NewReader(c)) // ends only when the server closes
		c.Close()
		if err != nil || !strings.HasPrefix(string(b), "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(string(b), "\r\n\r\nxxxxxxxxxx") {
			t.Errorf("%q: read %q, %v; want one 200 answer with a 10-byte page, then EOF", req, b, err)
		}
	}
}

// TestListen checks Listen without TLS, and its error naming the address.
func TestListen(t *testing.T) {
	ln, scheme, err := Listen("127.0.0.1:0", false)
	if err != nil || scheme != "http" {
		t.Fatalf("Listen(127.0.0.1:0, false) = %v, %q; want http", err, scheme)
	}
	defer ln.Close()
	if _, _, err := Listen(ln.Addr().String(), true); err == nil || !strings.HasPrefix(err.Error(), "listen "+ln.Addr().String()+": ") {
		t.Errorf("Listen on a taken address = %v; want an error naming it", err)
	}
}

// TestServeOverTLS serves through Listen with TLS: a client that skips
// verification gets the page over https, a verifying one is refused.
func TestServeOverTLS(t *testing.T) {
	ln, scheme, err := Listen("127.0.0.1:0", true)
	if err != nil || scheme != "https" {
		t.Fatalf("Listen(127.0.0.1:0, true) = %v, %q; want https", err, scheme)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, 10, 0) }()
	defer func() {
		cancel()
		<-done
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "xxxxxxxxxx" {
		t.Errorf("GET over TLS = %d %q; want 200 and 10 bytes", resp.StatusCode, body)
	}
	if _, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{}); err == nil {
		t.Errorf("a verifying client accepted the self-signed certificate")
	}
}
