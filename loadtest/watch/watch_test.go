package watch

import (
	"context"
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

	"bbslab/loadtest"
	"bbslab/loadtest/text"
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

// testStats are stats of the fake target's stats JSON, in the
// board's shape but given here: the watcher knows only what it is given.
var testStats = []Stat{
	{Name: "server_cpu", Path: "machine.process_cpu.total", Kind: Gauge, Unit: "% of a core", Column: "srv cpu %", Format: "%.1f"},
	{Name: "machine_cpu_idle", Path: "machine.cpu.idle", Kind: Gauge, Unit: "%"},
	{Name: "workers_busy", Path: "workers.busy_seconds_total", Kind: Counter},
	{Name: "workers_queued", Path: "workers.queued_seconds_total", Kind: Counter},
	{Name: "worker_wait", Path: "workers.wait_seconds_total", Kind: Counter, PerRequest: true, Scale: 1000, Unit: "ms/request"},
	{Name: "pool_wait", Path: "db_pool.acquire_wait_seconds_total", Kind: Counter, PerRequest: true, Scale: 1000, Unit: "ms/request"},
	{Name: "goroutines", Path: "goroutines", Kind: Gauge},
	{Name: "conn_established", Path: "connections.server.states.ESTABLISHED", Kind: Gauge},
	{Name: "conn_time_wait", Path: "connections.server.states.TIME_WAIT", Kind: Gauge},
	{Name: "accept_queue", Path: "connections.server.listen.accept_queue", Kind: Gauge},
}

// mustWatcher returns New(o) or fails the test.
func mustWatcher(t *testing.T, o Options) *Watcher {
	t.Helper()
	w, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return w
}

// mustRun runs s with seed 1 unless set.
func mustRun(t *testing.T, s loadtest.Settings) *loadtest.Result {
	t.Helper()
	if s.Seed == 0 {
		s.Seed = 1
	}
	res, err := loadtest.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool { return got >= want*(1-frac) && got <= want*(1+frac) }

// delayServer answers every request with a short page.
func delayServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	return srv
}

func TestServerStatsAndProfiles(t *testing.T) {
	srv, asked := fakeStatsTarget(t)
	dir := t.TempDir()
	res := mustRun(t, loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL + "/"}}, Clients: 2, Think: 2 * time.Millisecond,
		Warmup: 200 * time.Millisecond, Duration: 2100 * time.Millisecond,
		Watcher: mustWatcher(t, Options{StatsURL: srv.URL + "/admin/stats", Stats: testStats, EnvironmentKeys: []string{"goroutines", "workers"},
			ProfileURL: srv.URL + "/debug", ProfileKinds: []string{"fgprof", "cpu"}, ProfilePrefix: filepath.Join(dir, "x")})})
	got := seen(t, res)
	sr := got.Server
	if sr == nil || sr.Reads < 2 || sr.Failed != 0 {
		t.Fatalf("server stats %+v; want at least 2 reads and no failures", sr)
	}
	for name, want := range map[string]float64{"server_cpu": 50, "machine_cpu_idle": 40, "conn_established": 3, "accept_queue": 0, "goroutines": 9} {
		if got, ok := sr.Value(name); !ok || got != want {
			t.Errorf("stat %s = %v (found %v); want %v", name, got, ok, want)
		}
	}
	for name, want := range map[string]float64{"workers_busy": 1, "workers_queued": 2} {
		if got, ok := sr.Value(name); !ok || !within(got, want, 0.05) {
			t.Errorf("stat %s = %v (found %v); want about %v, the counter's rate", name, got, ok, want)
		}
	}
	if got, ok := sr.Value("worker_wait"); !ok || !within(got, 1, 0.5) {
		t.Errorf("worker_wait = %v ms/request (found %v); want about 1", got, ok)
	}
	for _, absent := range []string{"pool_wait", "conn_time_wait"} {
		if v, ok := sr.Value(absent); ok {
			t.Errorf("stat %s = %v; want it absent (no such path)", absent, v)
		}
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "unavailable on this target: pool_wait, conn_time_wait") {
		t.Errorf("warnings %q; want the stats the target lacks named", w)
	}
	if env := res.Environment.Server; string(env["goroutines"]) != "9" || env["workers"] == nil {
		t.Errorf("environment %v; want goroutines 9 and the workers object copied", env)
	}
	if ps := got.Profiles; len(ps) != 2 || ps[0].Kind != "cpu" || ps[1].Kind != "fgprof" {
		t.Fatalf("profiles %+v; want cpu and fgprof", ps)
	}
	for _, p := range got.Profiles {
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
	text.WriteSummary(&sum, res, Summary(res)...)
	if !strings.Contains(sum.String(), "server: server_cpu 50 % of a core") || !strings.Contains(sum.String(), "profile: cpu ") {
		t.Errorf("summary lacks the server and profile lines:\n%s", sum.String())
	}
	var tab strings.Builder
	text.WriteSweepTable(&tab, []*loadtest.Result{res}, Columns(testStats))
	if !strings.Contains(tab.String(), "srv cpu %") || !strings.Contains(tab.String(), "50.0") {
		t.Errorf("sweep table lacks the server column:\n%s", tab.String())
	}
}

