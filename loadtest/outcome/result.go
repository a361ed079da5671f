package outcome

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/fleet"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
)

// FleetResult is what a run's fleet was, in the result.
type FleetResult struct {
	Replicas      []fleet.Replica `json:"replicas"`
	Balance       string          `json:"balance"`
	MetricsURL    string          `json:"haproxy_metrics"`
	PgBouncer     string          `json:"pgbouncer,omitempty"`
	PoolSize      int             `json:"pgbouncer_pool,omitempty"`
	PgBouncerCPUs []int           `json:"pgbouncer_cpus,omitempty"`
	ConnLimit     int             `json:"conn_limit,omitempty"`
	Exits         []string        `json:"exits,omitempty"`
}

// QuickNote heads a quick run's notes and report (Result.Quick).
const QuickNote = "QUICK RUN: at most 3 client counts, one measurement each, short steps. " +
	"Its claims are decided from single measurements, without a spread to tell an effect from the machine's noise: " +
	"use it to try a file, not to reproduce a claim."

// SweepsUsed is how many sweeps the claims stand on: those after any redone calibration.
func (r *Result) SweepsUsed() int {
	if r.Recalibration != nil && r.Recalibration.Sweep > 1 {
		return max(1, r.Repeats-(r.Recalibration.Sweep-1))
	}
	return r.Repeats
}

// Result is everything an experiment measured, as in experiment.json.
type Result struct {
	Schema       int            `json:"schema"`
	Kind         string         `json:"kind"`
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	Start        time.Time      `json:"start"`
	End          time.Time      `json:"end"`
	Notes        []string       `json:"notes,omitempty"`
	Stats        []watch.Stat   `json:"readings,omitempty"`
	Interference string         `json:"interference_reading,omitempty"`
	Steal        string         `json:"steal_reading,omitempty"`
	Timeline     bool           `json:"timeline,omitempty"`
	Distribution bool           `json:"distribution,omitempty"`
	Deadlines    []cli.Duration `json:"deadlines,omitempty"`
	SLO          string         `json:"slo,omitempty"`
	Repeats      int            `json:"repeats,omitempty"`
	Interleave   bool           `json:"interleave,omitempty"`
	// Sweeps: each interleaved repeat was a whole sweep, so any two points pair by repeat.
	Sweeps        bool                   `json:"sweeps,omitempty"`
	Quick         bool                   `json:"quick,omitempty"`
	Runs          []*Run                 `json:"runs"`
	Disk          json.RawMessage        `json:"disk,omitempty"`
	Error         string                 `json:"error,omitempty"`
	Calibration   *calibrate.Calibration `json:"calibration,omitempty"`
	Tunes         []*TuneRun             `json:"tunes,omitempty"`
	Recalibration *calibrate.Calibration `json:"recalibration,omitempty"`
	Disturbance   *Disturbance           `json:"disturbance,omitempty"`
	// CalibrationMoved says why the claims on the calibration's share were not measured.
	CalibrationMoved string   `json:"calibration_moved,omitempty"`
	Claims           []Claim  `json:"claims,omitempty"`
	Verdicts         []string `json:"verdicts,omitempty"`
}

