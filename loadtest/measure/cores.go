package measure

import (
	"fmt"
	"math"
	"strings"

	"bbslab/loadtest"
)

// The disturbance rule: a measurement is disturbed when other work took the cores beyond
// what the baseline expects, the larger of a fixed level and a share of the free time.
// Steal is judged against the lowest read too, as a burst of steal may cover the whole baseline.

// A Span is one measured span of a set of cores, in % of one core; Steal
// is judged on its own too, as a CPU-bound process hides it.
type Span struct {
	Own, Interference, Capacity float64
	Steal                       float64
	HasSteal                    bool
}

// Free is the cores' time the process left.
func (s Span) Free() float64 { return max(0, s.Capacity-s.Own) }

// minFree is the least free time a span needs to divide by.
const minFree = 20

// Sources of a baseline.
const (
	FromCalibration = "calibration"
	FromSteps       = "steps"
)

// A Baseline is the interference the machine gave to others when taken.
type Baseline struct {
	Source    string `json:"source"`
	Server    *Cores `json:"server,omitempty"`
	Generator *Cores `json:"generator,omitempty"`

	server, generator []Span
}

// Cores is one set of cores' baseline, medians over its spans.
type Cores struct {
	Spans     int      `json:"spans"`
	Level     float64  `json:"level_percent"`
	FreeShare float64  `json:"free_share"`
	Steal     *float64 `json:"steal_percent,omitempty"`
}

// Add adds one span of each set of cores (nil: not read).
func (b *Baseline) Add(server, generator *Span) {
	if server != nil {
		b.server = append(b.server, *server)
	}
	if generator != nil {
		b.generator = append(b.generator, *generator)
	}
	b.Server, b.Generator = figures(b.server), figures(b.generator)
}

func figures(spans []Span) *Cores {
	if len(spans) == 0 {
		return nil
	}
	var levels, shares, steals []float64
	for _, s := range spans {
		levels = append(levels, s.Interference)
		if f := s.Free(); f >= minFree {
			shares = append(shares, min(1, s.Interference/f))
		}
		if s.HasSteal {
			steals = append(steals, s.Steal)
		}
	}
	c := &Cores{Spans: len(spans), Level: loadtest.Median(levels)}
	if len(shares) > 0 {
		c.FreeShare = loadtest.Median(shares)
	}
	if len(steals) > 0 {
		v := loadtest.Median(steals)
		c.Steal = &v
	}
	return c
}

// Expect returns the interference c allows at s; ok false for a nil c.
func (c *Cores) Expect(s Span) (float64, bool) {
	if c == nil {
		return 0, false
	}
	return max(c.Level, c.FreeShare*s.Free()), true
}

// A Judge applies the disturbance rule.
type Judge struct {
	Rules    *Rules
	Baseline *Baseline
	floor    [2]*float64 // server's, generator's
}

// Floor is the lowest steal seen on the server's or the generator's cores.
func (j *Judge) Floor(server bool) (float64, bool) {
	f := j.floor[1]
	if server {
		f = j.floor[0]
	}
	if f == nil {
		return 0, false
	}
	return *f, true
}

// See lowers the steal floors by the spans' steal.
func (j *Judge) See(server, generator *Span) {
	for i, s := range []*Span{server, generator} {
		if s == nil || !s.HasSteal {
			continue
		}
		if f := j.floor[i]; f == nil || s.Steal < *f {
			v := s.Steal
			j.floor[i] = &v
		}
	}
}

// A Verdict is the disturbance rule applied to one measurement.
type Verdict struct {
	Expected, GeneratorExpected           *float64
	StealBaseline, GeneratorStealBaseline *float64
	Why                                   string
}

// Disturbed reports whether the verdict found a disturbance.
func (v Verdict) Disturbed() bool { return v.Why != "" }

// Judge judges a measurement's spans (nil: not read) after seeing them.
func (j *Judge) Judge(server, generator *Span) Verdict {
	j.See(server, generator)
	var v Verdict
	if j.Baseline == nil || j.Rules.Off {
		return v
	}
	th := j.Rules.Threshold
	var why []string
	one := func(s *Span, c *Cores, floor *float64, expected, stealBase **float64, whose string) {
		if s == nil {
			return
		}
		exp, ok := c.Expect(*s)
		if !ok {
			return
		}
		*expected = ptr(round1(exp))
		over := s.Interference - exp
		if over > th {
			why = append(why, fmt.Sprintf("other work took %.1f %% of a core on the %s cores where the baseline expects %.1f", s.Interference, whose, exp))
		}
		level := lower(c.Steal, floor)
		if level == nil || !s.HasSteal {
			return
		}
		*stealBase = ptr(round1(*level))
		if over <= th && s.Steal-*level > th {
			why = append(why, fmt.Sprintf("the hypervisor took %.1f %% of a core from the %s cores (steal) where the machine had %.1f", s.Steal, whose, *level))
		}
	}
	one(server, j.Baseline.Server, j.floor[0], &v.Expected, &v.StealBaseline, "server's")
	one(generator, j.Baseline.Generator, j.floor[1], &v.GeneratorExpected, &v.GeneratorStealBaseline, "generator's")
	if len(why) > 0 {
		v.Why = fmt.Sprintf("disturbed: %s (threshold %g points)", strings.Join(why, "; "), th)
	}
	return v
}

// Busy says how idle cores were busy beyond what b expects, "" when quiet.
func (j *Judge) Busy(b *Baseline, server, generator *Span) string {
	th := j.Rules.Threshold
	var why []string
	one := func(s *Span, c *Cores, floor *float64, whose string) {
		if s == nil {
			return
		}
		if exp, ok := c.Expect(*s); ok && s.Interference-exp > th {
			why = append(why, fmt.Sprintf("others took %.0f %% of a core on the %s cores, %.0f expected", s.Interference, whose, exp))
		} else if l := lower(c.steal(), floor); l != nil && s.HasSteal && s.Steal-*l > th {
			why = append(why, fmt.Sprintf("the hypervisor took %.0f %% of a core from the %s cores, %.0f before", s.Steal, whose, *l))
		}
	}
	var srv, gen *Cores
	if b != nil {
		srv, gen = b.Server, b.Generator
	}
	one(server, srv, j.floor[0], "server's")
	one(generator, gen, j.floor[1], "generator's")
	return strings.Join(why, "; ")
}

func (c *Cores) steal() *float64 {
	if c == nil {
		return nil
	}
	return c.Steal
}

func lower(a, b *float64) *float64 {
	switch {
	case a == nil:
		return b
	case b == nil || *a <= *b:
		return a
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func round1(v float64) float64 { return math.Round(v*10) / 10 }
