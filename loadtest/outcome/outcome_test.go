package outcome

import (
	"testing"

	"bbslab/loadtest"
)

// measuredPoint is a point measured once per throughput given, with the
// mean response time mean[i].
func measuredPoint(clients int, thr []float64, mean []float64) *Point {
	p := &Point{Clients: clients}
	for i, t := range thr {
		r := &loadtest.Result{Total: loadtest.Stats{Clients: clients, Throughput: t, MeanMs: mean[i]}}
		p.Repeats = append(p.Repeats, NewRepeat(i+1, r, nil))
		p.Refresh()
	}
	return p
}

func TestRepeatKeepsMedianResult(t *testing.T) {
	p := measuredPoint(10, []float64{900, 700, 800}, []float64{3, 1, 2})
	if p.Result.Total.Throughput != 800 || len(p.Repeats) != 3 {
		t.Errorf("point Result throughput %v with %d repeats; want the median repeat (800) and 3 repeats", p.Result.Total.Throughput, len(p.Repeats))
	}
	if s := p.Summary.Total["mean_ms"]; s != (loadtest.Spread{Median: 2, Min: 1, Max: 3, N: 3}) {
		t.Errorf("mean_ms summary %+v; want median 2, range 1-3", s)
	}
	// A point of the older form (no repeats) reads as one measurement.
	old := &Point{Clients: 1, Result: &loadtest.Result{Total: loadtest.Stats{Throughput: 5}}}
	if s := old.Throughput(); s.N != 1 || s.Median != 5 {
		t.Errorf("old point throughput %+v; want one measurement of 5", s)
	}
}

func TestSpreadText(t *testing.T) {
	for _, tt := range []struct {
		s      loadtest.Spread
		format string
		want   string
	}{
		{loadtest.Spread{Median: 812, Min: 790, Max: 830, N: 3}, "%.0f", "812/s (790-830)"},
		{loadtest.Spread{Median: 812, Min: 812, Max: 812, N: 1}, "%.0f", "812/s"},
		{loadtest.Spread{Median: 0.000564, Min: 0.0004, Max: 0.0012, N: 3}, "auto", "0.000564/s (0.0004-0.0012)"},
		{loadtest.Spread{Median: 62, Min: 0, Max: 1234.5, N: 2}, "auto", "62.00/s (0.00-1234)"},
	} {
		if got := SpreadText(tt.s, tt.format, "/s"); got != tt.want {
			t.Errorf("spreadText(%+v, %q) = %q; want %q", tt.s, tt.format, got, tt.want)
		}
	}
}

func TestInterferenceText(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		in   *Interference
		want string
	}{
		{&Interference{Server: f(46.8), Steal: f(20.1), Expected: f(3.1), Generator: f(1.2)}, "server's cores 46.8 % (steal 20.1, 3.1 expected), generator's 1.2 %"},
		{&Interference{Generator: f(5), GeneratorSteal: f(1), GeneratorExpected: f(2)}, "generator's 5.0 % (steal 1.0, 2.0 expected)"},
		{&Interference{Server: f(3)}, "server's cores 3.0 %"},
		{nil, "not read"},
		{&Interference{Steal: f(1)}, "not read"},
	} {
		if got := tt.in.Text(); got != tt.want {
			t.Errorf("Text() = %q; want %q", got, tt.want)
		}
	}
}
