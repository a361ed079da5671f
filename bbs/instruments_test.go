package bbs

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"bbslab/entity/fake"
	"bbslab/machine"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// newInstrumentsTest returns a server on a fake store with its public and
// admin handlers running.
func newInstrumentsTest(t *testing.T, opt Options) (s *Server, st *fake.Store, pub, adm *httptest.Server) {
	t.Helper()
	st = fake.New(100)
	opt.Store = st
	s = New(opt)
	s.SetReady(true)
	pub = httptest.NewServer(s.Handler())
	adm = httptest.NewServer(s.AdminHandler())
	t.Cleanup(pub.Close)
	t.Cleanup(adm.Close)
	return s, st, pub, adm
}

// metricLines returns the /metrics text.
func metricLines(t *testing.T, adm string) string {
	t.Helper()
	resp, body := get(t, adm+"/metrics")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return body
}

// metricValue returns the value of the sample line that starts with series
// (name and labels exactly as exposed, labels sorted by name).
func metricValue(t *testing.T, text, series string) (float64, bool) {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: value %q: %v", series, v, err)
			}
			return f, true
		}
	}
	return 0, false
}

// expectMetrics waits until every series in want has its value (the
// metrics of a request are recorded just after its response is sent), then
// returns the /metrics text; after 10 s it reports what differs.
func expectMetrics(t *testing.T, adm string, want map[string]float64) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text := metricLines(t, adm)
		var bad []string
		for series, v := range want {
			if got, ok := metricValue(t, text, series); !ok || got != v {
				bad = append(bad, fmt.Sprintf("%s = %v (present %v); want %v", series, got, ok, v))
			}
		}
		if len(bad) == 0 {
			return text
		}
		if time.Now().After(deadline) {
			for _, b := range bad {
				t.Error(b)
			}
			return text
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestMetricsAfterKnownRequests(t *testing.T) {
	_, _, pub, adm := newInstrumentsTest(t, Options{Workers: 2, Queue: 2})
	for _, u := range []string{"/bbs?cmd=AllView", "/bbs?cmd=AllView&n=5", "/bbs?cmd=EachGetView", "/bbs?cmd=Nope"} {
		get(t, pub.URL+u)
	}
	want := map[string]float64{
		`bbs_requests_total{code="200",command="AllView"}`:                 2,
		`bbs_requests_total{code="200",command="EachGetView"}`:             1,
		`bbs_requests_total{code="400",command="none"}`:                    1,
		`bbs_request_duration_seconds_count{command="AllView"}`:            2,
		`bbs_request_duration_seconds_count{command="EachGetView"}`:        1,
		`bbs_db_queries_total{command="AllView"}`:                          2,
		`bbs_db_queries_total{command="EachGetView"}`:                      30,
		`bbs_worker_queue_wait_seconds_count`:                              3,
		`bbs_worker_queue_wait_seconds_bucket{le="0"}`:                     3, // a worker was free each time
		`bbs_db_acquire_duration_seconds_count`:                            32,
		`bbs_db_acquires_total`:                                            32,
		`bbs_db_acquires_waiting`:                                          0,
		`bbs_db_pool_connections{state="in_use"}`:                          0,
		`bbs_db_pool_connections{state="idle"}`:                            1,
		`bbs_db_pool_connections{state="opening"}`:                         0,
		`bbs_db_pool_size`:                                                 1,
		`bbs_db_connects_total`:                                            0,
		`bbs_workers_limit`:                                                2,
		`bbs_workers_busy`:                                                 0,
		`bbs_worker_queue_length`:                                          0,
		`bbs_worker_rejected_total`:                                        0,
		`go_sched_gomaxprocs_threads`:                                      float64(runtimeGOMAXPROCS()),
		`bbs_request_duration_seconds_bucket{command="AllView",le="+Inf"}`: 2,
	}
	text := expectMetrics(t, adm.URL, want)
	// Runtime and process metrics, including the scheduler latency and GC
	// pauses that the default Go collector leaves out.
	for _, name := range []string{"go_sched_latencies_seconds_bucket", "go_sched_pauses_total_gc_seconds_bucket",
		"go_goroutines ", "go_threads ", "go_sched_goroutines_goroutines ", "process_cpu_seconds_total ", "process_resident_memory_bytes "} {
		if !strings.Contains(text, "\n"+name) {
			t.Errorf("/metrics lacks %s", strings.TrimSpace(name))
		}
	}
	if v, ok := metricValue(t, text, "bbs_sched_latency_seconds_total"); !ok || v < 0 {
		t.Errorf("bbs_sched_latency_seconds_total = %v (present %v); want a count of seconds", v, ok)
	}
	for _, gone := range []string{"bbs_db_acquire_wait_seconds_count", `state="open"`, "bbs_workers "} {
		if strings.Contains(text, gone) {
			t.Errorf("/metrics has %s; it was renamed or removed", gone)
		}
	}
}

// TestMetricsWorkersUnlimited: without a worker limit there is no
// bbs_workers_limit series (a 0 would read as "no worker may run").
func TestMetricsWorkersUnlimited(t *testing.T) {
	_, _, pub, adm := newInstrumentsTest(t, Options{})
	get(t, pub.URL+"/bbs?cmd=AllView")
	text := expectMetrics(t, adm.URL, map[string]float64{`bbs_requests_total{code="200",command="AllView"}`: 1})
	if strings.Contains(text, "bbs_workers_limit") {
		t.Errorf("/metrics with workers = 0 has bbs_workers_limit; want it absent")
	}
}

// held starts three AllView requests and holds them: one inside SQL, one
// waiting for a connection and one waiting for a worker (2 workers). It
// returns a function that lets them go and checks they all got 200.
func held(t *testing.T, s *Server, st *fake.Store, pub string) (release func()) {
	t.Helper()
	st.Gate = make(chan struct{})
	st.SQLGate = make(chan struct{})
	codes := make(chan int, 3)
	var wg sync.WaitGroup
	send := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(pub + "/bbs?cmd=AllView")
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	send()
	st.Gate <- struct{}{} // the first gets its connection and stops in SQL
	waitUntil(t, "a request in SQL", func() bool { return st.InSQL.Load() == 1 })
	send()
	waitUntil(t, "a request waiting for a connection", func() bool { return st.Waiting.Load() == 1 })
	send()
	waitUntil(t, "a request waiting for a worker", func() bool { return s.limit.stats().Queued == 1 })
	return func() {
		close(st.Gate)
		close(st.SQLGate)
		wg.Wait()
		close(codes)
		for c := range codes {
			if c != 200 {
				t.Errorf("held request answered %d; want 200", c)
			}
		}
		st.Gate, st.SQLGate = nil, nil
	}
}

// TestGoroutineDumpShowsWaits holds a request in each kind of wait and
// finds each in /debug/goroutines under our own frame, in the live gauges,
// and, once released, in the wait histograms. It also proves from the
// goroutine profile that those frames are not inlined.
func TestGoroutineDumpShowsWaits(t *testing.T) {
	s, st, pub, adm := newInstrumentsTest(t, Options{Workers: 2, Queue: 5, QueueTimeout: time.Minute})
	release := held(t, s, st, pub.URL)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()

	resp, dump := get(t, adm.URL+"/debug/goroutines")
	if resp.StatusCode != 200 {
		t.Fatalf("/debug/goroutines: %d", resp.StatusCode)
	}
	for _, want := range []string{
		"running SQL (inSQL)", "waiting for a DB connection (acquireConn)", "waiting for a worker (waitForWorker)",
	} {
		re := regexp.MustCompile(regexp.QuoteMeta(want) + ` +(\d+)\n`)
		m := re.FindStringSubmatch(dump)
		if m == nil || m[1] != "1" {
			t.Errorf("dump summary: %q = %v; want 1\n%.600s", want, m, dump)
		}
	}
	for _, frame := range []string{"bbslab/commands.inSQL+", "bbslab/commands.acquireConn+", "bbslab/bbs.(*limiter).waitForWorker+", "goroutine profile: total"} {
		if !strings.Contains(dump, frame) {
			t.Errorf("dump lacks %q", frame)
		}
	}

	expectMetrics(t, adm.URL, map[string]float64{
		"bbs_worker_queue_length": 1, "bbs_workers_busy": 2, "bbs_db_acquires_waiting": 1,
	})

	// Each wait frame is a frame of its own: in the profile's locations,
	// an inlined function is a Line before the last one of a Location.
	resp, body := get(t, adm.URL+"/debug/pprof/goroutine")
	p, err := profile.Parse(strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("goroutine profile: %d %v", resp.StatusCode, err)
	}
	for _, fn := range []string{"bbslab/commands.inSQL", "bbslab/commands.acquireConn", "bbslab/bbs.(*limiter).waitForWorker"} {
		seen, own := false, true
		for _, loc := range p.Location {
			for i, l := range loc.Line {
				if l.Function != nil && l.Function.Name == fn {
					seen = true
					if i != len(loc.Line)-1 {
						own = false
					}
				}
			}
		}
		if !seen || !own {
			t.Errorf("goroutine profile: %s seen %v, own frame %v; want a frame of its own (//go:noinline)", fn, seen, own)
		}
	}

	release()
	released = true
	text := expectMetrics(t, adm.URL, map[string]float64{
		"bbs_worker_queue_wait_seconds_count":          3,
		`bbs_worker_queue_wait_seconds_bucket{le="0"}`: 2, // the third waited
		"bbs_db_acquire_duration_seconds_count":        3,
		"bbs_worker_queue_length":                      0,
		"bbs_db_acquires_waiting":                      0,
	})
	if got, _ := metricValue(t, text, `bbs_db_acquire_duration_seconds_bucket{le="5e-05"}`); got > 2 {
		t.Errorf("acquire waits under 50 µs = %v; want the held acquires above", got)
	}
}

// TestProfilesParse takes a CPU profile and an fgprof profile while a
// request waits for a connection, and parses both; fgprof, which samples
// waiting goroutines too, must show the wait.
func TestProfilesParse(t *testing.T) {
	s, st, pub, adm := newInstrumentsTest(t, Options{Workers: 2, Queue: 5, QueueTimeout: time.Minute})
	release := held(t, s, st, pub.URL)
	defer release()
	// Both profiles taken at once (two samplers), read after.
	paths := []string{"/debug/pprof/profile?seconds=1", "/debug/fgprof?seconds=1"}
	type answer struct {
		resp *http.Response
		body string
		err  error
	}
	answers := make([]answer, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() {
			resp, err := http.Get(adm.URL + path)
			if err != nil {
				answers[i].err = err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			answers[i] = answer{resp, string(b), err}
		})
	}
	wg.Wait()
	for i, path := range paths {
		resp, body, err := answers[i].resp, answers[i].body, answers[i].err
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %.200s", path, resp.StatusCode, body)
		}
		p, err := profile.Parse(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: not a valid profile: %v", path, err)
		}
		if err := p.CheckValid(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		if strings.Contains(path, "fgprof") && !hasFunction(p, "bbslab/commands.acquireConn") {
			t.Errorf("fgprof profile has no sample in acquireConn; want the held request's wait")
		}
	}
	resp, body := get(t, adm.URL+"/debug/pprof/")
	for _, name := range []string{"block", "mutex", "goroutine", "heap", "trace", "profile"} {
		if resp.StatusCode != 200 || !strings.Contains(body, name) {
			t.Errorf("/debug/pprof/ index: %d; lacks %s", resp.StatusCode, name)
		}
	}
}

func hasFunction(p *profile.Profile, name string) bool {
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function != nil && l.Function.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// alpLine parses a line as alp's JSON parser does (alp json): every value
// is formatted with %v, the uri parsed as a URL, response_time and
// body_bytes as floats, status as an integer.
func alpLine(line string) (uri, method string, resTime, bodyBytes float64, status int, err error) {
	var m map[string]any
	if err = json.Unmarshal([]byte(line), &m); err != nil {
		return
	}
	v := func(k string) string { return fmt.Sprintf("%v", m[k]) }
	u, err := url.Parse(v("uri"))
	if err != nil {
		return
	}
	if resTime, err = strconv.ParseFloat(v("response_time"), 64); err != nil {
		return
	}
	if bodyBytes, err = strconv.ParseFloat(v("body_bytes"), 64); err != nil {
		return
	}
	if status, err = strconv.Atoi(v("status")); err != nil {
		return
	}
	if _, ok := m["time"].(string); !ok {
		err = fmt.Errorf("no time")
	}
	return u.Path, v("method"), resTime, bodyBytes, status, err
}

// TestAccessLog checks the access log against a golden file (times
// normalized; -update rewrites it) and parses each line as alp does.
func TestAccessLog(t *testing.T) {
	var buf syncBuffer
	_, _, pub, _ := newInstrumentsTest(t, Options{Workers: 2, Queue: 2, AccessLog: &buf})
	var sizes []int
	for _, req := range []struct{ method, path, body string }{
		{"GET", "/bbs?cmd=AllView&n=2&format=json", ""},
		{"POST", "/bbs", "cmd=EachGetView&n=3&format=json&name=a&message=b"},
		{"GET", "/bbs?cmd=Nope&format=json", ""},
		{"GET", "/nowhere?format=json", ""},
	} {
		r, _ := http.NewRequest(req.method, pub.URL+req.path, strings.NewReader(req.body))
		if req.body != "" {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		_, body := do(t, r)
		sizes = append(sizes, len(body))
	}
	// A line is written just after its response is sent.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(buf.String(), "\n") < len(sizes) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(sizes) {
		t.Fatalf("access log has %d lines; want %d:\n%s", len(lines), len(sizes), buf.String())
	}
	var norm bytes.Buffer
	for i, l := range lines {
		_, _, rt, bb, _, err := alpLine(l)
		if err != nil {
			t.Errorf("line %d %q: alp cannot parse it: %v", i+1, l, err)
			continue
		}
		if rt < 0 || int(bb) != sizes[i] {
			t.Errorf("line %d: response_time %v, body_bytes %v; want >= 0 and the %d bytes the client read", i+1, rt, bb, sizes[i])
		}
		norm.WriteString(normalizeLine(l) + "\n")
	}
	golden := filepath.Join("testdata", "access_log.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, norm.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestAccessLog -update)", err)
	}
	if norm.String() != string(want) {
		t.Errorf("access log (normalized) =\n%s\nwant (%s)\n%s", norm.String(), golden, want)
	}
	// The golden lines themselves are what alp reads.
	for i, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		uri, method, _, _, status, err := alpLine(l)
		if err != nil || uri == "" || method == "" || status < 200 {
			t.Errorf("golden line %d: alp reads uri %q method %q status %d, %v", i+1, uri, method, status, err)
		}
	}
}

