// Package live is the dashboard a room watches while the load runs:
//
//	h := live.New()
//	srv, err := live.Serve(ctx, "127.0.0.1:0", h) // the page and its event stream
//	h.Publish(frame)                              // one a second, one per step
//	frames, _ := h.Frames()
//	live.WriteReport(w, frames, "article")        // the same page, the frames inlined
//
// The page draws whatever series and shares the frames name, knowing nothing
// of the board; its charts are uPlot (MIT), embedded: it needs no network.
package live

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A Frame is what the dashboard learns at one moment, the schema of /events
// and /frames.json: one second on the time charts unless it is Between.
type Frame struct {
	T        float64    `json:"t"` // seconds since the experiment started
	Progress Progress   `json:"progress"`
	Client   Client     `json:"client"`
	Server   []Series   `json:"server"`
	Doing    []Share    `json:"doing"` // stacked in the order given
	Step     *Step      `json:"step,omitempty"`
	Claims   []Claim    `json:"claims,omitempty"` // the latest outcome of each claim so far
	Done     bool       `json:"done"`
	Between  bool       `json:"between,omitempty"`
	Notes    []string   `json:"notes,omitempty"`   // what the experiment did since the last frame
	Summary  *Summary   `json:"summary,omitempty"` // on the last frame only
	Tune     *TunePoint `json:"tune,omitempty"`
}

// A TunePoint is one step of a tuning's path through workers × pool.
type TunePoint struct {
	Path        string  `json:"path"`
	N           int     `json:"n"`
	Workers     int     `json:"workers"`
	Pool        int     `json:"pool"`
	Throughput  float64 `json:"throughput"`
	P99         float64 `json:"p99_ms"`
	Limit       string  `json:"limit"`
	Decision    string  `json:"decision"`
	BestWorkers int     `json:"best_workers"` // the best setting so far, 0 before any
	BestPool    int     `json:"best_pool"`
	Requests    int64   `json:"requests"` // over the step's repeats, failures included
	Errors      int64   `json:"errors"`
}

// Progress says where the experiment is.
type Progress struct {
	Experiment string  `json:"experiment"`
	Run        string  `json:"run"`
	Step       int     `json:"step"` // 1-based
	Steps      int     `json:"steps"`
	Clients    int     `json:"clients"`
	Elapsed    float64 `json:"elapsed"`
	Left       float64 `json:"left"`            // estimated
	Phase      string  `json:"phase,omitempty"` // outside the measured steps, e.g. "calibrating"
}

// Client is the generator's view of the last second (latencies in ms).
type Client struct {
	Throughput float64 `json:"throughput"` // successful requests per second
	P50        float64 `json:"p50_ms"`
	P90        float64 `json:"p90_ms"`
	P95        float64 `json:"p95_ms"`
	P99        float64 `json:"p99_ms"`
	Errors     []Count `json:"errors"` // by kind
}

// A Count is how many errors of one kind a second had.
type Count struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
}

// A Series is one reading of a named server-side quantity, drawn with the
// others of its Panel; an Absent one the server cannot give on its OS.
type Series struct {
	Name   string  `json:"name"`
	Unit   string  `json:"unit"`
	Panel  string  `json:"panel"`
	Value  float64 `json:"value"`
	Absent bool    `json:"absent,omitempty"`
	Dashed bool    `json:"dashed,omitempty"`
}

// A Share is the mean number of requests in one state during the second.
type Share struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// A Step is one completed step of a run; Requests include the Errors.
type Step struct {
	Run        string  `json:"run"`
	Clients    int     `json:"clients"`
	Throughput float64 `json:"throughput"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Mean       float64 `json:"mean_ms"`
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
}

// A Summary is the whole experiment's headline; Peak is its best step.
type Summary struct {
	Peak     *Step   `json:"peak,omitempty"`
	Steps    int     `json:"steps"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Duration float64 `json:"duration"` // seconds
}

// Outcome is what the measurements say of a claim (here: live imports none).
type Outcome string

// The outcomes a claim can have.
const (
	Reproduced    Outcome = "reproduced"
	NotReproduced Outcome = "not reproduced"
	Inconclusive  Outcome = "inconclusive"
	NotMeasured   Outcome = "not measured"
	// DoesNotDiscriminate is a claim whose checks hold for its control too.
	DoesNotDiscriminate Outcome = "does not discriminate"
)

// Outcomes lists the outcomes in the order counts and legends give them.
var Outcomes = []Outcome{Reproduced, DoesNotDiscriminate, NotReproduced, Inconclusive, NotMeasured}

// A Claim is one statement the experiment checks and its outcome so far.
type Claim struct {
	ID      string  `json:"id"`
	Text    string  `json:"text"`
	Outcome Outcome `json:"outcome"`
}

// Validate reports the first field of f that the page could not draw.
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
