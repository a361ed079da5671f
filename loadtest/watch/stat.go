package watch

import "bbslab/loadtest"

// A Stat is one number of a target's stats JSON that the watcher keeps:
// where it is (Path, dot separated, e.g. "workers.queued") and how to read
// it. A "gauge" is averaged over the step; a "counter" becomes its increase
// per second over the step, or, with PerRequest, per successful request in
// milliseconds when Scale is 1000. (A machine.Reading, by contrast, is a
// snapshot of the machine's counters; a Stat only names a path.)
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

// A Chart is one server chart of a sweep: the stats whose Chart is Name,
// drawn against clients and saved as PREFIX-server-<Name>.
type Chart struct {
	Name   string
	Title  string
	YLabel string
}

// Columns returns the sweep table's server columns: the stats with a
// Column, in order, each taking its value from a run's ServerStats.
func Columns(rs []Stat) []loadtest.Column {
	var out []loadtest.Column
	for _, r := range rs {
		if r.Column != "" {
			out = append(out, loadtest.Column{Header: r.Column, Format: r.Format, Value: serverValue(r.Name)})
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