var (
	timeField = regexp.MustCompile(`"time":"[^"]+"`)
	secFields = regexp.MustCompile(`"(response_time|queue_wait|acquire_wait|db_time|body_bytes)":[0-9.e+-]+`)
)

// normalizeLine replaces what changes from run to run.
func normalizeLine(l string) string {
	l = timeField.ReplaceAllString(l, `"time":"T"`)
	return secFields.ReplaceAllString(l, `"$1":0`)
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStatsSystem checks the machine view of /admin/stats.
func TestStatsSystem(t *testing.T) {
	smp := machine.NewSampler()
	smp.Sample()
	st := fake.New(10)
	s := New(Options{Store: st, DBName: "sqlite", Machine: smp})
	pub := httptest.NewServer(s.Handler())
	defer pub.Close()
	u, _ := url.Parse(pub.URL)
	s.opt.ServerPort, _ = strconv.Atoi(u.Port())
	adm := httptest.NewServer(s.AdminHandler())
	defer adm.Close()

	resp, body := get(t, adm.URL+"/admin/stats")
	var got struct {
		Goroutines int `json:"goroutines"`
		Machine    struct {
			Available     *bool              `json:"available"`
			WindowSeconds *float64           `json:"window_seconds"`
			CPUs          int                `json:"cpus"`
			CPU           map[string]float64 `json:"cpu"`
			Process       map[string]float64 `json:"process_cpu"`
			Load          map[string]float64 `json:"load"`
			Memory        map[string]float64 `json:"memory"`
			Paging        map[string]float64 `json:"paging"`
		} `json:"machine"`
		Connections struct {
			Server *struct {
				Port   int            `json:"port"`
				States map[string]int `json:"states"`
				Listen *struct {
					AcceptQueue *int `json:"accept_queue"`
					Backlog     *int `json:"backlog"`
				} `json:"listen"`
			} `json:"server"`
			Database any    `json:"database"`
			Note     string `json:"note"`
		} `json:"connections"`
		Runtime map[string]float64 `json:"runtime"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %d %v", resp.StatusCode, err)
	}
	m := got.Machine
	if _, err := os.Stat("/proc/stat"); err == nil {
		if m.Available == nil || !*m.Available || m.CPUs < 1 || m.WindowSeconds == nil {
			t.Errorf("machine = %+v; want available with cpus and window_seconds", m)
		}
	}
	keys := map[string][]string{
		"cpu":         {"user", "system", "iowait", "steal", "idle"},
		"process_cpu": {"user", "system", "total"},
		"load":        {"one", "five", "fifteen", "runnable", "threads"},
		"memory":      {"total_bytes", "available_bytes", "free_bytes", "cached_bytes", "swap_total_bytes", "swap_free_bytes"},
		"paging":      {"pgpgin_per_second", "pgpgout_per_second", "pswpin_per_second", "pswpout_per_second"},
	}
	for part, ks := range keys {
		obj := map[string]map[string]float64{"cpu": m.CPU, "process_cpu": m.Process, "load": m.Load, "memory": m.Memory, "paging": m.Paging}[part]
		for _, k := range ks {
			if _, ok := obj[k]; !ok {
				t.Errorf("stats machine.%s lacks %q", part, k)
			}
		}
	}
	for _, k := range []string{"goroutines", "threads", "gomaxprocs", "gc_cycles", "heap_live_bytes", "memory_total_bytes", "cgo_calls"} {
		if _, ok := got.Runtime[k]; !ok {
			t.Errorf("stats runtime lacks %q", k)
		}
	}
	c := got.Connections
	if _, err := os.Stat("/proc/net/tcp"); err == nil {
		if c.Server == nil || c.Server.Port != s.opt.ServerPort || c.Server.States["LISTEN"] != 1 ||
			c.Server.Listen == nil || c.Server.Listen.AcceptQueue == nil || c.Server.Listen.Backlog == nil {
			t.Errorf("connections.server = %+v; want the public port with its LISTEN socket and accept queue", c.Server)
		}
	}
	if c.Database != nil || !strings.Contains(c.Note, "SQLite") {
		t.Errorf("connections database %v, note %q; want none and a note that SQLite has no sockets", c.Database, c.Note)
	}
	// /metrics has the counters behind these readings, read at scrape time.
	text := metricLines(t, adm.URL)
	var want []string
	if _, err := os.Stat("/proc/stat"); err == nil {
		want = append(want, `bbs_machine_cpu_seconds_total{mode="idle"}`, `bbs_machine_cpu_seconds_total{mode="iowait"}`,
			`bbs_machine_cpu_seconds_total{mode="steal"}`, "bbs_machine_cpus", "bbs_own_cpus_busy_seconds_total", "bbs_own_cpus",
			"bbs_own_cpus_interference_seconds_total", "bbs_own_cpus_steal_seconds_total")
	}
	if _, err := os.Stat("/proc/net/tcp"); err == nil {
		want = append(want, `bbs_connections{side="server",state="LISTEN"}`, "bbs_listen_accept_queue")
	}
	for _, series := range want {
		if v, ok := metricValue(t, text, series); !ok || v < 0 {
			t.Errorf("/metrics %s = %v (present %v); want a reading", series, v, ok)
		}
	}
	if v, _ := metricValue(t, text, "bbs_machine_cpus"); len(want) > 0 && int(v) != m.CPUs {
		t.Errorf("bbs_machine_cpus = %v; /admin/stats machine.cpus = %d", v, m.CPUs)
	}
	if strings.Contains(text, `side="database"`) {
		t.Errorf("/metrics has database sockets on SQLite")
	}
}

// TestStatsOwnCPUs reads the board's own CPUs from this machine's /proc
// through /admin/stats and /metrics: the interference and steal over the
// sampler's window and as counters read at the request, the same
// counters in both (the later read no lower: they never go down).
func TestStatsOwnCPUs(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat: the platform's own CPUs are tested by TestStatsSystemAbsent")
	}
	smp := machine.NewSampler()
	time.Sleep(30 * time.Millisecond) // a window with clock ticks (10 ms) in it
	smp.Sample()
	_, _, _, adm := newInstrumentsTest(t, Options{Machine: smp})
	resp, body := get(t, adm.URL+"/admin/stats")
	var doc struct {
		Machine struct {
			OwnCPUs map[string]any `json:"own_cpus"`
		} `json:"machine"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %d %v", resp.StatusCode, err)
	}
	own := doc.Machine.OwnCPUs
	cpus, _ := own["cpus"].([]any)
	if len(cpus) == 0 || own["affinity_unknown"] != nil {
		t.Fatalf("machine.own_cpus = %v; want this process's affinity", own)
	}
	for _, k := range []string{"interference", "steal", "interference_seconds_total", "steal_seconds_total"} {
		v, ok := own[k].(float64)
		if !ok || v < 0 || (k == "interference" || k == "steal") && v > 100*float64(len(cpus)) {
			t.Errorf("machine.own_cpus.%s = %v; want 0..%d", k, own[k], 100*len(cpus))
		}
	}
	text := metricLines(t, adm.URL)
	for series, path := range map[string]string{"bbs_own_cpus_interference_seconds_total": "interference_seconds_total", "bbs_own_cpus_steal_seconds_total": "steal_seconds_total"} {
		v, ok := metricValue(t, text, series)
		if json, _ := own[path].(float64); !ok || v < json {
			t.Errorf("/metrics %s = %v (present %v); want it, no lower than /admin/stats' earlier %v", series, v, ok, json)
		}
	}
}

// TestPublicHasNoDebug proves the public listener serves no profile,
// dump or metrics.
func TestPublicHasNoDebug(t *testing.T) {
	_, _, pub, _ := newInstrumentsTest(t, Options{})
	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/profile?seconds=1", "/debug/pprof/goroutine",
		"/debug/fgprof?seconds=1", "/debug/goroutines"} {
		resp, body := get(t, pub.URL+path)
		if resp.StatusCode != 404 || strings.Contains(body, "goroutine") || strings.Contains(body, "bbs_requests_total") {
			t.Errorf("public %s: %d; want 404 without readings", path, resp.StatusCode)
		}
	}
}

