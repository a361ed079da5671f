package experiment

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// TestDescribeGoService checks that a file naming no readings, whose stats
// URL serves Prometheus without the target's metrics, is read with any Go
// service's readings and charts, once; with the target's metrics, or with
// readings of the file's own, the target's stay.
func TestDescribeGoService(t *testing.T) {
	target := watch.Target{MetricPrefix: "t_", Stats: []watch.Stat{{Name: "own", Metric: "t_own"}},
		States: []watch.State{{Name: "busy", Metric: "t_busy_seconds_total"}}}
	serve := func(own bool) string {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector())
		if own {
			reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "t_own", Help: "Own."}))
		}
		srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, tc := range []struct {
		name     string
		own      bool
		readings []watch.Stat
		format   string
		want     string // the first stat's name after describe
	}{
		{name: "go service", want: "process_cpu"},
		{name: "the target", own: true, want: "own"},
		{name: "file's readings", readings: []watch.Stat{{Name: "mine", Metric: "go_goroutines"}}, want: "mine"},
		{name: "json", format: watch.JSON, want: "own"},
	} {
		e := &Experiment{Name: "x", Stats: statsSpec{URL: serve(tc.own), Format: tc.format, Stats: tc.readings}}
		res := &outcome.Result{Stats: tc.readings}
		if len(res.Stats) == 0 {
			res.Stats = target.Stats
		}
		x := &experimentRunner{e: e, opt: Options{Target: target}, res: res, logf: func(string, ...any) {}, feed: feed.New(live.New(), "x")}
		x.describe(context.Background(), e.Stats.URL)
		x.describe(context.Background(), "http://127.0.0.1:1/unread") // once: not read again
		if got := x.res.Stats[0].Name; got != tc.want {
			t.Errorf("%s: stats after describe start with %q; want %q", tc.name, got, tc.want)
		}
		if goService := tc.want == "process_cpu"; goService != (len(x.opt.Target.States) == 0) || goService != (len(x.res.Notes) == 1) {
			t.Errorf("%s: states %v, notes %q; want the target's states and no note unless a Go service", tc.name, x.opt.Target.States, x.res.Notes)
		}
	}
}