// Run is one server configuration's sweep.
type Run struct {
	Name     string            `json:"name"`
	Command  []string          `json:"command"`
	Vars     map[string]string `json:"vars,omitempty"`
	Points   []*Point          `json:"points"`
	Profiles []*StepProfile    `json:"profiles,omitempty"`
	Fleet    *FleetResult      `json:"fleet,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// A StepProfile is a profile the watcher took during a run, with the step
// and the measurement (Seq) it was taken at.
type StepProfile struct {
	*watch.ProfileSummary
	Clients int `json:"clients,omitempty"`
	Repeat  int `json:"repeat,omitempty"`
	Seq     int `json:"seq,omitempty"`
}

// Point is one client count of a run; Result, Server, Within and SLO are
// those of the used repeat of median throughput.
type Point struct {
	Clients int                `json:"clients"`
	Result  *loadtest.Result   `json:"result"`
	Server  map[string]float64 `json:"server,omitempty"`
	// Within is the share (0..1) of successes within each deadline.
	Within  []float64                  `json:"within,omitempty"`
	SLO     []loadtest.ObjectiveResult `json:"slo,omitempty"`
	Repeats []*Repeat                  `json:"repeats,omitempty"`
	Summary *PointSummary              `json:"summary,omitempty"`
}

// SLOFailed reports whether any objective of load.slo failed at any step.
func (r *Result) SLOFailed() bool {
	for _, rr := range r.Runs {
		for _, p := range rr.Points {
			if slices.ContainsFunc(p.SLO, func(o loadtest.ObjectiveResult) bool { return !o.Pass }) {
				return true
			}
		}
	}
	return false
}

// UnitSuffix is a unit as it follows a figure: " ms", " %", "" for none.
func UnitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

// Results returns the results of the points that have one.
func Results(ps []*Point) []*loadtest.Result {
	var out []*loadtest.Result
	for _, p := range ps {
		if p.Result != nil {
			out = append(out, p.Result)
		}
	}
	return out
}

// WriteJSON writes res to path.
func WriteJSON(path string, res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode experiment: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// TuneRun is one tuning of an experiment's run from a start.
type TuneRun struct {
	Run    string       `json:"run"`
	Start  string       `json:"start"`
	Result *tune.Result `json:"result,omitempty"`
	Error  string       `json:"error,omitempty"`
	// StartSide and WinnerSide are measured again side by side at the end: what claims compare.
	StartSide  *tune.Measurement `json:"start_side_by_side,omitempty"`
	WinnerSide *tune.Measurement `json:"winner_side_by_side,omitempty"`
}

// MeasuredOnly returns res with only the points that have a used measurement.
func (res *Result) MeasuredOnly() *Result {
	m := *res
	m.Runs = make([]*Run, len(res.Runs))
	for i, r := range res.Runs {
		m.Runs[i] = r.MeasuredOnly()
	}
	return &m
}

// MeasuredOnly returns r with only its measured points and their profiles.
func (r *Run) MeasuredOnly() *Run {
	m := *r
	m.Points, m.Profiles = nil, nil
	used := map[int]bool{}
	legacy := false
	for _, p := range r.Points {
		if !p.Measured() {
			continue
		}
		m.Points = append(m.Points, p)
		seqs := p.UsedSeqs()
		legacy = legacy || seqs == nil
		maps.Copy(used, seqs)
	}
	for _, pr := range r.Profiles {
		if legacy || pr.UsedIn(used) {
			m.Profiles = append(m.Profiles, pr)
		}
	}
	return &m
}

// ClientsText says "1 client" or "N clients".
func ClientsText(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FileName makes a run name safe as a file name.
func FileName(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-")
	if s == "" {
		return "run"
	}
	return s
}

// UsedIn reports whether pr was taken in a used measurement; true when either cannot tell.
func (pr *StepProfile) UsedIn(used map[int]bool) bool {
	return used == nil || pr.Seq == 0 || used[pr.Seq]
}

// ProfileGroup is the profiles of one kind at one client count, with each bucket's share.
type ProfileGroup struct {
	Kind     string
	Clients  int
	Profiles []*StepProfile
	Buckets  []BucketShare
}

// A BucketShare is a profile bucket's share over a group's profiles.
type BucketShare struct {
	Name  string
	Share loadtest.Spread
}

// Where says the client count and repeats, e.g. ", 10 clients, 3 repeats".
func (g ProfileGroup) Where() string {
	if g.Clients == 0 {
		return ""
	}
	s := ", " + ClientsText(g.Clients)
	if n := len(g.Profiles); n > 1 {
		s += fmt.Sprintf(", %d repeats", n)
	}
	return s
}

// ProfileGroups groups profiles by kind and client count, in order.
func ProfileGroups(ps []*StepProfile) []ProfileGroup {
	var out []ProfileGroup
	for _, p := range ps {
		i := slices.IndexFunc(out, func(g ProfileGroup) bool { return g.Kind == p.Kind && g.Clients == p.Clients })
		if i < 0 {
			out = append(out, ProfileGroup{Kind: p.Kind, Clients: p.Clients})
			i = len(out) - 1
		}
		out[i].Profiles = append(out[i].Profiles, p)
	}
	for i := range out {
		g := &out[i]
		for _, b := range g.Profiles[0].Buckets {
			if sp, ok := ShareOver(g.Profiles, b.Name); ok {
				g.Buckets = append(g.Buckets, BucketShare{b.Name, sp})
			}
		}
	}
	return out
}

// ShareOver is a bucket's share over profiles.
func ShareOver(ps []*StepProfile, bucket string) (loadtest.Spread, bool) {
	var vs []float64
	for _, p := range ps {
		for _, b := range p.Buckets {
			if b.Name == bucket {
				vs = append(vs, b.Share)
			}
		}
	}
	return SpreadOf(vs, len(vs) > 0)
}