func runtimeGOMAXPROCS() int { return runtime.GOMAXPROCS(0) }

// TestClassifyGoroutines counts a canned dump: each group goes to its
// innermost wait frame, times its count.
func TestClassifyGoroutines(t *testing.T) {
	dump := "goroutine profile: total 9\n\n" +
		"3 @ 0x1 0x2\n#\t0x1\tdatabase/sql.(*Rows).Next+0x70\t/x.go:1\n#\t0x2\tbbslab/commands.inSQL+0x35\t/t.go:47\n#\t0x3\tbbslab/commands.fetchOne+0x19c\t/v.go:1\n#\t0x4\tbbslab/bbs.(*Server).Handler.(*Server).handleBoard.func1+0x333\t/b.go:57\n\n" +
		"2 @ 0x1\n#\t0x1\tbbslab/commands.acquireConn+0x1\t/t.go:1\n#\t0x4\tbbslab/bbs.(*Server).Handler.(*Server).handleBoard.func1+0x1\t/b.go:57\n\n" +
		"1 @ 0x1\n#\t0x1\tbbslab/bbs.(*limiter).waitForWorker+0x18d\t/l.go:75\n#\t0x4\tbbslab/bbs.(*Server).Handler.(*Server).handleBoard.func1+0x1\t/b.go:50\n\n" +
		"2 @ 0x1\n#\t0x1\thtml/template.(*Template).Execute+0x1\t/x.go:1\n#\t0x4\tbbslab/bbs.(*Server).Handler.(*Server).handleBoard.func1+0x1\t/b.go:70\n\n" +
		"4 @ 0x1\n#\t0x1\ttime.Sleep+0x1\t/x.go:1\n#\t0x2\tbbslab/entity/internal/driverkit.networkWait+0x1\t/d.go:1\n#\t0x3\tbbslab/commands.inSQL+0x35\t/t.go:47\n#\t0x4\tbbslab/bbs.(*Server).Handler.(*Server).handleBoard.func1+0x1\t/b.go:57\n\n" +
		"5 @ 0x1\n#\t0x1\tbbslab/entity/internal/driverkit.connectWait+0x1\t/d.go:1\n#\t0x2\tbbslab/commands.acquireConn+0x1\t/t.go:1\n#\t0x4\tbbslab/bbs.(*Server).Handler.(*Server).handleBoard.func1+0x1\t/b.go:57\n\n" +
		"1 @ 0x1\n#\t0x1\tdatabase/sql.(*Rows).awaitDone+0x173\t/sql.go:3011\n"
	got := classifyGoroutines([]byte(dump))
	if want := []int{4, 5, 3, 2, 1, 2}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("classifyGoroutines = %v; want %v (network, connect, SQL, connection, worker, elsewhere)", got, want)
	}
}

