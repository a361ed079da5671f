package measure

import (
	"fmt"
	"math"
	"time"

	"bbslab/internal/cli"
)

// Rules are the thresholds of the disturbance, slow and noise rules and
// the re-measuring limits: an experiment file's [disturbance] section,
// the tuner's too. Zero fields take the defaults (Check); the defaults
// and the measurements that chose them are in docs/experiments.md,
// "The measuring rules".
type Rules struct {
	// Off reads and records the interference of every measurement but
	// never judges it: each is measured once and used, disturbed or not
	// (for tests of a planner's own order, and for a machine whose
	// interference readings are known to be wrong).
	Off bool `toml:"off" json:"off,omitempty"`
	// Threshold is how far, in percentage points of one core, a
	// measurement's interference (or steal) may exceed what the baseline
	// expects before it is disturbed (default 10).
	Threshold float64 `toml:"threshold" json:"threshold"`
	// MaxAttempts bounds the measurements of one repeat: the first and
	// the re-measures while it is disturbed (default 3; 1 measures once
	// and leaves a disturbed repeat out).
	MaxAttempts int `toml:"max_attempts" json:"max_attempts"`
	// MaxExtra bounds the measuring time re-measures may add (default:
	// the planner's, a quarter of its planned measuring time).
	MaxExtra cli.Duration `toml:"max_extra" json:"-"`
	// CPUPerRequest is the slow rule: how far, in % of the median of the
	// setting's other measurements, a measurement's server CPU per
	// request may be before it is suspect (default 25).
	CPUPerRequest float64 `toml:"cpu_per_request" json:"cpu_per_request"`
	// Settle bounds the wait for quiet cores before a disturbed
	// measurement is taken again (default 10s, counted in MaxExtra).
	Settle cli.Duration `toml:"settle" json:"-"`
	// NoiseFloor is the least noise, in % of a median, any comparison of
	// throughputs allows: a spread narrower than that is widened to it
	// (Band; default 2).
	NoiseFloor float64 `toml:"noise_floor" json:"noise_floor_percent,omitempty"`
	// Within is the least median ratio, round by round, at which a
	// setting measured side by side with another is as good as it
	// (RatioVerdict; default 0.95).
	Within float64 `toml:"within" json:"within,omitempty"`
}

// The defaults of Rules (docs/experiments.md, "The measuring rules").
const (
	DefaultThreshold     = 10
	DefaultMaxAttempts   = 3
	MaxMaxAttempts       = 10
	DefaultCPUPerRequest = 25
	DefaultSettle        = 10 * time.Second
	DefaultNoiseFloor    = 2
	DefaultWithin        = 0.95
)

// Check validates r, naming each bad field under section (e.g.
// "disturbance"), and fills in the defaults.
func (r *Rules) Check(section string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(section+"."+format, a...)) }
	pct := func(name string, v *float64, hi, def float64, want string) {
		if *v < 0 || *v > hi || math.IsNaN(*v) {
			bad("%s = %g: want %s, 0..%g (0: %g)", name, *v, want, hi, def)
		}
		if *v == 0 {
			*v = def
		}
	}
	pct("threshold", &r.Threshold, 100, DefaultThreshold, "percentage points of a core above the baseline")
	pct("cpu_per_request", &r.CPUPerRequest, 1000, DefaultCPUPerRequest, "a difference in % of the other measurements' median")
	pct("noise_floor", &r.NoiseFloor, 100, DefaultNoiseFloor, "the least noise in % of a median")
	if r.Within < 0 || r.Within > 1 || math.IsNaN(r.Within) {
		bad("within = %g: want the least median ratio of two settings as good as each other, 0..1 (0: %g)", r.Within, float64(DefaultWithin))
	}
	if r.Within == 0 {
		r.Within = DefaultWithin
	}
	if r.MaxAttempts < 0 || r.MaxAttempts > MaxMaxAttempts {
		bad("max_attempts = %d: want 1..%d measurements of a repeat (0: %d)", r.MaxAttempts, MaxMaxAttempts, DefaultMaxAttempts)
	}
	if r.MaxAttempts == 0 {
		r.MaxAttempts = DefaultMaxAttempts
	}
	if m := time.Duration(r.MaxExtra); m < 0 || m > time.Hour {
		bad("max_extra = %v: want 0s..1h (0: a quarter of the planned measuring time)", m)
	}
	if v := time.Duration(r.Settle); v < 0 || v > time.Minute {
		bad("settle = %v: want 0s..1m, the longest wait for quiet cores before a re-measure (0: %v)", v, DefaultSettle)
	}
	if r.Settle == 0 {
		r.Settle = cli.Duration(DefaultSettle)
	}
	return errs
}
