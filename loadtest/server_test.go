package loadtest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// fakeStatsTarget serves a page at /, a stats JSON in the board's shape at
// /admin/stats (1 ms of worker wait per request so far) and tiny profiles
// at /debug/pprof/profile and /debug/fgprof, recording the seconds asked.
func fakeStatsTarget(t *testing.T) (*httptest.Server, *sync.Map) {
	t.Helper()
	var n atomic.Int64
	var asked sync.Map
	// One worker busy and two requests queued all the time: the
	// state-seconds counters grow at 1 and 2 per second.
	t0 := time.Now()
	since := func() float64 { return time.Since(t0).Seconds() }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/admin/stats":
			fmt.Fprintf(w, `{"machine": {"process_cpu": {"total": 50}, "cpu": {"idle": 40}},
				"workers": {"busy_seconds_total": %g, "queued_seconds_total": %g, "wait_seconds_total": %g},
				"goroutines": 9,
				"connections": {"server": {"states": {"ESTABLISHED": 3}, "listen": {"accept_queue": 0}}}}`,
				since(), 2*since(), float64(n.Load())*0.001)
		case "/debug/pprof/profile", "/debug/fgprof":
			asked.Store(r.URL.Path, r.URL.Query().Get("seconds"))
			if err := tinyProfile().Write(w); err != nil {
				t.Errorf("write profile: %v", err)
			}
		default:
			n.Add(1)
			w.Write([]byte("<html>hello</html>"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// tinyProfile is a valid CPU profile with one sample in main.work.
func tinyProfile() *profile.Profile {
	fn := &profile.Function{ID: 1, Name: "main.work"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
		Function:   []*profile.Function{fn},
		Location:   []*profile.Location{loc},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1, 10_000_000}}},
	}
}

func TestServerReadingsAndProfiles(t *testing.T) {
	srv, asked := fakeStatsTarget(t)
	dir := t.TempDir()
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL + "/"}}, Clients: 2, Think: 2 * time.Millisecond,
		Warmup: 200 * time.Millisecond, Duration: 2100 * time.Millisecond,
		StatsURL: srv.URL + "/admin/stats", ProfileURL: srv.URL + "/debug", ProfileKinds: []string{"fgprof", "cpu"},
		ProfilePrefix: filepath.Join(dir, "x")})
	sr := res.Server
	if sr == nil || sr.Samples < 2 || sr.Failed != 0 {
		t.Fatalf("server readings %+v; want at least 2 samples and no failures", sr)
	}
	for name, want := range map[string]float64{"server_cpu": 50, "machine_cpu_idle": 40, "conn_established": 3, "accept_queue": 0, "goroutines": 9} {
		if got, ok := sr.Value(name); !ok || got != want {
			t.Errorf("reading %s = %v (found %v); want %v", name, got, ok, want)
		}
	}
	for name, want := range map[string]float64{"workers_busy": 1, "workers_queued": 2} {
		if got, ok := sr.Value(name); !ok || !within(got, want, 0.05) {
			t.Errorf("reading %s = %v (found %v); want about %v, the counter's rate", name, got, ok, want)
		}
	}
	if got, ok := sr.Value("worker_wait"); !ok || !within(got, 1, 0.5) {
		t.Errorf("worker_wait = %v ms/request (found %v); want about 1", got, ok)
	}
	for _, absent := range []string{"pool_wait", "pool_in_use", "conn_time_wait"} {
		if v, ok := sr.Value(absent); ok {
			t.Errorf("reading %s = %v; want it absent (no such path)", absent, v)
		}
	}
	if len(res.Profiles) != 2 || res.Profiles[0].Kind != "cpu" || res.Profiles[1].Kind != "fgprof" {
		t.Fatalf("profiles %+v; want cpu and fgprof", res.Profiles)
	}
	for _, p := range res.Profiles {
		want := filepath.Join(dir, "x-2clients-"+p.Kind+".pb.gz")
		if p.File != want {
			t.Errorf("%s profile file %q; want %q", p.Kind, p.File, want)
		}
		if _, err := os.Stat(p.File); err != nil {
			t.Errorf("%s profile: %v", p.Kind, err)
		}
		if len(p.Top) == 0 || p.Top[0].Name != "main.work" {
			t.Errorf("%s profile top %+v; want main.work", p.Kind, p.Top)
		}
	}
	for _, path := range []string{"/debug/pprof/profile", "/debug/fgprof"} {
		if s, _ := asked.Load(path); s != "2" {
			t.Errorf("%s?seconds=%v; want 2 (the measured duration)", path, s)
		}
	}

	var sum strings.Builder
	WriteSummary(&sum, res)
	if !strings.Contains(sum.String(), "server: server_cpu 50 % of a core") || !strings.Contains(sum.String(), "profile: cpu ") {
		t.Errorf("summary lacks the server and profile lines:\n%s", sum.String())
	}
	var tab strings.Builder
	WriteSweepTable(&tab, []*Result{res})
	if !strings.Contains(tab.String(), "srv cpu %") || !strings.Contains(tab.String(), "50.0") {
		t.Errorf("sweep table lacks the server columns:\n%s", tab.String())
	}
	files, err := WriteSweepCharts(filepath.Join(dir, "sw"), []Curve{{Name: "fake", Runs: []*Result{res}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, " "); !strings.Contains(got, "sw-server-cpu.svg") || !strings.Contains(got, "sw-server-wait.png") {
		t.Errorf("sweep charts %v; want the server CPU and wait charts", files)
	}
}

func TestUnreachableStatsAreCountedNotFatal(t *testing.T) {
	srv, _ := delayServer(t, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 1, Think: 10 * time.Millisecond, Duration: 1200 * time.Millisecond,
		StatsURL: "http://" + dead + "/admin/stats", ProfileURL: "http://" + dead + "/debug", ProfilePrefix: filepath.Join(t.TempDir(), "p")})
	if res.Total.Successes == 0 {
		t.Errorf("no successes: the load must go on without the stats")
	}
	if res.Server == nil || res.Server.Failed < 1 || res.Server.Samples != 0 || len(res.Server.Values) != 0 {
		t.Errorf("server readings %+v; want failed reads counted and no values", res.Server)
	}
	if len(res.Profiles) != 0 {
		t.Errorf("profiles %+v from a dead endpoint", res.Profiles)
	}
	warned := strings.Join(res.Warnings, "\n")
	if !strings.Contains(warned, "server stats:") || !strings.Contains(warned, "cpu profile:") {
		t.Errorf("warnings %q; want the failed stats reads and profile named", warned)
	}
}

func TestServerReadingsOffByDefault(t *testing.T) {
	srv, _ := delayServer(t, 0)
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 1, MaxRequests: 5})
	if res.Server != nil || res.Profiles != nil || res.Timeline != nil {
		t.Errorf("server %+v, profiles %+v, timeline %+v; want none unless asked", res.Server, res.Profiles, res.Timeline)
	}
	b, err := res.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"server"`, `"profiles"`, `"timeline"`, `"stats_url"`} {
		if strings.Contains(string(b), key) {
			t.Errorf("JSON has %s without the setting", key)
		}
	}
}

func TestBadProfileKind(t *testing.T) {
	s := Settings{Requests: []Request{{URL: "http://127.0.0.1:1/"}}, Clients: 1, Duration: time.Second, ProfileURL: "http://127.0.0.1:1/debug", ProfileKinds: []string{"heap"}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "heap") {
		t.Errorf("Validate(profile kind heap) = %v; want an error naming it", err)
	}
}
