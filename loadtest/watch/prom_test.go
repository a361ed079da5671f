package watch

import (
	"bytes"
	"compress/gzip"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

func TestParseSelector(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "go_goroutines", want: "go_goroutines"},
		{in: ` bbs_requests_total{command="AllView"} `, want: `bbs_requests_total{command="AllView"}`},
		{in: `bbs_requests_total{command="AllView", code!="200",}`, want: `bbs_requests_total{command="AllView",code!="200"}`},
		{in: `job:rate5m{a="x\"y"}`, want: `job:rate5m{a="x\"y"}`},
		{in: "", err: "want a metric name"},
		{in: "9lives", err: "want a metric name"},
		{in: `x{a="b"`, err: "end of input inside braces"},
		{in: `x{a=~"b"}`, err: "regular-expression"},
		{in: `x{a=b}`, err: "expected string"},
		{in: `x{a="b" c="d"}`, err: `expected "," or "}"`},
		{in: `x{a-b="c"}`, err: "unexpected character inside braces"},
		{in: `x{a="b}`, err: "unterminated quoted string"},
		{in: `{a="b"}`, err: "want a metric name"},
	} {
		sel, err := parseSelector(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseSelector(%q) error = %v; want one containing %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("parseSelector(%q): %v", tc.in, err)
		case tc.err == "" && sel.String() != tc.want:
			t.Errorf("parseSelector(%q) = %s; want %s", tc.in, sel, tc.want)
		}
	}
}

// exposition is a small Prometheus text: a labelled counter, a gauge, a
// histogram over two label sets, a summary and an untyped metric.
const exposition = `# HELP req_total Requests.
# TYPE req_total counter
req_total{command="a",code="200"} 10
req_total{command="a",code="503"} 2
req_total{command="b",code="200"} 5
# TYPE cpus gauge
cpus 4
# TYPE wait_seconds histogram
wait_seconds_bucket{pool="x",le="0.1"} 1
wait_seconds_bucket{pool="x",le="1"} 3
wait_seconds_bucket{pool="x",le="+Inf"} 4
wait_seconds_sum{pool="x"} 6
wait_seconds_count{pool="x"} 4
wait_seconds_bucket{pool="y",le="0.1"} 2
wait_seconds_bucket{pool="y",le="1"} 2
wait_seconds_bucket{pool="y",le="+Inf"} 2
wait_seconds_sum{pool="y"} 0.1
wait_seconds_count{pool="y"} 2
# TYPE gc_seconds summary
gc_seconds{quantile="0.5"} 0.001
gc_seconds_sum 0.5
gc_seconds_count 100
plain 7
`

func mustScrape(t *testing.T, text string, f expfmt.Format) promScrape {
	t.Helper()
	p, err := decodeProm(strings.NewReader(text), f)
	if err != nil {
		t.Fatalf("decodeProm: %v", err)
	}
	return p
}

