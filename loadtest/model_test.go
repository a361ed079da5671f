package loadtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Rate model: throughput = clients/think while responses are faster than
// the think time.
func TestRateModelHoldsClientsOverThink(t *testing.T) {
	skipShort(t)
	srv, _ := delayServer(t, 2*time.Millisecond)
	res := mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 10, Model: ModelRate,
		Think: 20 * time.Millisecond, Warmup: 300 * time.Millisecond, Duration: 2 * time.Second,
	})
	want := 10 / 0.020
	tol := 0.03 + behind(res, 10, 20*time.Millisecond)
	if !within(res.Total.Throughput, want, tol) {
		t.Errorf("rate model, server 2 ms, think 20 ms, 10 clients: throughput %.1f/s; want %.0f ± %.1f%% (3 %% + %.1f%% for a schedule lag of up to %.1f ms)",
			res.Total.Throughput, want, tol*100, (tol-0.03)*100, res.Cost.ScheduleLagMaxMs)
	}
	if res.Total.Errors != 0 {
		t.Errorf("errors = %d; want 0", res.Total.Errors)
	}
}

// behind is the share of a rate-model run's measured requests that a
// generator running late can move across the window's edges: requests due
// in the warm-up but sent (and counted) in the window, or due in the window
// and never sent. Each client can be behind by at most the largest schedule
// lag the run measured, that is lag/think requests. On an idle machine the
// lag is about a millisecond and this is a fraction of a percent; at load
// average 11 the catch-up after a starved warm-up gave 565/s for 500.
func behind(res *Result, clients int, think time.Duration) float64 {
	lag := time.Duration(res.Cost.ScheduleLagMaxMs * float64(time.Millisecond))
	perClient := float64(lag) / float64(think)
	want := float64(clients) / think.Seconds() * res.MeasuredSeconds
	if want <= 0 {
		return 0
	}
	return float64(clients) * perClient / want
}

// Rate model: throughput falls to clients/response time when responses are
// slower than the think time.
func TestRateModelFallsToClientsOverResponse(t *testing.T) {
	skipShort(t)
	var mu sync.Mutex
	var served time.Duration
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		time.Sleep(40 * time.Millisecond)
		w.Write([]byte("ok"))
		mu.Lock()
		served += time.Since(t0)
		n++
		mu.Unlock()
	}))
	defer srv.Close()
	res := mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 10, Model: ModelRate,
		Think: 20 * time.Millisecond, Warmup: 300 * time.Millisecond, Duration: 2 * time.Second,
	})
	mu.Lock()
	resp := served.Seconds() / float64(n) // the server's actual response time
	mu.Unlock()
	// Back to back: each cycle is one response time.
	want := 10 / resp
	if !within(res.Total.Throughput, want, 0.05) {
		t.Errorf("rate model, server %.2f ms, think 20 ms, 10 clients: throughput %.1f/s; want clients/response = %.1f ± 5%%", resp*1000, res.Total.Throughput, want)
	}
	if ideal := 10 / 0.020; res.Total.Throughput > ideal*0.6 {
		t.Errorf("throughput %.1f; want it well below clients/think = %.0f", res.Total.Throughput, ideal)
	}
	if res.Total.MeanMs < 40 {
		t.Errorf("mean latency %.2f ms; want at least the 40 ms server time", res.Total.MeanMs)
	}
	if res.Cost.LateRequests == 0 {
		t.Errorf("LateRequests = 0; want requests recorded as late")
	}
}

// Delay model: throughput = clients/(think + response).
func TestDelayModelClientsOverThinkPlusResponse(t *testing.T) {
	skipShort(t)
	srv, _ := delayServer(t, 10*time.Millisecond)
	res := mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 20, Model: ModelDelay,
		Think: 40 * time.Millisecond, Warmup: 300 * time.Millisecond, Duration: 2 * time.Second,
	})
	// The think time actually spent includes the clients' measured wake-up
	// lateness (Go timers fire up to about a millisecond late).
	resp := res.Total.MeanMs / 1000
	lag := res.Cost.TimerLagMeanMs / 1000
	want := 20 / (0.040 + lag + resp)
	if !within(res.Total.Throughput, want, 0.05) {
		t.Errorf("delay model, think 40 ms (+%.2f ms timer lag), response %.2f ms, 20 clients: throughput %.1f/s; want %.1f ± 5%%", lag*1000, resp*1000, res.Total.Throughput, want)
	}
	if rateIdeal := 20 / 0.040; res.Total.Throughput > rateIdeal*0.9 {
		t.Errorf("delay model throughput %.1f is close to the rate model's %.0f; want the response time to lower it", res.Total.Throughput, rateIdeal)
	}
}

