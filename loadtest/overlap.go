package loadtest

import "time"

// An Overlap says how the measured windows of merged results lined up.
// Every time is as the generator's own clock gave it: results from several
// machines compare their clocks too, so an offset between those clocks is
// part of the skews (and invisible when each machine waited for the same
// start on its own, offset clock).
type Overlap struct {
	// Start and End bound the common window, in which every generator
	// measured: the latest measure_start and the earliest end. When the
	// windows are disjoint (merge.Options.AllowDisjoint), Start is after End.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Seconds is End minus Start, 0 when the windows are disjoint.
	Seconds float64 `json:"seconds"`
	// MaxStartSkewMs is the latest measure_start minus the earliest;
	// MaxEndSkewMs the latest end minus the earliest.
	MaxStartSkewMs float64 `json:"max_start_skew_ms"`
	MaxEndSkewMs   float64 `json:"max_end_skew_ms"`
	// ThresholdMs is the skew above which merge.Results warns
	// (merge.SkewFloor, merge.SkewShare).
	ThresholdMs float64 `json:"threshold_ms"`
	// Generators has each result's window against the common one, in the
	// order merged.
	Generators []WindowOffset `json:"generators"`
	// Warning, when the windows are skewed beyond the threshold or
	// disjoint, says by how much; it is among the result's Warnings too.
	Warning string `json:"warning,omitempty"`
}

// A WindowOffset is one generator's measured window against the common
// window of an Overlap.
type WindowOffset struct {
	// Name is the result's name, if it had one.
	Name string `json:"name,omitempty"`
	// StartMs is its measure_start minus the common start (0, or negative:
	// it measured that long before the last generator began to); EndMs is
	// its end minus the common end (0, or positive).
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
	// StartLagMs is its Result.StartLagMs: how late after its start_at its
	// clients started (absent without start_at).
	StartLagMs float64 `json:"start_lag_ms,omitempty"`
}
