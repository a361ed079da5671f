package loadtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestClientResponseFraming(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("part one "))
			w.(http.Flusher).Flush() // forces chunked encoding
			w.Write([]byte("needle part two"))
		case "/close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("needle bye"))
		case "/missing":
			http.NotFound(w, r)
		case "/post":
			r.ParseForm()
			fmt.Fprintf(w, "got needle %s", r.PostForm.Get("message"))
		default:
			w.Write([]byte("plain needle"))
		}
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	tests := []struct {
		path      string
		post      bool
		method    string
		contains  string
		wantKind  ErrorKind
		keepAlive bool
		maxConns  int64 // connections for 20 requests on one client
	}{
		{"/plain", false, "", "needle", KindOK, true, 1},
		{"/plain", false, "HEAD", "", KindOK, true, 1},
		{"/chunked", false, "", "needle part two", KindOK, true, 1},
		{"/close", false, "", "needle", KindOK, true, 20},
		{"/plain", false, "", "", KindOK, false, 20},
		{"/plain", false, "", "absent", KindBody, true, 1},
		{"/missing", false, "", "", KindStatus, true, 1},
		{"/post", true, "", "needle m", KindOK, true, 1},
	}
	for _, tt := range tests {
		conns.Store(0)
		rq := Request{URL: srv.URL + tt.path, Method: tt.method, Contains: tt.contains}
		if tt.post {
			rq.Form = map[string]string{"message": "m{{seq}}"}
		}
		res := mustRun(t, Settings{Requests: []Request{rq}, Clients: 1, MaxRequests: 20, DisableKeepAlive: !tt.keepAlive, Timeout: time.Second})
		name := fmt.Sprintf("%s %s (contains %q, keepalive %v)", tt.method, tt.path, tt.contains, tt.keepAlive)
		if res.Total.Requests != 20 {
			t.Errorf("%s: %d requests; want 20", name, res.Total.Requests)
		}
		if tt.wantKind == KindOK && res.Total.Errors != 0 {
			t.Errorf("%s: errors %v; want none", name, res.Total.ErrorKinds)
		}
		if tt.wantKind != KindOK && res.Total.ErrorKinds[tt.wantKind.String()] != 20 {
			t.Errorf("%s: errors %v; want 20 %s errors", name, res.Total.ErrorKinds, tt.wantKind)
		}
		if tt.wantKind != KindOK && res.Total.Histogram.Count() != 0 {
			t.Errorf("%s: failed requests went into the latency histogram", name)
		}
		if got := conns.Load(); got > tt.maxConns || (tt.maxConns > 1 && got < tt.maxConns) {
			t.Errorf("%s: %d connections; want %d", name, got, tt.maxConns)
		}
		if res.Total.Bytes <= 0 {
			t.Errorf("%s: no bytes counted", name)
		}
	}
}

func TestRefusedConnectionsAreCounted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := mustRun(t, Settings{Requests: []Request{{URL: "http://" + addr + "/"}}, Clients: 2, Duration: 300 * time.Millisecond})
	if res.Total.ErrorKinds["connect"] == 0 || res.Total.Successes != 0 {
		t.Errorf("refused target: errors %v, successes %d; want connect errors only", res.Total.ErrorKinds, res.Total.Successes)
	}
}

func TestStalledTargetTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept, read, never answer
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	start := time.Now()
	res := mustRun(t, Settings{Requests: []Request{{URL: "http://" + ln.Addr().String() + "/"}}, Clients: 3,
		Duration: 700 * time.Millisecond, Timeout: 200 * time.Millisecond})
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("run against a stalled target took %v; want it bounded by the duration", el)
	}
	if res.Total.ErrorKinds["timeout"] < 3 {
		t.Errorf("stalled target: errors %v; want timeouts", res.Total.ErrorKinds)
	}
}

func TestStaleKeepAliveIsRetried(t *testing.T) {
	// The server closes each connection after one response without saying
	// so; the client must reconnect without counting an error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				c.Read(buf)
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
				time.Sleep(5 * time.Millisecond)
				c.Close()
			}()
		}
	}()
	res := mustRun(t, Settings{Requests: []Request{{URL: "http://" + ln.Addr().String() + "/"}}, Clients: 1, MaxRequests: 10, Think: 20 * time.Millisecond})
	if res.Total.Successes != 10 || res.Total.Errors != 0 {
		t.Errorf("server closing idle connections: %d successes, errors %v; want 10 and none", res.Total.Successes, res.Total.ErrorKinds)
	}
}

func TestTemplatesMakeUniqueRequests(t *testing.T) {
	seen := map[string]int{}
	var mu = make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu <- struct{}{}
		seen[r.PostForm.Get("message")]++
		<-mu
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL, Form: map[string]string{"message": "m{{seq}} from {{client}}"}}}, Clients: 4, MaxRequests: 200})
	if res.Total.Successes != 200 {
		t.Fatalf("successes %d; want 200", res.Total.Successes)
	}
	srv.Close()
	mu <- struct{}{} // order the handlers' writes before the reads
	defer func() { <-mu }()
	for m, n := range seen {
		if n != 1 || !strings.HasPrefix(m, "m") {
			t.Errorf("message %q posted %d times; want unique messages", m, n)
		}
	}
}

func TestInterruptedRunReturnsResults(t *testing.T) {
	srv, _ := delayServer(t, time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 2, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("cancel took %v to stop the run", time.Since(start))
	}
	if !res.Interrupted || res.Total.Successes == 0 {
		t.Errorf("interrupted = %v, successes %d; want an interrupted result with samples", res.Interrupted, res.Total.Successes)
	}
	if res.MeasuredSeconds > 2 {
		t.Errorf("measured seconds %.1f; want the part that ran", res.MeasuredSeconds)
	}
}
