package loadtest

import "time"

// An Overlap says how the measured windows of merged results lined up, by
// each generator's own clock.
type Overlap struct {
	// Start and End bound the common window (Start after End when the
	// windows are disjoint, and Seconds 0).
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Seconds float64   `json:"seconds"`
	// The skews are the latest measure_start (end) minus the earliest.
	MaxStartSkewMs float64 `json:"max_start_skew_ms"`
	MaxEndSkewMs   float64 `json:"max_end_skew_ms"`
	// ThresholdMs is the skew above which merge.Results warns.
	ThresholdMs float64        `json:"threshold_ms"`
	Generators  []WindowOffset `json:"generators"`
	Warning     string         `json:"warning,omitempty"`
}

// A WindowOffset is one generator's measured window against the common
// window of an Overlap: its start and end minus the common ones, and its
// Result.StartLagMs.
type WindowOffset struct {
	Name       string  `json:"name,omitempty"`
	StartMs    float64 `json:"start_ms"`
	EndMs      float64 `json:"end_ms"`
	StartLagMs float64 `json:"start_lag_ms,omitempty"`
}
