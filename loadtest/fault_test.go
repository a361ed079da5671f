package loadtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// The load tool under faults: every run ends by its bound with the
// failures counted by kind (refused and stalled targets are in
// client_test.go).

func TestResetConnectionsAreCounted(t *testing.T) {
	for _, readFirst := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var accepted atomic.Int64
		go func() { // accept, optionally read the request, then reset
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				if readFirst {
					c.SetReadDeadline(time.Now().Add(time.Second))
					c.Read(make([]byte, 4096))
				}
				c.(*net.TCPConn).SetLinger(0) // close sends RST
				c.Close()
			}
		}()
		start := time.Now()
		res := mustRun(t, Settings{Requests: []Request{{URL: "http://" + ln.Addr().String() + "/"}}, Clients: 2,
			Think: 5 * time.Millisecond, Duration: 500 * time.Millisecond, Timeout: time.Second})
		el := time.Since(start)
		ln.Close()
		name := map[bool]string{false: "reset on accept", true: "reset after the request"}[readFirst]
		if el > 3*time.Second {
			t.Errorf("%s: run took %v; want it bounded by its 500 ms", name, el)
		}
		if res.Total.Successes != 0 || res.Total.Errors == 0 || res.Total.ErrorKinds["io"] == 0 {
			t.Errorf("%s: %d successes, errors %v; want io errors only", name, res.Total.Successes, res.Total.ErrorKinds)
		}
		if accepted.Load() == 0 {
			t.Errorf("%s: the target accepted nothing", name)
		}
		if res.Total.Histogram.Count() != 0 {
			t.Errorf("%s: failures went into the latency histogram", name)
		}
	}
}

func TestServerErrorsAreCounted(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	start := time.Now()
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 2, Think: 2 * time.Millisecond, Duration: 500 * time.Millisecond})
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("run took %v; want it bounded by its 500 ms", el)
	}
	st := res.Total.ErrorKinds["status"]
	if st == 0 || res.Total.Successes == 0 || st != res.Total.Errors {
		t.Errorf("half 500s: %d successes, errors %v; want successes and status errors only", res.Total.Successes, res.Total.ErrorKinds)
	}
	if d := st - res.Total.Successes; d < -3 || d > 3 {
		t.Errorf("%d status errors vs %d successes; want about as many (every other answer is 500)", st, res.Total.Successes)
	}
	if res.Total.Histogram.Count() != res.Total.Successes {
		t.Errorf("histogram holds %d latencies for %d successes; 500s must stay out", res.Total.Histogram.Count(), res.Total.Successes)
	}
}

func TestEveryModelStopsByItsBound(t *testing.T) {
	// A stalled target that never answers: each model must stop starting
	// requests at MaxDuration and abandon those in flight when the drain
	// ends, even with a long timeout, counting nothing as success.
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
			go func() { // hold the connection open until the test ends
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
	for _, m := range []Model{ModelDelay, ModelRate, ModelOpen} {
		start := time.Now()
		res := mustRun(t, Settings{Requests: []Request{{URL: "http://" + ln.Addr().String() + "/"}}, Clients: 3, Model: m,
			Think: 10 * time.Millisecond, Rate: 50, MaxRequests: 1000, MaxDuration: 400 * time.Millisecond, Timeout: time.Minute, Drain: 100 * time.Millisecond})
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("model %s: run took %v; want it stopped by its 400 ms bound and 100 ms drain", m, el)
		}
		if res.Total.Successes != 0 {
			t.Errorf("model %s: %d successes from a target that never answers", m, res.Total.Successes)
		}
	}
}
