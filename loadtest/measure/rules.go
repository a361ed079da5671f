package measure

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"bbslab/internal/cli"
)

// Rules are the thresholds of the disturbance, slow and noise rules and
// the re-measuring limits; zero fields take the defaults (Check).
type Rules struct {
	// Off records every measurement's interference but never judges it.
	Off bool `toml:"off" json:"off,omitempty"`
	// Threshold is how far, in points of a core, interference may exceed the baseline.
	Threshold float64 `toml:"threshold" json:"threshold"`
	// MaxAttempts bounds the measurements of one repeat, and an undecided step or claim: rounds (repeats) up to this many times the planned.
	MaxAttempts int `toml:"max_attempts" json:"max_attempts"`
	// MaxExtra bounds the measuring time re-measures may add.
	MaxExtra cli.Duration `toml:"max_extra" json:"-"`
	// CPUPerRequest is the slow rule's tolerance, in %.
	CPUPerRequest float64 `toml:"cpu_per_request" json:"cpu_per_request"`
	// Settle bounds the wait for quiet cores before a re-measure.
	Settle cli.Duration `toml:"settle" json:"-"`
	// NoiseFloor is the least noise, in % of a median, a comparison allows.
	NoiseFloor float64 `toml:"noise_floor" json:"noise_floor_percent,omitempty"`
	// Within is the least median round ratio of two equal settings.
	Within float64 `toml:"within" json:"within,omitempty"`
	// Confidence is the level of a median's interval (Interval): a
	// decision the interval does not settle is measured again.
	Confidence float64 `toml:"confidence" json:"confidence,omitempty"`
}

// The defaults of Rules.
const (
	DefaultThreshold     = 10
	DefaultMaxAttempts   = 3
	MaxMaxAttempts       = 10
	DefaultCPUPerRequest = 25
	DefaultSettle        = 10 * time.Second
	DefaultNoiseFloor    = 2
	DefaultWithin        = 0.95
	DefaultConfidence    = 0.75
)

// Check validates r under section and fills in the defaults.
func (r *Rules) Check(section string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(section+"."+format, a...)) }
	pct := func(name string, v *float64, hi, def float64, want string) {
		if *v < 0 || *v > hi || math.IsNaN(*v) {
			bad("%s = %g: want %s, 0..%g (0: %g)", name, *v, want, hi, def)
		}
		*v = cmp.Or(*v, def)
	}
	pct("threshold", &r.Threshold, 100, DefaultThreshold, "percentage points of a core above the baseline")
	pct("cpu_per_request", &r.CPUPerRequest, 1000, DefaultCPUPerRequest, "a difference in % of the other measurements' median")
	pct("noise_floor", &r.NoiseFloor, 100, DefaultNoiseFloor, "the least noise in % of a median")
	pct("within", &r.Within, 1, DefaultWithin, "the least median ratio of two settings as good as each other")
	pct("confidence", &r.Confidence, 0.99, DefaultConfidence, "the level of a median's interval")
	if r.MaxAttempts < 0 || r.MaxAttempts > MaxMaxAttempts {
		bad("max_attempts = %d: want 1..%d measurements of a repeat (0: %d)", r.MaxAttempts, MaxMaxAttempts, DefaultMaxAttempts)
	}
	r.MaxAttempts = cmp.Or(r.MaxAttempts, DefaultMaxAttempts)
	if m := time.Duration(r.MaxExtra); m < 0 || m > time.Hour {
		bad("max_extra = %v: want 0s..1h (0: a quarter of the planned measuring time)", m)
	}
	if v := time.Duration(r.Settle); v < 0 || v > time.Minute {
		bad("settle = %v: want 0s..1m, the longest wait for quiet cores before a re-measure (0: %v)", v, DefaultSettle)
	}
	r.Settle = cmp.Or(r.Settle, cli.Duration(DefaultSettle))
	return errs
}
