package bbs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"runtime"
	rmetrics "runtime/metrics"
	"strings"
	"testing"
	"time"

	"bbslab/entity/fake"
)

// chunkRecorder is an http.ResponseWriter and http.Flusher that keeps each Write
// and each Flush in order.
type chunkRecorder struct {
	header http.Header
	code   int
	events []string // "w" or "f"
	writes [][]byte
}

func (r *chunkRecorder) Header() http.Header {
	if r.header == nil {
		r.header = http.Header{}
	}
	return r.header
}
func (r *chunkRecorder) WriteHeader(code int) { r.code = code }
func (r *chunkRecorder) Write(b []byte) (int, error) {
	r.events = append(r.events, "w")
	r.writes = append(r.writes, bytes.Clone(b))
	return len(b), nil
}
func (r *chunkRecorder) Flush() { r.events = append(r.events, "f") }

func TestWriteChunks(t *testing.T) {
	st := fake.New(40)
	p := page{Command: "AllView", N: 30, Posts: st.Posts()[:30]}
	one := &chunkRecorder{}
	New(Options{Store: st}).writeHTML(one, 200, templates, "bbs.html", p)
	if len(one.writes) != 1 || len(one.events) != 1 {
		t.Fatalf("write_chunks = 0: events %v; want one write and no flush", one.events)
	}
	whole := one.writes[0]
	for _, n := range []int{1, 2, 7, 64} {
		rec := &chunkRecorder{}
		New(Options{Store: st, WriteChunks: n}).writeHTML(rec, 200, templates, "bbs.html", p)
		want := strings.Repeat("wf", n)
		if got := strings.Join(rec.events, ""); got != want {
			t.Errorf("write_chunks = %d: events %q; want %q (each write flushed)", n, got, want)
		}
		if got := bytes.Join(rec.writes, nil); !bytes.Equal(got, whole) {
			t.Errorf("write_chunks = %d: the pieces (%d bytes) differ from the one-write page (%d bytes)", n, len(got), len(whole))
		}
		if rec.code != 200 || rec.header.Get("Content-Length") != one.header.Get("Content-Length") {
			t.Errorf("write_chunks = %d: code %d, Content-Length %q; want 200, %q", n, rec.code, rec.header.Get("Content-Length"), one.header.Get("Content-Length"))
		}
	}
}

