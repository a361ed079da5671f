package loadtest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseStartAt(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, loc)
	good := []struct {
		in   string
		want time.Time
	}{
		{"+10s", now.Add(10 * time.Second)},
		{" +1m30s ", now.Add(90 * time.Second)},
		{"+0s", now},
		{"12:30:00", time.Date(2026, 12, 2, 12, 30, 0, 0, loc)},
		{"12:30", time.Date(2026, 12, 2, 12, 30, 0, 0, loc)},
		{"12:00:00.250", now.Add(250 * time.Millisecond)},
		{"11:59:59.5", now.Add(-500 * time.Millisecond)}, // within StartAtPast
		{"2026-12-02T12:00:05Z", now.Add(time.Hour + 5*time.Second)},
		{"2026-12-02T12:00:05.125+01:00", now.Add(5125 * time.Millisecond)},
	}
	for _, c := range good {
		got, err := ParseStartAt(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseStartAt(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"", "want +DURATION"},
		{"+", "want +DURATION"},
		{"+-5s", "want +DURATION"},
		{"+ten", "want +DURATION"},
		{"soon", "want +DURATION"},
		{"25:00:00", "want +DURATION"},
		{"+25h", "ahead: want a time within 24h0m0s"},
		{"11:00:00", "11:00:00 today is 1h0m0s ago; a clock time means today"},
		{"2026-12-02T10:58:00Z", "is 2m0s in the past"},
		{"2026-12-02 12:00:00", "not an RFC 3339 time"},
		{"2026-12-04T12:00:00+01:00", "48h0m0s ahead"},
	}
	for _, c := range bad {
		got, err := ParseStartAt(c.in, now)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "start at") {
			t.Errorf("ParseStartAt(%q) = %v, %v; want an error containing %q", c.in, got, err, c.want)
		}
	}
}

func TestValidateStartAt(t *testing.T) {
	for _, d := range []time.Duration{-5 * time.Second, 25 * time.Hour} {
		s := Settings{Requests: []Request{{URL: "http://127.0.0.1:1/"}}, Clients: 1, Duration: time.Second, StartAt: time.Now().Add(d)}
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "start at") {
			t.Errorf("Validate with start at now%+v = %v; want an error naming the start", d, err)
		}
	}
}

// firstArrivals is a server that records when each path first arrived.
func firstArrivals(t *testing.T) (*httptest.Server, func() map[string]time.Time) {
	t.Helper()
	var mu sync.Mutex
	first := map[string]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		if _, ok := first[r.URL.Path]; !ok {
			first[r.URL.Path] = now
		}
		mu.Unlock()
		w.Write([]byte("<html>ok</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]time.Time {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
}

// TestStartAtAlignsGenerators runs two generators in parallel with one
// StartAt: their windows are the same to the nanosecond (both count from
// StartAt), neither sends before it, and their first requests reach the
// server close together. The bound on that spread is 250 ms, generous for
// two shared cores under -race; docs/generators.md gives the measured
// spread.
func TestStartAtAlignsGenerators(t *testing.T) {
	srv, first := firstArrivals(t)
	startAt := time.Now().Add(300 * time.Millisecond)
	s := Settings{Clients: 2, Think: 10 * time.Millisecond, Model: ModelRate, Warmup: 200 * time.Millisecond,
		Duration: 500 * time.Millisecond, StartAt: startAt, Seed: 1}
	var res [2]*Result
	var errs [2]error
	var wg sync.WaitGroup
	for i, path := range []string{"/a", "/b"} {
		wg.Go(func() {
			si := s
			si.Requests = []Request{{URL: srv.URL + path}}
			res[i], errs[i] = Run(context.Background(), si)
		})
	}
	wg.Wait()
	for i, r := range res {
		if errs[i] != nil {
			t.Fatalf("generator %d: %v", i+1, errs[i])
		}
		if !r.Start.Equal(startAt) || !r.MeasureStart.Equal(startAt.Add(s.Warmup)) || !r.End.Equal(startAt.Add(s.Warmup+s.Duration)) {
			t.Errorf("generator %d window %v, %v to %v; want start %v, measured from %v for %v", i+1, r.Start, r.MeasureStart, r.End, startAt, startAt.Add(s.Warmup), s.Duration)
		}
		if !r.Settings.StartAt.Equal(startAt) || r.StartLagMs <= 0 || r.StartLagMs > 250 {
			t.Errorf("generator %d recorded start at %v, lag %.3f ms; want %v and a lag in (0, 250] ms", i+1, r.Settings.StartAt, r.StartLagMs, startAt)
		}
		if r.Total.Successes == 0 {
			t.Errorf("generator %d measured no successes", i+1)
		}
	}
	f := first()
	a, b := f["/a"], f["/b"]
	if a.Before(startAt) || b.Before(startAt) {
		t.Errorf("first requests arrived at %v and %v, before the start %v", a, b, startAt)
	}
	if spread := a.Sub(b).Abs(); spread > 250*time.Millisecond {
		t.Errorf("first requests arrived %v apart; want within 250 ms", spread)
	}
	t.Logf("start lags %.3f and %.3f ms; first arrivals %v and %v after the start", res[0].StartLagMs, res[1].StartLagMs, a.Sub(startAt), b.Sub(startAt))
}

func TestStartAtWaitIsInterruptible(t *testing.T) {
	srv, n := delayServer(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	began := time.Now()
	res, err := Run(ctx, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 1, Duration: time.Second, StartAt: time.Now().Add(time.Minute)})
	if !errors.Is(err, context.Canceled) || res != nil || !strings.Contains(err.Error(), "waiting to start at") {
		t.Errorf("Run interrupted in its wait = %v, %v; want no result and an error naming the wait", res, err)
	}
	// 5 s: far above the 100 ms the cancel takes, far below the minute.
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("the interrupted wait took %v", waited)
	}
	if n.Load() != 0 {
		t.Errorf("%d requests reached the server; want none", n.Load())
	}
}

func TestLateStartWarns(t *testing.T) {
	srv, _ := delayServer(t, 0)
	startAt := time.Now().Add(-500 * time.Millisecond) // within StartAtPast
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 1, Think: 10 * time.Millisecond, Duration: time.Second, StartAt: startAt})
	if res.StartLagMs < 500 || !res.End.Equal(startAt.Add(time.Second)) {
		t.Errorf("late start: lag %.3f ms, end %v; want at least 500 ms and the window kept at %v", res.StartLagMs, res.End, startAt.Add(time.Second))
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "ms after start_at") {
		t.Errorf("warnings %q; want one on the late start", w)
	}
}

func TestSweepStartsFirstStepAt(t *testing.T) {
	srv, _ := delayServer(t, 0)
	startAt := time.Now().Add(200 * time.Millisecond)
	runs, err := Sweep(t.Context(), Settings{Requests: []Request{{URL: srv.URL}}, Think: 10 * time.Millisecond, Duration: 200 * time.Millisecond, StartAt: startAt}, []int{1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || !runs[0].Start.Equal(startAt) || !runs[1].Settings.StartAt.IsZero() || runs[1].Start.Before(runs[0].End) {
		t.Errorf("sweep steps start %v (at %v) and %v (at %v); want the first at %v, the second after it without a start time",
			runs[0].Start, runs[0].Settings.StartAt, runs[1].Start, runs[1].Settings.StartAt, startAt)
	}
}