func TestPromRead(t *testing.T) {
	p := mustScrape(t, exposition, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, tc := range []struct {
		sel, kind   string
		want        float64
		wantKind    string
		count       float64
		notFound    bool
		wantBuckets int
	}{
		{sel: "req_total", want: 17, wantKind: Counter},
		{sel: `req_total{command="a"}`, want: 12, wantKind: Counter},
		{sel: `req_total{code!="200"}`, want: 2, wantKind: Counter},
		{sel: `req_total{command="c"}`, notFound: true},
		{sel: "req", want: 17, wantKind: Counter}, // OpenMetrics' family name
		{sel: "cpus", want: 4, wantKind: Gauge},
		{sel: "wait_seconds", want: 6.1, count: 6, wantKind: Histogram, wantBuckets: 3},
		{sel: "wait_seconds_sum", want: 6.1, wantKind: Counter},
		{sel: `wait_seconds_count{pool="y"}`, want: 2, wantKind: Counter},
		{sel: "wait_seconds_bucket", notFound: true},
		{sel: "gc_seconds", want: 0.5, count: 100, wantKind: Histogram},
		{sel: "gc_seconds_count", want: 100, wantKind: Counter},
		{sel: "plain", want: 7, wantKind: Gauge},
		{sel: "plain", kind: Counter, want: 7, wantKind: Counter},
		{sel: "absent", notFound: true},
	} {
		sel, err := parseSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := p.read(sel, tc.kind)
		if ok == tc.notFound {
			t.Errorf("read(%s) found = %v; want %v", tc.sel, ok, !tc.notFound)
			continue
		}
		if !ok {
			continue
		}
		if math.Abs(s.v-tc.want) > 1e-9 || s.kind != tc.wantKind || s.count != tc.count || len(s.buckets) != tc.wantBuckets {
			t.Errorf("read(%s) = %s %g (count %g, %d buckets); want %s %g (count %g, %d buckets)", tc.sel, s.kind, s.v, s.count, len(s.buckets), tc.wantKind, tc.want, tc.count, tc.wantBuckets)
		}
	}
}

// TestQuantile checks quantiles over a span against histogram_quantile's
// arithmetic by hand: 10 new observations, 4 at most 0.1, 9 at most 1.
func TestQuantile(t *testing.T) {
	inf := math.Inf(1)
	prev := []bucket{{0.1, 10}, {1, 20}, {inf, 30}}
	cur := []bucket{{0.1, 14}, {1, 29}, {inf, 40}}
	for _, tc := range []struct {
		q, want float64
		ok      bool
	}{
		{0.2, 0.05, true},              // rank 2 of 4 in [0, 0.1]
		{0.5, 0.1 + 0.9*(1.0/5), true}, // rank 5: 1 into the 5 of (0.1, 1]
		{0.9, 1, true},                 // rank 9: the top of (0.1, 1]
		{0.99, 1, true},                // in +Inf: the largest finite bound
	} {
		got, ok := quantile(tc.q, prev, cur)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("quantile(%g) = %g, %v; want %g, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := quantile(0.5, cur, cur); ok {
		t.Errorf("quantile over a span with no observations is found; want none")
	}
}

// TestOpenMetrics reads an OpenMetrics 1.0 exposition with exemplars,
// _created samples and counters typed under their base name.
func TestOpenMetrics(t *testing.T) {
	text := `# TYPE req counter
# HELP req Requests.
req_total{command="a"} 10 # {trace_id="abc"} 1.0 1700000000.000
req_created{command="a"} 1.7e9
# TYPE up gauge
up 1
# EOF
`
	p := mustScrape(t, text, expfmt.FmtOpenMetrics_1_0_0)
	for sel, want := range map[string]float64{"req_total": 10, `req{command="a"}`: 10, "up": 1} {
		s, ok := p.read(selector{name: strings.Split(sel, "{")[0]}, "")
		if !ok || s.v != want || (sel != "up" && s.kind != Counter) {
			t.Errorf("OpenMetrics read(%s) = %+v, %v; want counter %g", sel, s, ok, want)
		}
	}
}

// TestFetchFormats serves the same registry as Prometheus text (gzipped
// by promhttp), as OpenMetrics, gzipped unasked, as JSON, and as HTML,
// and checks how each is read in each format.
func TestFetchFormats(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "jobs_total", Help: "Jobs."})
	reg.MustRegister(c)
	c.Add(3)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/openmetrics", func(w http.ResponseWriter, r *http.Request) {
		mfs, _ := reg.Gather()
		w.Header().Set("Content-Type", string(expfmt.FmtOpenMetrics_1_0_0))
		enc := expfmt.NewEncoder(w, expfmt.FmtOpenMetrics_1_0_0)
		for _, mf := range mfs {
			_ = enc.Encode(mf)
		}
		_ = enc.(expfmt.Closer).Close()
	})
	mux.HandleFunc("/zipped", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte("# TYPE jobs_total counter\njobs_total 3\n"))
		_ = zw.Close()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(b.Bytes())
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jobs": 3}`))
	})
	mux.HandleFunc("/plainjson", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(` {"jobs": 3}`)) // sniffed as text/plain
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	unzipping := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	jobs := Stat{Name: "jobs", Path: "jobs", Metric: "jobs_total", Kind: Gauge}
	for _, tc := range []struct {
		path, format string
		client       *http.Client
		want         string // JSON or Prometheus, or an error's text
	}{
		{"/metrics", Auto, http.DefaultClient, Prometheus},
		{"/metrics", Prometheus, http.DefaultClient, Prometheus},
		{"/metrics", Prometheus, unzipping, Prometheus},
		{"/openmetrics", Auto, http.DefaultClient, Prometheus},
		{"/zipped", Auto, unzipping, Prometheus},
		{"/json", Auto, http.DefaultClient, JSON},
		{"/plainjson", Auto, http.DefaultClient, JSON},
		{"/json", Prometheus, http.DefaultClient, "Prometheus exposition"},
		{"/metrics", JSON, http.DefaultClient, "stats JSON"},
		{"/html", Auto, http.DefaultClient, "neither JSON nor Prometheus text"},
	} {
		sc, _, err := fetch(context.Background(), tc.client, srv.URL+tc.path, tc.format)
		if tc.want != JSON && tc.want != Prometheus {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("fetch(%s, %s) error = %v; want one saying %q", tc.path, tc.format, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("fetch(%s, %s): %v", tc.path, tc.format, err)
			continue
		}
		s, ok := sc.sample(jobs, selectors{"jobs_total": {name: "jobs_total"}})
		if sc.format() != tc.want || !ok || s.v != 3 {
			t.Errorf("fetch(%s, %s) = %s read jobs %g, %v; want %s 3", tc.path, tc.format, sc.format(), s.v, ok, tc.want)
		}
	}
}