// A server that stalls once for 1 s shows in the rate model's p99 (latency
// from the intended start) and not in the delay model's.
func TestStallShowsInRateModelOnly(t *testing.T) {
	skipShort(t)
	run := func(m Model) *Result {
		var stall sync.RWMutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stall.RLock()
			stall.RUnlock()
			w.Write([]byte("ok"))
		}))
		defer srv.Close()
		go func() {
			time.Sleep(1200 * time.Millisecond)
			stall.Lock()
			time.Sleep(time.Second)
			stall.Unlock()
		}()
		return mustRun(t, Settings{
			Requests: []Request{{URL: srv.URL}}, Clients: 10, Model: m,
			Think: 10 * time.Millisecond, Warmup: 200 * time.Millisecond, Duration: 3 * time.Second,
		})
	}
	rate := run(ModelRate)
	delay := run(ModelDelay)
	if rate.Total.P99Ms < 500 {
		t.Errorf("rate model p99 = %.1f ms; want the 1 s stall to show (> 500 ms)", rate.Total.P99Ms)
	}
	if delay.Total.P99Ms > 100 {
		t.Errorf("delay model p99 = %.1f ms; want the stall hidden (< 100 ms)", delay.Total.P99Ms)
	}
	if delay.Total.MaxMs < 900 {
		t.Errorf("delay model max = %.1f ms; want the stalled requests (~1000 ms) in the max", delay.Total.MaxMs)
	}
}

// Warm-up samples are excluded from the results but kept in the series.
// The server fails its answers in the first 600 ms of the 1 s warm-up: a
// mark that a busy machine cannot fake, as it could a slow answer (a 60 ms
// warm-up delay was once told apart by a 50 ms bound on the window's max
// latency, which an answer slowed by the machine, 96 ms at load average
// 16, crossed).
func TestWarmupExcluded(t *testing.T) {
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if time.Since(start) < 600*time.Millisecond {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res := mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 5, Model: ModelDelay,
		Think: 10 * time.Millisecond, Warmup: time.Second, Duration: time.Second,
	})
	if res.Total.Errors != 0 {
		t.Errorf("%d errors in the window; want the warm-up's 503s excluded", res.Total.Errors)
	}
	if res.Total.Requests == 0 {
		t.Fatalf("no measured requests")
	}
	var warm, failedWarm bool
	for _, r := range res.Series {
		if r.Warmup {
			warm = true
			if r.Errors > 0 {
				failedWarm = true
			}
		}
	}
	if !warm || !failedWarm {
		t.Errorf("series has warm-up rows %v with failed answers %v; want both", warm, failedWarm)
	}
}

// The open model sends at the arrival rate and counts arrivals dropped at
// the in-flight cap.
func TestOpenModel(t *testing.T) {
	skipShort(t)
	srv, _ := delayServer(t, time.Millisecond)
	res := mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 10, Model: ModelOpen, Rate: 400,
		Warmup: 200 * time.Millisecond, Duration: 1500 * time.Millisecond,
	})
	if !within(res.Total.Throughput, 400, 0.05) {
		t.Errorf("open model at 400/s: throughput %.1f; want 400 ± 5%%", res.Total.Throughput)
	}
	// About 0.4 requests are in flight on average, far below the cap of
	// 10: only a machine that stops the test's goroutines for tens of
	// milliseconds (seen at load average 8-10 on the lab's 2-core VM:
	// 1-39 drops of 600) fills the cap. Over 5 % dropped is the model's
	// fault, not the machine's.
	if res.Open == nil || res.Open.Dropped > res.Open.Arrivals/20 {
		t.Errorf("open stats %+v; want at most 5 %% dropped, with 10 connections for ~0.4 in flight", res.Open)
	}

	// A ramp-up of 1 s climbs to 400/s: 200 arrivals in the ramp, half
	// the 400 of a flat start.
	res = mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 10, Model: ModelOpen, Rate: 400,
		Rampup: time.Second, Duration: time.Second,
	})
	if res.Open == nil || !within(float64(res.Open.Arrivals), 200, 0.05) {
		t.Errorf("open stats %+v with a 1 s ramp-up to 400/s; want 200 ± 5%% arrivals in the first second", res.Open)
	}

	slow, _ := delayServer(t, 100*time.Millisecond)
	res = mustRun(t, Settings{
		Requests: []Request{{URL: slow.URL}}, Clients: 2, Model: ModelOpen, Rate: 100,
		Duration: time.Second,
	})
	// Two connections at 100 ms each carry about 20/s; the rest is dropped.
	if res.Open == nil || res.Open.Dropped < 50 {
		t.Errorf("open stats %+v; want most of the ~100 arrivals dropped at the cap of 2", res.Open)
	}
	if res.Total.Throughput > 25 {
		t.Errorf("throughput %.1f; want at most ~20/s through 2 connections", res.Total.Throughput)
	}
}
