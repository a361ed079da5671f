// Package live is the dashboard a room watches while the load runs:
//
//	h := live.New()
//	srv, err := live.Serve(ctx, "127.0.0.1:0", h) // the page and its event stream
//	h.Publish(frame)                              // one a second, one per step
//	frames, _ := h.Frames()
//	live.WriteReport(w, frames, "article")        // the same page, the frames inlined
//
// It is a web page, updated every second by server-sent events, drawing the
// load's progress, the generator's throughput, latency and errors, whatever
// named series the server's side reports, what requests are doing now, and
// the experiment's steps as throughput and response time against clients,
// growing point by point. The same page, with the frames inlined, is the
// finished experiment's report (WriteReport).
//
// The package knows nothing of the board or of the load engine: a caller
// fills Frames and publishes them to a Hub, one a second and one per
// completed step, and, between the seconds, one per batch of notes and
// one at the end. The page draws whatever series and shares the frames
// name, and lists the notes (what the experiment did on this machine).
// Its charts are uPlot 1.6.32 (MIT), vendored and embedded, so viewing
// needs no network.
package live

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A Frame is what the dashboard learns at one moment: the per-second
// readings, and, when a step has just completed, the step's point and the
// claims decidable so far. Its JSON form is the schema of /events and
// /frames.json.
//
// A frame is one second on the time charts unless it is Between: a step
// and its claims ride on the frame of the second in which the step
// completed, and the frames between the seconds (the experiment's notes,
// the seconds of a calibration, the end) are left off the time charts.
type Frame struct {
	T        float64  `json:"t"` // seconds since the experiment started
	Progress Progress `json:"progress"`
	Client   Client   `json:"client"`
	Server   []Series `json:"server"` // in the order to draw them; may be empty
	Doing    []Share  `json:"doing"`  // stacked in the order given; may be empty
	Step     *Step    `json:"step,omitempty"`
	Claims   []Claim  `json:"claims,omitempty"` // the latest outcome of each claim so far
	Done     bool     `json:"done"`             // the experiment has finished
	// Between marks a frame that is no second of the experiment's load:
	// it carries progress, notes, a step, claims or the end, never a
	// second's figures (Client, Server and Doing are empty).
	Between bool `json:"between,omitempty"`
	// Notes are what the experiment noted since the previous frame, each
	// sent once (what it did on this machine: how it pinned or capped the
	// server and the generator, a quick run's warning, what a calibration
	// measured and chose). The page keeps every note it was sent, so a
	// frame with notes stays in the history for a late joiner and the
	// report.
	Notes []string `json:"notes,omitempty"`
	// Summary is the whole experiment's figures, set on the last frame
	// only (Done): the finished page heads with them, where the live page
	// heads with the last second, which after the end of load is empty.
	Summary *Summary `json:"summary,omitempty"`
	// Tune is a tuner's step, on a frame between the seconds: the page
	// draws each tuning's path through the workers × pool plane.
	Tune *TunePoint `json:"tune,omitempty"`
}

// A TunePoint is one step of a tuning (package tune) as the page draws
// it: Path names the tuning ("page from 5/5"), N the step; the
// setting, its throughput and p99, the limit the tuner named, what it does
// next and the best setting so far.
type TunePoint struct {
	Path       string  `json:"path"`
	N          int     `json:"n"`
	Workers    int     `json:"workers"`
	Pool       int     `json:"pool"`
	Throughput float64 `json:"throughput"`
	P99        float64 `json:"p99_ms"`
	Limit      string  `json:"limit"`
	Decision   string  `json:"decision"`
	// BestWorkers and BestPool are the best setting after this step (0
	// before any).
	BestWorkers int `json:"best_workers"`
	BestPool    int `json:"best_pool"`
	// Requests and Errors count the step's measured requests over its
	// repeats, failures included, and its failures: the headline's.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
}

// Progress says where the experiment is.
type Progress struct {
	Experiment string  `json:"experiment"`
	Run        string  `json:"run"`
	Step       int     `json:"step"`  // 1-based index of the step running
	Steps      int     `json:"steps"` // steps in this run
	Clients    int     `json:"clients"`
	Elapsed    float64 `json:"elapsed"` // seconds since the experiment started
	Left       float64 `json:"left"`    // seconds the experiment has still to run, estimated
	// Phase says what the experiment does outside its measured steps
	// (e.g. "calibrating"), with Run and Step naming what it loads; empty
	// while a step is measured.
	Phase string `json:"phase,omitempty"`
}

