package tune

import (
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// TestComplete checks a command line's tuning: 3 s measured after 1 s of
// warm-up unless given (no duration with a bound on the requests), the
// clients, objectives and start filled in, and each bad value a usage
// error naming its flag.
func TestComplete(t *testing.T) {
	spec := func() *Spec {
		return &Spec{Admin: "http://127.0.0.1:6060", Load: loadtest.Settings{Requests: []loadtest.Request{{URL: "http://127.0.0.1:8080/"}}}}
	}
	s := spec()
	if err := s.Complete(20, "p99<10ms", "5/6", false, false); err != nil {
		t.Fatal(err)
	}
	if s.Load.Duration != 3*time.Second || s.Load.Warmup != time.Second || s.Load.Clients != 20 ||
		len(s.Objectives) != 1 || s.Objectives[0].Text != "p99<10ms" || s.Start != (watch.Knobs{Workers: 5, Pool: 6}) {
		t.Errorf("Complete = %+v; want 3 s after 1 s, 20 clients, p99<10ms from 5/6", s)
	}
	s = spec()
	s.Load.Duration, s.Load.Warmup = 5*time.Second, 0
	if err := s.Complete(1, "p99<10ms", "", true, true); err != nil || s.Load.Duration != 5*time.Second || s.Load.Warmup != 0 || s.Start != (watch.Knobs{}) {
		t.Errorf("Complete with -duration 5s -warmup 0 = %v, %+v; want them kept, no start", err, s.Load)
	}
	s = spec()
	s.Load.MaxRequests = 100
	if err := s.Complete(1, "p99<10ms", "", false, false); err != nil || s.Load.Duration != 0 {
		t.Errorf("Complete with -requests 100 = %v, duration %v; want no duration", err, s.Load.Duration)
	}
	for _, tc := range []struct {
		clients           int
		slo, start, admin string
		want              string
	}{
		{20, "p99=10ms", "", "", "-slo: "},
		{20, "p99<10ms", "0/5", "", `-start "0/5": want WORKERS/POOL`},
		{20, "p99<10ms", "", "127.0.0.1:6060", `-admin "127.0.0.1:6060": `},
		{0, "p99<10ms", "", "", "clients 0"},
	} {
		s := spec()
		if tc.admin != "" {
			s.Admin = tc.admin
		}
		err := s.Complete(tc.clients, tc.slo, tc.start, false, false)
		if cli.ExitCode(err) != cli.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Complete(%d, %q, %q) admin %q = %v; want a usage error naming %q", tc.clients, tc.slo, tc.start, s.Admin, err, tc.want)
		}
	}
}

// TestDescribe checks the line a command prints before it tunes.
func TestDescribe(t *testing.T) {
	s := &Spec{Admin: "http://127.0.0.1:6060", Goal: "throughput", Repeats: 3, Steps: 12,
		Load: loadtest.Settings{Requests: []loadtest.Request{{URL: "http://127.0.0.1:8080/bbs?cmd=AllView"}}}}
	if err := s.Complete(20, "p99<10ms,errors<0.1%", "", false, false); err != nil {
		t.Fatal(err)
	}
	want := "http://127.0.0.1:8080/bbs?cmd=AllView at 20 clients, 3s measured 3 times per setting, objectives p99<10ms,errors<0.1%, goal throughput, budget 12 steps"
	if got := s.Describe(); got != want {
		t.Errorf("Describe() = %q; want %q", got, want)
	}
}
