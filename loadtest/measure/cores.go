package measure

import (
	"fmt"
	"math"
	"strings"

	"bbslab/loadtest"
)

// A measurement is disturbed when something other than the run took the
// server's cores (or the generator's) beyond what the machine gave to
// others when the baseline was taken: "disturbed means changed". A steady
// load already there when the baseline was taken (a CPU-bound process on
// the server's core for the whole run, the hypervisor's usual steal) is
// part of the machine and the planners decide on it; what comes and goes
// is the disturbance, and the measurement is taken again.
//
// A steady load takes one of two shapes, and the baseline keeps both: a
// fixed part of the cores' time (steal at a steady rate, a process with a
// pace of its own), and a share of the time the run leaves free (a
// CPU-bound process takes whatever the server does not). At a span the
// baseline expects the larger of the two, each the median over its
// spans; the span is disturbed when its interference exceeds that by more
// than Rules.Threshold.
//
// The hypervisor's steal comes and goes on its own, and a burst may cover
// the whole baseline: so steal is judged against the lower of the
// baseline's and the lowest the run has read on those cores. Once the run
// saw the cores with less, more is a disturbance; a steal that never eases
// stays the machine's.

// A Span is one measured span of a set of cores, in % of one core: what
// the run's process on them used (Own), what others took (Interference)
// and the cores' capacity (100 a core). Steal is the hypervisor's part of
// Interference, where read (HasSteal): judged on its own too, for a
// CPU-bound process that takes the cores' free time hides it in
// interference (the process gets less, the total stays).
type Span struct {
	Own, Interference, Capacity float64
	Steal                       float64
	HasSteal                    bool
}

// Free is the cores' time the process left.
func (s Span) Free() float64 { return max(0, s.Capacity-s.Own) }

// minFree is the least free time (percentage points of a core) a span
// needs to say what share of it others took: a saturated process leaves
// too little to divide by.
const minFree = 20

// Sources of a baseline: a calibration's probes, or the undisturbed
// measurements so far.
const (
	FromCalibration = "calibration"
	FromSteps       = "steps"
)

// A Baseline is the interference the machine gave to others when it was
// taken, on the server's cores and the generator's: Source says when.
type Baseline struct {
	Source    string `json:"source"`
	Server    *Cores `json:"server,omitempty"`
	Generator *Cores `json:"generator,omitempty"`
	// The spans, kept while the planner runs.
	server, generator []Span
}

// Cores is one set of cores' baseline: over Spans spans, Level (the
// median interference, % of one core) and FreeShare (the median share,
// 0..1, of the time the process left free that others took); Steal the
// median steal over the spans that read it (nil where none did).
type Cores struct {
	Spans     int      `json:"spans"`
	Level     float64  `json:"level_percent"`
	FreeShare float64  `json:"free_share"`
	Steal     *float64 `json:"steal_percent,omitempty"`
}

// Add adds one span of the server's cores and one of the generator's
// (either nil when not read).
func (b *Baseline) Add(server, generator *Span) {
	if server != nil {
		b.server = append(b.server, *server)
	}
	if generator != nil {
		b.generator = append(b.generator, *generator)
	}
	b.Server, b.Generator = figures(b.server), figures(b.generator)
}

// figures summarises spans, nil without any.
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

// Expect returns the interference c allows at s: the larger of its level
// and its free share of s's free time; ok false for a nil c.
func (c *Cores) Expect(s Span) (float64, bool) {
	if c == nil {
		return 0, false
	}
	return max(c.Level, c.FreeShare*s.Free()), true
}

// A Judge applies the disturbance rule: it holds the rules, the baseline
// and the lowest steal the run has read on each set of cores.
type Judge struct {
	Rules    *Rules
	Baseline *Baseline
	floor    [2]*float64 // server's, generator's
}

// Floor is the lowest steal the judge has seen on the server's cores
// (server) or the generator's, ok false before any.
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

// See lowers the steal floors by a span's steal (nil spans, or spans
// without steal, leave them).
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

// A Verdict is the disturbance rule applied to one measurement: what the
// baseline expected on each set of cores and the steal it judged against
// (nil where not judged), and why it is disturbed ("" when it is not).
type Verdict struct {
	Expected, GeneratorExpected           *float64
	StealBaseline, GeneratorStealBaseline *float64
	Why                                   string
}

// Disturbed reports whether the verdict found a disturbance.
func (v Verdict) Disturbed() bool { return v.Why != "" }

// Judge judges a measurement's spans of the server's and the generator's
// cores (either nil when not read) against the baseline and the steal
// floors, after seeing their steal; with no baseline yet nothing is
// judged. Under Rules.Off nothing is disturbed.
func (j *Judge) Judge(server, generator *Span) Verdict {
	j.See(server, generator)
	var v Verdict
	if j.Baseline == nil || j.Rules.Off {
		return v
	}
	th := j.Rules.Threshold
	var why []string
	one := func(s *Span, c *Cores, floor *float64, expected, stealBase **float64, whose string) {
		exp, ok := c.Expect(deref(s))
		if s == nil || !ok {
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

// Busy says how a span of idle cores (the planner waiting before a
// re-measure) was busy beyond what the baseline b expects (the judge's
// own, or another the planner holds the cores to), "" when it was quiet
// or nothing could be judged.
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

// steal is c's steal level, nil for a nil c.
func (c *Cores) steal() *float64 {
	if c == nil {
		return nil
	}
	return c.Steal
}

// lower is the lower of two levels, either possibly unknown (nil).
func lower(a, b *float64) *float64 {
	switch {
	case a == nil:
		return b
	case b == nil || *a <= *b:
		return a
	}
	return b
}

func deref(s *Span) Span {
	if s == nil {
		return Span{}
	}
	return *s
}

func ptr[T any](v T) *T { return &v }

func round1(v float64) float64 { return math.Round(v*10) / 10 }