// TestOccupancyFromCounters holds two workers busy (one in SQL, one
// waiting for a connection) and one request queued for a known time, and
// reads 2 and 1 back as the means of the busy worker-seconds and queued
// request-seconds over it, in /admin/stats and /metrics.
func TestOccupancyFromCounters(t *testing.T) {
	s, st, pub, adm := newInstrumentsTest(t, Options{Workers: 2, Queue: 5, QueueTimeout: time.Minute})
	release := held(t, s, st, pub.URL)
	defer release()
	read := func() (busy, queued float64, at time.Time) {
		var stats Stats
		_, body := get(t, adm.URL+"/admin/stats")
		if err := json.Unmarshal([]byte(body), &stats); err != nil {
			t.Fatal(err)
		}
		return stats.Workers.BusySecondsTotal, stats.Workers.QueuedSecondsTotal, time.Now()
	}
	b0, q0, t0 := read()
	time.Sleep(300 * time.Millisecond)
	b1, q1, t1 := read()
	span := t1.Sub(t0).Seconds()
	// The readings are taken a little after t0 and before t1, so the means
	// are at most the held counts and close to them.
	if busy := (b1 - b0) / span; busy < 1.8 || busy > 2.05 {
		t.Errorf("mean busy workers while 2 are held = %.3f; want about 2", busy)
	}
	if queued := (q1 - q0) / span; queued < 0.9 || queued > 1.05 {
		t.Errorf("mean queued while 1 is held = %.3f; want about 1", queued)
	}
	text := expectMetrics(t, adm.URL, nil)
	for _, name := range []string{"bbs_workers_busy_seconds_total ", "bbs_worker_queue_seconds_total ", "bbs_db_connections_in_use_seconds_total ",
		"bbs_db_acquires_waiting_seconds_total ", "bbs_db_network_wait_seconds_total ", "bbs_db_connect_wait_seconds_total "} {
		if !strings.Contains(text, "\n"+name) {
			t.Errorf("/metrics lacks %s", strings.TrimSpace(name))
		}
	}
}

