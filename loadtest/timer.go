package loadtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// A TimerKind selects how think times are drawn, after JMeter's timers.
type TimerKind string

// The timers, as JMeter's.
const (
	TimerConstant TimerKind = "constant" // Think
	TimerUniform  TimerKind = "uniform"  // Think + uniform[0, ThinkDev)
	TimerGaussian TimerKind = "gaussian" // |N(0,1) × ThinkDev + Think|
	TimerPoisson  TimerKind = "poisson"  // Poisson milliseconds with mean Think
)

// ParseTimer returns the TimerKind named s.
func ParseTimer(s string) (TimerKind, error) {
	switch k := TimerKind(s); k {
	case TimerConstant, TimerUniform, TimerGaussian, TimerPoisson:
		return k, nil
	case "":
		return TimerConstant, nil
	}
	return "", fmt.Errorf("unknown timer %q (want constant, uniform, gaussian or poisson)", s)
}

// A Timer draws think times. It is not safe for concurrent use.
type Timer struct {
	Kind  TimerKind
	Think time.Duration
	Dev   time.Duration
	rng   *rand.Rand
}

// NewTimer returns a Timer drawing from its own generator seeded with seed.
func NewTimer(kind TimerKind, think, dev time.Duration, seed uint64) *Timer {
	return &Timer{Kind: kind, Think: think, Dev: dev, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Next returns the next think time.
func (t *Timer) Next() time.Duration {
	switch t.Kind {
	case TimerUniform:
		if t.Dev <= 0 {
			return t.Think
		}
		return t.Think + time.Duration(t.rng.Int64N(int64(t.Dev)))
	case TimerGaussian:
		v := t.rng.NormFloat64()*float64(t.Dev) + float64(t.Think)
		return time.Duration(math.Abs(v))
	case TimerPoisson:
		return time.Duration(poisson(t.rng, float64(t.Think)/float64(time.Millisecond))) * time.Millisecond
	default:
		return t.Think
	}
}

// poisson draws a Poisson variate with mean lambda: Knuth's method, normal above 500.
func poisson(r *rand.Rand, lambda float64) int64 {
	if lambda <= 0 {
		return 0
	}
	if lambda > 500 {
		v := math.Round(r.NormFloat64()*math.Sqrt(lambda) + lambda)
		if v < 0 {
			return 0
		}
		return int64(v)
	}
	limit := math.Exp(-lambda)
	var k int64
	for p := r.Float64(); p > limit; p *= r.Float64() {
		k++
	}
	return k
}