func TestWriteChunksOverHTTP(t *testing.T) {
	bodies := map[int]string{}
	for _, n := range []int{0, 5} {
		_, _, ts := newTest(t, Options{WriteChunks: n})
		resp, body := get(t, ts.URL+"/bbs?cmd=AllView&n=10")
		if resp.StatusCode != 200 || resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("write_chunks = %d: %d, Content-Length %d for %d bytes, Transfer-Encoding %v", n, resp.StatusCode, resp.ContentLength, len(body), resp.TransferEncoding)
		}
		bodies[n] = costLine.ReplaceAllString(body, "") // the cost line's timings differ from request to request
	}
	if bodies[0] != bodies[5] || !strings.Contains(bodies[0], "AllView") {
		t.Errorf("pages differ between write_chunks 0 and 5:\n%s\n---\n%s", bodies[0], bodies[5])
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want []string
	}{
		{"abcdef", 3, []string{"ab", "cd", "ef"}},
		{"abcdefg", 3, []string{"ab", "cd", "efg"}},
		{"ab", 5, []string{"a", "b"}},
		{"abc", 1, []string{"abc"}},
	} {
		var got []string
		for _, p := range split([]byte(tc.in), tc.n) {
			got = append(got, string(p))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("split(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// tcpNoDelay reads TCP_NODELAY of c's socket (getsockoptNoDelay:
// nodelay_unix_test.go, nodelay_windows_test.go).
func tcpNoDelay(t *testing.T, c net.Conn) bool {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := raw.Control(func(fd uintptr) { v, gerr = getsockoptNoDelay(fd) }); err != nil || gerr != nil {
		t.Fatalf("getsockopt TCP_NODELAY: %v %v", err, gerr)
	}
	return v != 0
}

func TestNoDelayListener(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(net.Listener) net.Listener
		want bool
	}{
		{"go default", func(l net.Listener) net.Listener { return l }, true},
		{"tcp_nodelay=false", func(l net.Listener) net.Listener { return NoDelayListener(l, false) }, false},
		{"tcp_nodelay=true", func(l net.Listener) net.Listener { return NoDelayListener(l, true) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			conns := make(chan net.Conn, 1)
			srv := &http.Server{
				Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }),
				// ConnContext sees the server side of each connection as the
				// server will serve it.
				ConnContext: func(ctx context.Context, c net.Conn) context.Context {
					select {
					case conns <- c:
					default:
					}
					return ctx
				},
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(tc.wrap(l)) }()
			defer func() { srv.Close(); <-done }()

			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			resp, err := client.Get("http://" + l.Addr().String() + "/")
			if err != nil {
				t.Fatal(err)
			}
			// Read the body to its end: a body closed unread makes the
			// transport close the connection, and the server's side with
			// it, before the option can be read (a CI run failed so).
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if got := tcpNoDelay(t, <-conns); got != tc.want {
				t.Errorf("server side TCP_NODELAY = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestWarmUpHoldsReadiness(t *testing.T) {
	st := fake.New(100)
	st.Gate = make(chan struct{})
	const pageSize = 5
	s := New(Options{Store: st, PageSize: pageSize})
	ts := newAdmin(t, s)

	done := make(chan error, 1)
	go func() {
		err := s.WarmUp(context.Background())
		if err == nil {
			s.SetReady(true)
		}
		done <- err
	}()
	// Wait (bounded) until the warm-up pass is held at the gate.
	for deadline := time.Now().Add(10 * time.Second); st.Waiting.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the warm-up pass never reached the store")
		}
	}
	resp, body := get(t, ts+"/readyz")
	if resp.StatusCode != 503 || !strings.Contains(body, "warm-up") {
		t.Errorf("readyz during warm-up: %d %s; want 503 naming the warm-up", resp.StatusCode, body)
	}
	close(st.Gate) // let every acquire through
	if err := <-done; err != nil {
		t.Fatalf("WarmUp: %v", err)
	}
	if resp, body = get(t, ts+"/readyz"); resp.StatusCode != 200 {
		t.Errorf("readyz after warm-up: %d %s", resp.StatusCode, body)
	}
	// AllView: 1 acquire, 1 query; OnceGetView: 1 acquire, pageSize queries;
	// EachGetView: pageSize acquires and queries. Nothing stored.
	if a, q, i := st.Acquires.Load(), st.Queries.Load(), st.Inserts.Load(); a != 1+1+pageSize || q != 1+pageSize+pageSize || i != 0 {
		t.Errorf("warm-up did %d acquires, %d queries, %d inserts; want %d, %d, 0 (each command once)", a, q, i, 2+pageSize, 1+2*pageSize)
	}
	if st.Releases.Load() != st.Acquires.Load() {
		t.Errorf("warm-up released %d of %d connections", st.Releases.Load(), st.Acquires.Load())
	}
	// Warm-up runs are counted in every counter of the database work: one
	// request of each command, whose acquires add up to the pool's.
	stats := s.Stats()
	var acquires, queries int64
	for name, c := range stats.Commands {
		if c.Requests != 1 || c.Errors != 0 {
			t.Errorf("stats %s = %d requests, %d errors after warm-up; want 1 and 0", name, c.Requests, c.Errors)
		}
		acquires += c.Acquires
		queries += c.Queries
	}
	if acquires != stats.DBPool.Acquires || queries != st.Queries.Load() {
		t.Errorf("after warm-up the commands count %d acquires and %d queries; the pool %d acquires, the store %d statements", acquires, queries, stats.DBPool.Acquires, st.Queries.Load())
	}
	text := metricLines(t, ts)
	var metricQueries float64
	for name := range stats.Commands {
		v, _ := metricValue(t, text, `bbs_db_queries_total{command="`+name+`"}`)
		metricQueries += v
	}
	if metricQueries != float64(queries) {
		t.Errorf("bbs_db_queries_total after warm-up = %v; want %d, the commands' queries", metricQueries, queries)
	}
}

func TestWarmUpError(t *testing.T) {
	st := fake.New(10)
	st.Err = context.DeadlineExceeded
	s := New(Options{Store: st})
	if err := s.WarmUp(context.Background()); err == nil || !strings.Contains(err.Error(), "warm-up AllView") {
		t.Errorf("WarmUp with a failing store = %v; want an error naming the command", err)
	}
	if s.warming.Load() {
		t.Error("still warming after WarmUp returned")
	}
}

func newAdmin(t *testing.T, s *Server) string {
	t.Helper()
	srv := &http.Server{Handler: s.AdminHandler()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

func TestGCStats(t *testing.T) {
	runtime.GC()
	runtime.GC()
	g := ReadGCStats()
	if g.Cycles < 2 || g.ForcedCycles < 2 || g.Pauses.Count < 2 || g.HeapGoalBytes == 0 || g.GOGCPercent == 0 || g.MemoryLimitBytes <= 0 {
		t.Errorf("ReadGCStats after two runtime.GC() = %+v; want cycles, forced cycles and pauses >= 2 and settings set", g)
	}
	if p := g.Pauses; !(p.P50Seconds > 0 && p.P50Seconds <= p.P99Seconds && p.P99Seconds <= p.MaxSeconds && !math.IsInf(p.MaxSeconds, 0)) {
		t.Errorf("pauses = %+v; want 0 < p50 <= p99 <= max < Inf", p)
	}

	s := New(Options{Store: fake.New(1)})
	resp, body := get(t, newAdmin(t, s)+"/admin/stats")
	var out struct {
		GC map[string]any `json:"gc"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %d %v", resp.StatusCode, err)
	}
	for _, k := range []string{"cycles", "heap_goal_bytes", "gogc_percent", "memory_limit_bytes"} {
		if _, ok := out.GC[k]; !ok {
			t.Errorf("stats gc lacks %q: %s", k, body)
		}
	}
	pauses, _ := out.GC["pauses"].(map[string]any)
	for _, k := range []string{"count", "p50_seconds", "p99_seconds", "max_seconds"} {
		if _, ok := pauses[k]; !ok {
			t.Errorf("stats gc.pauses lacks %q: %s", k, body)
		}
	}
}

func TestPauseQuantiles(t *testing.T) {
	h := &rmetrics.Float64Histogram{
		Buckets: []float64{0, 1, 2, 3, math.Inf(1)},
		Counts:  []uint64{50, 49, 0, 1},
	}
	got := pauseStats(h)
	want := PauseStats{Count: 100, P50Seconds: 1, P99Seconds: 2, MaxSeconds: 3}
	if got != want {
		t.Errorf("pauseStats(%v) = %+v; want %+v", h.Counts, got, want)
	}
	if got := pauseStats(&rmetrics.Float64Histogram{Buckets: []float64{0, 1}, Counts: []uint64{0}}); got != (PauseStats{}) {
		t.Errorf("pauseStats(empty) = %+v; want zero", got)
	}
}