func TestParseMetricStat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Stat
		err  string
	}{
		{in: "g=go_goroutines", want: Stat{Name: "g", Metric: "go_goroutines"}},
		{in: `jobs=app_jobs_total{queue="a:b"}:rate`, want: Stat{Name: "jobs", Metric: `app_jobs_total{queue="a:b"}`, Kind: Counter}},
		{in: `w=wait_seconds_sum:per_request`, want: Stat{Name: "w", Metric: "wait_seconds_sum", Kind: Counter, PerRequest: true}},
		{in: `p=wait_seconds:p99.9`, want: Stat{Name: "p", Metric: "wait_seconds", Quantile: 0.999}},
		{in: `m=wait_seconds:mean`, want: Stat{Name: "m", Metric: "wait_seconds"}},
		{in: `r=job:rate5m`, want: Stat{Name: "r", Metric: "job:rate5m"}},
		{in: `p=wait_seconds:p100`, err: "percentile"},
		{in: `=x`, err: "name=selector"},
		{in: `x`, err: "name=selector"},
		{in: `x=a{b=c}`, err: "expected string"},
	} {
		got, err := ParseMetricStat(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseMetricStat(%q) error = %v; want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		tc.want.Legend = tc.want.Name
		if math.Abs(got.Quantile-tc.want.Quantile) < 1e-12 {
			got.Quantile = tc.want.Quantile
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMetricStat(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// TestPollerPrometheus polls a client_golang registry three times by
// hand, changing it in between, and checks each kind of reading of the
// window against the changes: a counter's rate and per-request figure, a
// CPU counter over a CPU count in %, a gauge's mean, a histogram's mean
// and quantile; a JSON-only stat is absent.
func TestPollerPrometheus(t *testing.T) {
	reg := prometheus.NewRegistry()
	jobs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "jobs_total", Help: "Jobs."}, []string{"queue"})
	cpu := prometheus.NewCounter(prometheus.CounterOpts{Name: "cpu_seconds_total", Help: "CPU."})
	cpus := prometheus.NewGauge(prometheus.GaugeOpts{Name: "cpus", Help: "CPUs."})
	depth := prometheus.NewGauge(prometheus.GaugeOpts{Name: "depth", Help: "Depth."})
	wait := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "wait_seconds", Help: "Wait.", Buckets: []float64{0.01, 0.1, 1}})
	reg.MustRegister(jobs, cpu, cpus, depth, wait)
	cpus.Set(2)
	// A series counts from the first read that has it (as in PromQL's
	// rate): client_golang shows a labelled one from its first use.
	jobs.WithLabelValues("a")
	jobs.WithLabelValues("b")
	wait.Observe(5) // before the window: not in its figures
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	stats := []Stat{
		{Name: "jobs", Metric: `jobs_total{queue="a"}`, Kind: Counter, Scale: 1},
		{Name: "jobs_per_request", Metric: "jobs_total", PerRequest: true, Scale: 1},
		{Name: "cpu", Path: "cpu", Kind: Gauge, Scale: 1, Metric: "cpu_seconds_total", Per: "cpus", MetricScale: 100},
		{Name: "depth", Metric: "depth", Scale: 1},
		{Name: "wait_mean", Metric: "wait_seconds", Scale: 1000},
		{Name: "wait_p50", Metric: "wait_seconds", Quantile: 0.5, Scale: 1},
		{Name: "json_only", Path: "x.y", Kind: Gauge, Scale: 1},
	}
	sels := selectors{}
	for _, s := range stats {
		if err := sels.add(s.Metric, s.Per); err != nil {
			t.Fatal(err)
		}
	}
	p := newPoller(srv.URL, Auto, stats, sels, nil)
	ctx := context.Background()
	depth.Set(10)
	p.read(ctx, false)
	jobs.WithLabelValues("a").Add(30)
	jobs.WithLabelValues("b").Add(10)
	cpu.Add(0.5)
	depth.Set(20)
	for _, v := range []float64{0.005, 0.005, 0.05, 0.5} {
		wait.Observe(v)
	}
	p.read(ctx, false)
	jobs.WithLabelValues("a").Add(30)
	cpu.Add(0.5)
	depth.Set(30)
	p.read(ctx, false)
	if p.errors != 0 || p.format != Prometheus {
		t.Fatalf("poller read %s with %d errors (%s); want prometheus, none", p.format, p.errors, p.lastErr)
	}
	span := p.t1.Sub(p.t0).Seconds()
	got := p.result(35, span) // 35 requests over the span
	want := map[string]float64{
		"jobs":             60 / span,
		"jobs_per_request": 70.0 / 35,
		"cpu":              1.0 / 2 / span * 100,
		"depth":            20,
		"wait_mean":        (0.005 + 0.005 + 0.05 + 0.5) / 4 * 1000,
		"wait_p50":         0.01, // rank 2 of 4: the top of the first bucket
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || math.Abs(g-w) > 1e-6*math.Max(1, math.Abs(w)) {
			t.Errorf("%s = %g, %v; want %g", name, g, ok, w)
		}
	}
	if _, ok := got["json_only"]; ok {
		t.Errorf("json_only read from Prometheus; want absent")
	}
}