// Client is the generator's view of the last second. Latencies are over
// the successful requests of that second, in milliseconds; a second with no
// success carries 0 and Throughput 0, and the page leaves a gap.
type Client struct {
	Throughput float64 `json:"throughput"` // successful requests per second
	P50        float64 `json:"p50_ms"`
	P90        float64 `json:"p90_ms"`
	P95        float64 `json:"p95_ms"`
	P99        float64 `json:"p99_ms"`
	Errors     []Count `json:"errors"` // by kind, in that second; may be empty
}

// A Count is how many errors of one kind a second had.
type Count struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
}

// A Series is one reading of a named server-side quantity: the page draws
// the series of one Panel on one chart, labelled with their Unit. An
// Absent series is one the server cannot give on its OS: it has no Value,
// and the page's legend says "not available on this OS" rather than draw
// 0.
type Series struct {
	Name   string  `json:"name"`
	Unit   string  `json:"unit"`
	Panel  string  `json:"panel"`
	Value  float64 `json:"value"`
	Absent bool    `json:"absent,omitempty"`
	// Dashed draws the series dashed: a limit, a sum or a highest so
	// far beside the lines it bounds.
	Dashed bool `json:"dashed,omitempty"`
}

// A Share is the mean number of requests in one state during the second
// (waiting for a worker, for a connection, in SQL, elsewhere).
type Share struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// A Step is the result of one completed step of a run: one point on the
// throughput-vs-clients and response-time-vs-clients curves of Run.
type Step struct {
	Run        string  `json:"run"`
	Clients    int     `json:"clients"`
	Throughput float64 `json:"throughput"` // successful requests per second
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Mean       float64 `json:"mean_ms"`
	// Requests and Errors count the step's measured requests, failures
	// included, and its failures.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
}

// A Summary is what the experiment measured over all its steps: the
// headline of the finished page (and of the report).
type Summary struct {
	// Peak is the step of highest throughput, with its run, clients and
	// p99; nil when no step completed.
	Peak  *Step `json:"peak,omitempty"`
	Steps int   `json:"steps"` // steps completed
	// Requests and Errors add up the steps' measured requests (failures
	// included) and failures; warm-ups are not measured.
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Duration float64 `json:"duration"` // seconds from the start to the end
}

// Outcome is what the measurements say of a claim or of one of its
// checks. The experiment decides it and the dashboard shows it; it is
// defined here, the lower of the two, because package live imports no
// other package.
type Outcome string

// The outcomes a claim can have.
const (
	Reproduced    Outcome = "reproduced"
	NotReproduced Outcome = "not reproduced"
	Inconclusive  Outcome = "inconclusive"
	NotMeasured   Outcome = "not measured"
	// DoesNotDiscriminate is a claim whose checks hold, and hold as well
	// for its control, where the effect it names is absent: the checks
	// cannot tell the effect from its absence.
	DoesNotDiscriminate Outcome = "does not discriminate"
)

// Outcomes lists the outcomes in the order counts and legends give them.
var Outcomes = []Outcome{Reproduced, DoesNotDiscriminate, NotReproduced, Inconclusive, NotMeasured}

// A Claim is one statement the experiment checks and its outcome so far:
// what the dashboard shows of it. The experiment's decided claim
// (claimResult in loadtest/experiment) is a Claim with the checks that
// decided it.
type Claim struct {
	ID      string  `json:"id"`
	Text    string  `json:"text"`
	Outcome Outcome `json:"outcome"`
}