// portStore is a fake store that reports the local ports of its
// connections, as the PostgreSQL store does (entity.SocketOwner).
type portStore struct {
	*fake.Store
	ports map[int]bool
}

func (p portStore) LocalPorts() map[int]bool { return p.ports }

// TestDatabaseSocketsClosed checks that connections.database counts the
// board's closed connections in TIME_WAIT (inode 0, owned by no process)
// by their local ports, and not another connection to the same port.
func TestDatabaseSocketsClosed(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp: not Linux")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dbPort := ln.Addr().(*net.TCPAddr).Port
	foreign, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	if c, err := ln.Accept(); err == nil {
		defer c.Close()
	}
	// The board's connection: closed by the board first, then by the
	// server, so that the board's end waits in TIME_WAIT.
	own, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srvEnd, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	ownPort := own.LocalAddr().(*net.TCPAddr).Port
	own.Close()
	srvEnd.Read(make([]byte, 1)) // EOF: the board's FIN arrived
	srvEnd.Close()

	st := portStore{Store: fake.New(10), ports: map[int]bool{ownPort: true}}
	s := New(Options{Store: st, DBName: "postgres", DBPort: dbPort})
	var db *machine.Sockets
	waitUntil(t, "the board's closed connection in TIME_WAIT", func() bool {
		db = s.systemStats().Connections.Database
		return db != nil && db.States["TIME_WAIT"] == 1
	})
	if db.Port != dbPort || len(db.States) != 1 {
		t.Errorf("connections.database = %+v; want port %d with only the board's TIME_WAIT socket (the other connection is not the board's)", db, dbPort)
	}
	// Matching by this process's open sockets, as for a store that does not
	// remember its ports, misses the closed one and takes the other.
	s = New(Options{Store: fake.New(10), DBName: "postgres", DBPort: dbPort})
	if db := s.systemStats().Connections.Database; db == nil || db.States["TIME_WAIT"] != 0 || db.States["ESTABLISHED"] != 1 {
		t.Errorf("connections.database by open sockets = %+v; want the open connection only", db)
	}
}

