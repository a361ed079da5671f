package loadtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestObserverSeesEachSecond checks an observer: it is told once
// per second's row as the run goes, with the row the result keeps (p90
// between p50 and p99, errors by kind adding up to the second's errors).
func TestObserverSeesEachSecond(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		time.Sleep(time.Duration(n.Load()%3) * time.Millisecond)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var mu sync.Mutex
	var seen []SecondRow
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 3, Think: 5 * time.Millisecond,
		Warmup: time.Second, Duration: 2 * time.Second,
		Observers: []Observer{ObserverFunc(func(r SecondRow) {
			mu.Lock()
			seen = append(seen, r)
			mu.Unlock()
		})}})
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("Second called %d times in a 3 s run; want one call a second", len(seen))
	}
	if len(seen) != len(res.Series) {
		t.Fatalf("Second called %d times; the series has %d rows: want one call per row", len(seen), len(res.Series))
	}
	for i, r := range seen {
		if r.T != res.Series[i].T || r.Successes != res.Series[i].Successes {
			t.Errorf("Second row %d: t=%v %d successes; the series has t=%v %d", i, r.T, r.Successes, res.Series[i].T, res.Series[i].Successes)
		}
		if r.Successes > 0 && !(r.P50Ms <= r.P90Ms && r.P90Ms <= r.P99Ms && r.P90Ms > 0) {
			t.Errorf("row %d: p50 %v p90 %v p99 %v; want 0 < p90 and p50 <= p90 <= p99", i, r.P50Ms, r.P90Ms, r.P99Ms)
		}
		var kinds int64
		for _, c := range r.ErrorKinds {
			kinds += c
		}
		if kinds != r.Errors || r.ErrorKinds["status"] != r.Errors {
			t.Errorf("row %d: %d errors, by kind %v; want them all as status errors", i, r.Errors, r.ErrorKinds)
		}
	}
	if seen[0].Errors == 0 {
		t.Errorf("first second had no errors; every fourth answer is a 500")
	}
}
