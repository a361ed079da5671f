package loadtest

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The end of the measured window: requests in flight at the stop are
// waited for and recorded (slow requests are the ones most likely in
// flight, so dropping them hides the tail); those the run abandons are
// "cutoff" errors.

func TestRequestsInFlightAtTheStopAreRecorded(t *testing.T) {
	for _, m := range []Model{ModelDelay, ModelRate, ModelOpen} {
		srv, arrived := delayServer(t, 300*time.Millisecond)
		var jtl bytes.Buffer
		res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 4, Model: m, Rate: 20,
			Duration: time.Second, Timeout: 5 * time.Second, JTL: &jtl})
		// Every request the target saw arrive was answered after 300 ms,
		// so each must be in the result, none lost at the stop.
		if res.Total.Requests != arrived.Load() || res.Total.Errors != 0 {
			t.Errorf("model %s: %d requests recorded (%d errors %v); the target saw %d arrive", m, res.Total.Requests, res.Total.Errors, res.Total.ErrorKinds, arrived.Load())
		}
		if lo := res.Total.Histogram.Min(); lo < 300*time.Millisecond {
			t.Errorf("model %s: latency min %v; want every request at least 300 ms", m, lo)
		}
		var inSeries int64
		for _, row := range res.Series {
			inSeries += row.Successes + row.Errors
		}
		if inSeries != res.Total.Requests {
			t.Errorf("model %s: per-second series holds %d requests; total %d", m, inSeries, res.Total.Requests)
		}
		if lines := int64(strings.Count(jtl.String(), "\n")) - 1; lines != res.Total.Requests {
			t.Errorf("model %s: JTL holds %d lines; want one per request (%d)", m, lines, res.Total.Requests)
		}
		// Throughput divides by the window, not the window plus the drain.
		if res.MeasuredSeconds < 0.95 || res.MeasuredSeconds > 1.05 || res.DrainSeconds <= 0 {
			t.Errorf("model %s: measured %.3f s, drained %.3f s; want the 1 s window and a drain after it", m, res.MeasuredSeconds, res.DrainSeconds)
		}
	}
}

// stallListener accepts connections, reads requests and never answers.
func stallListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // hold the connection open until the client closes it
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
	return "http://" + ln.Addr().String() + "/"
}

func TestRequestsAbandonedAtTheStopAreCutoffErrors(t *testing.T) {
	url := stallListener(t)
	for _, m := range []Model{ModelDelay, ModelRate, ModelOpen} {
		dir := t.TempDir()
		jtlPath := filepath.Join(dir, "out.jtl")
		f, err := os.Create(jtlPath)
		if err != nil {
			t.Fatal(err)
		}
		// Each of the 3 clients sends one request that never ends; the
		// drain (200 ms) runs out long before the timeout (1 min).
		res := mustRun(t, Settings{Requests: []Request{{URL: url}}, Clients: 3, Model: m, Rate: 50,
			Duration: 300 * time.Millisecond, Timeout: time.Minute, Drain: 200 * time.Millisecond, JTL: f})
		f.Close()
		if res.Total.ErrorKinds["cutoff"] != 3 || res.Total.Requests != 3 {
			t.Errorf("model %s: %d requests, errors %v; want the 3 in flight as cutoff", m, res.Total.Requests, res.Total.ErrorKinds)
		}
		var inSeries int64
		for _, row := range res.Series {
			inSeries += row.Errors
		}
		if inSeries != 3 {
			t.Errorf("model %s: per-second series holds %d errors; want the 3 cutoffs", m, inSeries)
		}
		b, err := os.ReadFile(jtlPath)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), ",Non HTTP response code: cutoff,"); n != 3 {
			t.Errorf("model %s: JTL has %d cutoff lines; want 3:\n%s", m, n, b)
		}
	}
}

func TestInterruptCutsOffRequestsInFlight(t *testing.T) {
	url := stallListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := Run(ctx, Settings{Requests: []Request{{URL: url}}, Clients: 3, Duration: time.Minute, Timeout: time.Minute, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Total.ErrorKinds["cutoff"] != 3 || res.DrainSeconds > 1 {
		t.Errorf("interrupted %v, errors %v, drained %.3f s; want the 3 requests in flight cut off at once", res.Interrupted, res.Total.ErrorKinds, res.DrainSeconds)
	}
}

func TestInterruptDuringTheDrainCutsOff(t *testing.T) {
	url := stallListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(600*time.Millisecond, cancel) // the window ends at 300 ms
	res, err := Run(ctx, Settings{Requests: []Request{{URL: url}}, Clients: 3, Duration: 300 * time.Millisecond,
		Timeout: time.Minute, Drain: time.Minute, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Total.ErrorKinds["cutoff"] != 3 || res.DrainSeconds > 30 {
		t.Errorf("interrupted %v, errors %v, drained %.3f s; want the drain ended by the interrupt and the 3 requests cut off", res.Interrupted, res.Total.ErrorKinds, res.DrainSeconds)
	}
}
