package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// promService starts a plain client_golang service, no board: its page
// counts each request in app_jobs_total, and /metrics serves a registry
// with the process and Go collectors and that counter.
func promService(t *testing.T) *httptest.Server {
	t.Helper()
	reg := prometheus.NewRegistry()
	jobs := prometheus.NewCounter(prometheus.CounterOpts{Name: "app_jobs_total", Help: "Pages served."})
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector(), jobs)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		jobs.Inc()
		w.Write([]byte("<html>ok</html>"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestRunPrometheusService runs load against a plain client_golang
// service with -server-stats at its /metrics and no other configuration
// but one -server-metric: the run's result holds the Go service's readings
// and the extra one, read from Prometheus, with no warning about the
// board's stats; the live dashboard draws them each second.
func TestRunPrometheusService(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 s of load with the live dashboard: long; runs without -short")
	}
	srv := promService(t)
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, wait := startLiveCmd(t, ctx, "run", "-url", srv.URL+"/", "-clients", "2", "-think", "5ms", "-duration", "3s",
		"-server-stats", srv.URL+"/metrics", "-server-metric", "jobs=app_jobs_total:per_request",
		"-out", out, "-progress", "off", "-live", "127.0.0.1:0")
	frames := readEvents(t, ctx, url)
	code, stdout, stderr := wait()
	if code != 0 {
		t.Fatalf("run = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	res, err := loadtest.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	seen, err := watch.Of(res)
	if err != nil || seen.Server == nil {
		t.Fatalf("result's server stats: %+v, %v", seen.Server, err)
	}
	s := seen.Server
	if s.Format != watch.Prometheus || s.Reads < 2 || s.Failed != 0 {
		t.Errorf("server stats read as %q, %d reads, %d failed (%s); want prometheus, 2 or more, none failed", s.Format, s.Reads, s.Failed, s.LastError)
	}
	for _, name := range []string{"goroutines", "threads", "heap", "gc_cycles"} {
		if v, ok := s.Value(name); !ok || v < 0 || (name != "gc_cycles" && v <= 0) {
			t.Errorf("reading %s = %g, %v; want a positive figure (a value %+v)", name, v, ok, s.Values)
		}
	}
	// Every page counts one job: one per successful request, give or take
	// the requests in flight at the window's two reads (of hundreds).
	if v, ok := s.Value("jobs"); !ok || v < 0.9 || v > 1.1 {
		t.Errorf("jobs per request = %g, %v; want about 1", v, ok)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "unavailable") {
			t.Errorf("warning %q: a Go service is not warned about the board's stats", w)
		}
	}
	if !strings.Contains(stdout, "server: process_cpu") || !strings.Contains(stdout, "jobs ") {
		t.Errorf("stdout's server line lacks the Go service's readings:\n%s", stdout)
	}
	drawn := map[string]int{}
	for _, f := range frames {
		for _, sr := range f.Server {
			if sr.Panel != "" && !sr.Absent {
				drawn[sr.Name]++
			}
		}
	}
	for _, name := range []string{"goroutines", "heap in use", "GC cycles"} {
		if drawn[name] == 0 {
			t.Errorf("no dashboard frame drew %q; drawn: %v", name, drawn)
		}
	}
}
