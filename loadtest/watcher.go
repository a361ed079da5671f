package loadtest

import (
	"context"
	"encoding/json"
	"time"
)

// A Watcher watches the load target while a run goes on: package watch
// polls a stats JSON and takes profiles. The engine knows nothing of the
// target; it starts a Watcher's Watch with the run, says when the measured
// window ends and keeps what Finish returns in the Result.
type Watcher interface {
	// Start begins watching a run of s whose measured window opens at
	// warmEnd; the Watch ends its goroutines when ctx ends or Finish is
	// called.
	Start(ctx context.Context, s Settings, warmEnd time.Time) Watch
}

// A Watch is one run's watching, started by a Watcher.
type Watch interface {
	// EndWindow says the measured window is over: what covers the window
	// (stats) stops; the drain after it is not the window's.
	EndWindow()
	// Finish stops watching and returns what was seen; successes and
	// seconds are the run's measured successes and window length, for
	// per-request and per-second figures.
	Finish(successes int64, seconds float64) Watched
}

// Watched is what a Watch saw over one run.
type Watched struct {
	// Server holds the target's own figures over the measured window, nil
	// when none were polled.
	Server *ServerStats
	// Profiles are the profiles taken of the target, in kind order.
	Profiles []*ProfileSummary
	// Environment holds the target's self-description (opaque JSON objects
	// by key) for Result.Environment.Server.
	Environment map[string]json.RawMessage
	// Warnings are notes for Result.Warnings (failed reads, readings the
	// target does not have, profiles that failed).
	Warnings []string
}

// ServerStats are the load target's own figures over the measured
// period of a run, read from its stats JSON every second.
type ServerStats struct {
	// URL is the stats URL read.
	URL string `json:"url"`
	// Reads counts the successful reads (JSON "samples"); Failed the reads that failed
	// (unreachable, not 200, not JSON), LastError the last failure.
	Reads     int    `json:"samples"`
	Failed    int    `json:"failed,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// Values holds one entry per reading found in at least one read, in
	// the order of the readings.
	Values []ServerValue `json:"values,omitempty"`
}

// A ServerValue is one reading over a run: the mean of a gauge, or a
// counter's increase per second (or per successful request).
type ServerValue struct {
	Name  string  `json:"name"`
	Path  string  `json:"path"`
	Kind  string  `json:"kind"`
	Unit  string  `json:"unit,omitempty"`
	Value float64 `json:"value"`
}

// Value returns the reading called name, if it was found.
func (s *ServerStats) Value(name string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	for _, v := range s.Values {
		if v.Name == name {
			return v.Value, true
		}
	}
	return 0, false
}

// ProfileSummary is what an experiment keeps of one profile.
type ProfileSummary struct {
	Kind string `json:"kind"` // cpu or fgprof
	File string `json:"file"`
	// Clients and Repeat say which step of an experiment was profiled
	// (absent outside experiments).
	Clients int `json:"clients,omitempty"`
	Repeat  int `json:"repeat,omitempty"`
	// Total is the sum of the last sample value (ns for CPU and fgprof).
	Total int64 `json:"total"`
	// Top are the functions with the most flat samples.
	Top []FuncShare `json:"top"`
	// Buckets are the shares of (focused) samples by the bucket frames.
	Buckets []FuncShare `json:"buckets,omitempty"`
	// Focused is the share of all samples that passed the focus.
	Focused float64 `json:"focused,omitempty"`
}

// FuncShare is a name with its share of samples (0..1).
type FuncShare struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}
