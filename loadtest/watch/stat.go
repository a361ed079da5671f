package watch

import (
	"fmt"

	"bbslab/loadtest"
	"bbslab/loadtest/text"
)

// A Stat is one number of a target's stats that the watcher keeps, in
// either of two forms: where it is in the stats JSON (Path, dot separated,
// e.g. "workers.queued") or which series of a Prometheus text endpoint
// give it (Metric), and how to read it. A "gauge" is averaged over the
// step; a "counter" becomes its increase per second over the step, or,
// with PerRequest, per successful request in milliseconds when Scale is
// 1000. (A machine.Reading, by contrast, is a snapshot of the machine's
// counters; a Stat only names where a number is.)
//
// Read from Prometheus, the metric's TYPE decides the kind (Kind only
// says how to read an untyped metric): a counter becomes a rate (or per
// request), a gauge a mean, a histogram the mean of its observations over
// the step (the increase of _sum over that of _count) or, with Quantile,
// a quantile of them from the buckets' increases (PromQL's
// histogram_quantile over increase()). name_sum and name_count of a
// histogram read as counters. A figure the stats JSON gives as a
// percentage of CPUs is a counter of CPU-seconds in Prometheus: Per
// divides it by a gauge (the number of CPUs) and MetricScale (100) makes
// it a percentage, so that both forms give the same figure.
//
// A Stat is data: the target's description (Target.Stats; for the board,
// package contract) or an experiment file's [[stats.reading]] says which
// there are; the Chart, Legend, Panel and Column fields say how the
// charts, the live dashboard and the sweep table show it.
type Stat struct {
	Name       string  `toml:"name"`
	Path       string  `toml:"path"`
	Kind       string  `toml:"kind"` // gauge or counter
	PerRequest bool    `toml:"per_request"`
	Scale      float64 `toml:"scale"` // multiplies the value (default 1)
	Unit       string  `toml:"unit"`
	// Metric is the Prometheus form: a selector as PromQL writes one,
	// http_requests_total{code="200"}; the series it matches are
	// summed over the labels it does not name. Quantile (0 < q < 1) reads
	// a histogram's quantile instead of its mean; Per names a gauge the
	// value is divided by at each read (a count of CPUs); MetricScale,
	// when set, multiplies the Prometheus form instead of Scale.
	Metric      string  `toml:"metric"`
	Quantile    float64 `toml:"quantile"`
	Per         string  `toml:"per"`
	MetricScale float64 `toml:"metric_scale"`
	// Optional says the target leaves the path out when it has nothing to
	// report (a TCP state with no socket): its absence is no warning.
	// Without it, a stat never found is named in the result's warnings.
	Optional bool `toml:"optional"`
	// Chart names the server chart (Chart.Name) the stat is drawn on
	// against clients, "" for none; Legend labels its line (there and on
	// the live dashboard), Dashed draws it dashed, and Complement draws 100
	// minus the value (busy from idle).
	Chart      string `toml:"chart"`
	Legend     string `toml:"legend"`
	Dashed     bool   `toml:"dashed"`
	Complement bool   `toml:"complement"`
	// Panel names the live dashboard's panel on which the stat's
	// per-second value is drawn (Read.Values), "" for none.
	Panel string `toml:"panel"`
	// Column heads the stat's column in the sweep table ("" for none),
	// printed with the fmt verb Format (default "%.3f").
	Column string `toml:"column"`
	Format string `toml:"format"`
}

// The kinds of stat.
const (
	Gauge   = "gauge"
	Counter = "counter"
)

// Check checks a stat as a file or a flag gives it: a name, a path or a
// metric (or both), a kind of gauge or counter ("" for a metric: its type
// decides), and a metric's selectors and quantile. Its errors name the
// stat and the field.
func (s Stat) Check() error {
	if s.Name == "" || s.Path == "" && s.Metric == "" {
		return fmt.Errorf("stat %q: a name and a path (stats JSON) or a metric (Prometheus) are required", s.Name)
	}
	switch {
	case s.Kind == Gauge, s.Kind == Counter:
	case s.Kind == "" && s.Path == "":
	default:
		return fmt.Errorf("stat %q: kind %q: want gauge or counter", s.Name, s.Kind)
	}
	if s.Metric == "" {
		if s.Per != "" || s.Quantile != 0 || s.MetricScale != 0 {
			return fmt.Errorf("stat %q: per, quantile and metric_scale read a Prometheus metric: give metric too", s.Name)
		}
		return nil
	}
	return s.checkProm()
}

// A Chart is one server chart of a sweep: the stats whose Chart is Name,
// drawn against clients and saved as PREFIX-server-<Name>.
type Chart struct {
	Name   string
	Title  string
	YLabel string
}

// Columns returns the sweep table's server columns: the stats with a
// Column, in order, each taking its value from a run's ServerStats.
func Columns(rs []Stat) []text.Column {
	var out []text.Column
	for _, r := range rs {
		if r.Column != "" {
			out = append(out, text.Column{Header: r.Column, Format: r.Format, Value: serverValue(r.Name)})
		}
	}
	return out
}

// serverValue returns a function giving the reading called name of a run
// (none when the run's figures cannot be read).
func serverValue(name string) func(*loadtest.Result) (float64, bool) {
	return func(res *loadtest.Result) (float64, bool) {
		s, err := Of(res)
		if err != nil {
			return 0, false
		}
		return s.Server.Value(name)
	}
}