func TestUnreachableStatsAreCountedNotFatal(t *testing.T) {
	srv := delayServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	res := mustRun(t, loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 1, Think: 10 * time.Millisecond, Duration: 1200 * time.Millisecond,
		Watcher: mustWatcher(t, Options{StatsURL: "http://" + dead + "/admin/stats", Stats: testStats, ProfileURL: "http://" + dead + "/debug", ProfilePrefix: filepath.Join(t.TempDir(), "p")})})
	if res.Total.Successes == 0 {
		t.Errorf("no successes: the load must go on without the stats")
	}
	got := seen(t, res)
	if sr := got.Server; sr == nil || sr.Failed < 1 || sr.Reads != 0 || len(sr.Values) != 0 {
		t.Errorf("server stats %+v; want failed reads counted and no values", sr)
	}
	if len(got.Profiles) != 0 {
		t.Errorf("profiles %+v from a dead endpoint", got.Profiles)
	}
	warned := strings.Join(res.Warnings, "\n")
	if !strings.Contains(warned, "server stats:") || !strings.Contains(warned, "cpu profile:") {
		t.Errorf("warnings %q; want the failed stats reads and profile named", warned)
	}
}

func TestServerStatsOffByDefault(t *testing.T) {
	srv := delayServer(t)
	res := mustRun(t, loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 1, MaxRequests: 5})
	if res.Server != nil || res.Profiles != nil || res.Timeline != nil {
		t.Errorf("server %s, profiles %s, timeline %+v; want none unless asked", res.Server, res.Profiles, res.Timeline)
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

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{ProfileURL: "http://127.0.0.1:1/debug", ProfileKinds: []string{"heap"}}, `"heap"`},
		{Options{StatsURL: "http://127.0.0.1:1/s", Stats: []Stat{{Name: "x", Path: "a.b", Kind: "rate"}}}, `kind "rate"`},
		{Options{StatsURL: "http://127.0.0.1:1/s", Stats: []Stat{{Name: "x", Kind: Gauge}}}, "a name and a path"},
		{Options{ProfileURL: "http://127.0.0.1:1/debug", ProfileSeconds: 31}, "profile seconds 31"},
		{Options{}, "nothing to watch"},
		{Options{StatsURL: "http://127.0.0.1:1/s", States: []State{{Name: "x", Path: "a", Minus: []string{"y"}}}}, `minus "y"`},
		{Options{StatsURL: "http://127.0.0.1:1/s", States: []State{{Name: "x"}}}, "a name and a path"},
	} {
		if _, err := New(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v; want an error with %s", tt.o, err, tt.want)
		}
	}
}

// seen returns what the watcher saw in res.
func seen(t *testing.T, res *loadtest.Result) Seen {
	t.Helper()
	s, err := Of(res)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCounterReadAtTheWindowsEnd checks that a short window's counters
// have a rate when a read is slow: the stats target holds the read at 1 s
// until the poller gives up on it, and the window ends at 1.3 s. Without
// a read at the window's end it had one read and no rate.
func TestCounterReadAtTheWindowsEnd(t *testing.T) {
	t0 := time.Now()
	var n atomic.Int64
	stats := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 { // the beat's read at 1 s: slow past the window
			<-r.Context().Done()
			return
		}
		fmt.Fprintf(w, `{"workers": {"busy_seconds_total": %g}}`, time.Since(t0).Seconds())
	}))
	t.Cleanup(stats.Close)
	srv := delayServer(t)
	res := mustRun(t, loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 1, Think: 10 * time.Millisecond,
		Duration: 1300 * time.Millisecond,
		Watcher:  mustWatcher(t, Options{StatsURL: stats.URL, Stats: []Stat{{Name: "busy", Path: "workers.busy_seconds_total", Kind: Counter}}})})
	sr := seen(t, res).Server
	if sr == nil || sr.Reads != 2 {
		t.Fatalf("server stats %+v; want 2 reads: the window's start and its end (the one at 1 s held)", sr)
	}
	// The counter grows at 1/s; generous bounds: only its presence and
	// unit are in question, not the machine's timing.
	if v, ok := sr.Value("busy"); !ok || v < 0.5 || v > 2 {
		t.Errorf("busy = %v (present %v); want about 1 per second", v, ok)
	}
}