// Validate reports the first field of f that the page could not draw: a
// number that is not finite or is negative where only counts and rates make
// sense, a series or share without a name, a claim with an unknown outcome,
// an empty note, a frame between the seconds with a second's figures.
// JSON has no NaN, so a NaN would otherwise fail the encoding of the frame.
func (f *Frame) Validate() error {
	type num struct {
		field string
		v     float64
	}
	nums := []num{
		{"t", f.T},
		{"progress.elapsed", f.Progress.Elapsed},
		{"progress.left", f.Progress.Left},
		{"client.throughput", f.Client.Throughput},
		{"client.p50_ms", f.Client.P50},
		{"client.p90_ms", f.Client.P90},
		{"client.p95_ms", f.Client.P95},
		{"client.p99_ms", f.Client.P99},
	}
	step := func(field string, s *Step) error {
		if s.Run == "" {
			return fmt.Errorf("%s.run is empty: a step belongs to a named run", field)
		}
		if s.Requests < 0 || s.Errors < 0 || s.Errors > s.Requests {
			return fmt.Errorf("%s: %d errors of %d requests: want 0 <= errors <= requests", field, s.Errors, s.Requests)
		}
		nums = append(nums, num{field + ".throughput", s.Throughput}, num{field + ".p50_ms", s.P50},
			num{field + ".p99_ms", s.P99}, num{field + ".mean_ms", s.Mean}, num{field + ".clients", float64(s.Clients)})
		return nil
	}
	if s := f.Step; s != nil {
		if err := step("step", s); err != nil {
			return err
		}
	}
	if p := f.Tune; p != nil {
		if p.Path == "" || p.Workers < 1 || p.Pool < 1 || p.N < 1 {
			return fmt.Errorf("tune: path %q, step %d at %d workers / %d connections: want a named path, a step and positive knobs", p.Path, p.N, p.Workers, p.Pool)
		}
		nums = append(nums, num{"tune.throughput", p.Throughput}, num{"tune.p99_ms", p.P99})
	}
	if s := f.Summary; s != nil {
		if !f.Done {
			return fmt.Errorf("summary on a frame that is not done: the summary is the finished experiment's")
		}
		if s.Steps < 0 || s.Requests < 0 || s.Errors < 0 || s.Errors > s.Requests {
			return fmt.Errorf("summary: %d steps, %d errors of %d requests: want counts >= 0 and errors <= requests", s.Steps, s.Errors, s.Requests)
		}
		nums = append(nums, num{"summary.duration", s.Duration})
		if s.Peak != nil {
			if err := step("summary.peak", s.Peak); err != nil {
				return err
			}
		}
	}
	for _, n := range nums {
		if math.IsNaN(n.v) || math.IsInf(n.v, 0) || n.v < 0 {
			return fmt.Errorf("%s is %v: want a finite number >= 0", n.field, n.v)
		}
	}
	if f.Progress.Step < 0 || f.Progress.Steps < 0 || f.Progress.Clients < 0 || f.Progress.Step > f.Progress.Steps {
		return fmt.Errorf("progress: step %d of %d with %d clients: want 0 <= step <= steps and clients >= 0",
			f.Progress.Step, f.Progress.Steps, f.Progress.Clients)
	}
	for i, e := range f.Client.Errors {
		if e.Kind == "" || e.Count < 0 {
			return fmt.Errorf("client.errors[%d]: kind %q count %d: want a kind and a count >= 0", i, e.Kind, e.Count)
		}
	}
	for i, s := range f.Server {
		if s.Name == "" || s.Panel == "" {
			return fmt.Errorf("server[%d]: name %q panel %q: both are needed", i, s.Name, s.Panel)
		}
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			return fmt.Errorf("server[%d] (%s): value %v is not finite", i, s.Name, s.Value)
		}
	}
	for i, s := range f.Doing {
		if s.Name == "" || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
			return fmt.Errorf("doing[%d]: name %q value %v: want a name and a finite value >= 0", i, s.Name, s.Value)
		}
	}
	for i, n := range f.Notes {
		if strings.TrimSpace(n) == "" {
			return fmt.Errorf("notes[%d] is empty: want the note's text", i)
		}
	}
	if f.Between {
		c := f.Client
		if c.Throughput != 0 || c.P50 != 0 || c.P90 != 0 || c.P95 != 0 || c.P99 != 0 || len(c.Errors) > 0 || len(f.Server) > 0 || len(f.Doing) > 0 {
			return fmt.Errorf("between: the frame is no second of load, yet carries a second's figures (client %+v, %d series, %d shares)",
				c, len(f.Server), len(f.Doing))
		}
	}
	for i, c := range f.Claims {
		if !slices.Contains(Outcomes, c.Outcome) {
			return fmt.Errorf("claims[%d] (%s): outcome %q: want one of %q", i, c.ID, c.Outcome, Outcomes)
		}
		if c.ID == "" {
			return fmt.Errorf("claims[%d]: id is empty", i)
		}
	}
	return nil
}