// TestStatsSystemAbsent serves /admin/stats from a sampler of a machine
// without /proc (machine.FakePlatform gives what gopsutil gives on
// Windows): what the platform cannot give is left out of the JSON and
// named in machine.absent, never written as 0, and /metrics has no series
// for it.
func TestStatsSystemAbsent(t *testing.T) {
	p := &machine.FakePlatform{}
	smp := machine.NewSamplerOn(p)
	p.Advance(machine.CPUTicks{User: 25, System: 15, Idle: 60}, 100*time.Millisecond)
	smp.Sample()
	_, _, _, adm := newInstrumentsTest(t, Options{Machine: smp})
	resp, body := get(t, adm.URL+"/admin/stats")
	var doc struct {
		Machine map[string]any `json:"machine"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %d %v", resp.StatusCode, err)
	}
	m := doc.Machine
	cpu, _ := m["cpu"].(map[string]any)
	if cpu["idle"] != 60.0 || cpu["user"] != 25.0 {
		t.Errorf("machine.cpu = %v; want user 25, idle 60", m["cpu"])
	}
	for _, k := range []string{"iowait", "steal"} {
		if v, ok := cpu[k]; ok {
			t.Errorf("machine.cpu.%s = %v; want it absent", k, v)
		}
	}
	for _, k := range []string{"load", "paging"} {
		if v, ok := m[k]; ok {
			t.Errorf("machine.%s = %v; want it absent", k, v)
		}
	}
	// No affinity: the own CPUs are all the machine's. Each has 12 user
	// and 7 system ticks of 49 (FakePlatform splits evenly, rounding
	// down): busy 0.38 s, less the process's 0.1 s = 0.28 s of
	// interference, over a window of 0.49 s per CPU = 57.14 % of one CPU.
	// No steal.
	own, _ := m["own_cpus"].(map[string]any)
	if own == nil || own["affinity_unknown"] != true || own["interference"] != 57.14 || !near(own["interference_seconds_total"], 0.28) {
		t.Errorf("machine.own_cpus = %v; want all CPUs, interference 57.14 %% and 0.28 s in all", m["own_cpus"])
	}
	for _, k := range []string{"steal", "steal_seconds_total"} {
		if v, ok := own[k]; ok {
			t.Errorf("machine.own_cpus.%s = %v; want it absent", k, v)
		}
	}
	if got := fmt.Sprint(m["absent"]); !strings.Contains(got, "load") || !strings.Contains(got, "cpu.iowait") || !strings.Contains(got, "own_cpus.steal_seconds_total") {
		t.Errorf("machine.absent = %s; want load, cpu.iowait and own_cpus.steal_seconds_total named", got)
	}
	if p, ok := m["process_cpu"].(map[string]any); !ok || p["total"].(float64) <= 0 {
		t.Errorf("machine.process_cpu = %v; want the process time the platform counted", m["process_cpu"])
	}
	text := metricLines(t, adm.URL)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#") {
			continue // the help text names what Linux has
		}
		if strings.Contains(l, "load") || strings.Contains(l, "iowait") || strings.Contains(l, "paging") ||
			strings.Contains(l, "steal") || strings.Contains(l, `mode="nice"`) || strings.Contains(l, "bbs_connections") {
			t.Errorf("/metrics: %q; want no series of a reading the platform lacks", l)
		}
	}
	// The platform's counters in seconds (clock ticks of 10 ms).
	for series, want := range map[string]float64{
		`bbs_machine_cpu_seconds_total{mode="user"}`:   0.25,
		`bbs_machine_cpu_seconds_total{mode="system"}`: 0.15,
		`bbs_machine_cpu_seconds_total{mode="idle"}`:   0.6,
		`bbs_machine_cpus`:                             2,
		`bbs_own_cpus`:                                 2,
		`bbs_own_cpus_busy_seconds_total`:              0.38,
		`bbs_own_cpus_interference_seconds_total`:      0.28,
	} {
		if got, ok := metricValue(t, text, series); !ok || !near(got, want) {
			t.Errorf("%s = %v (present %v); want %v", series, got, ok, want)
		}
	}
}

// near reports whether v (a JSON number) is want but for float rounding.
func near(v any, want float64) bool {
	f, ok := v.(float64)
	return ok && math.Abs(f-want) < 1e-9
}
