package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

// A measured span is disturbed when something other than the run took the
// server's cores (or the generator's) beyond what the machine gave to
// others when the baseline was taken: "disturbed means changed". A steady
// load already there when the calibration measured the board (a CPU-bound
// process on the server's core for the whole run, the hypervisor's usual
// steal) is part of the machine and the claims are decided on it; what
// comes and goes during the run is the disturbance, and the point is
// measured again (remeasure.go).
//
// A steady load takes one of two shapes, and the baseline keeps both: a
// fixed part of the cores' time (steal at a steady rate, a process with a
// pace of its own), and a share of the time the server leaves free (a
// CPU-bound process takes whatever the server does not: 80 % of the core at
// 1 client, 50 % when the server wants all of it). At a span the baseline
// expects the larger of the two, each the median over its spans; the span
// is disturbed when its interference exceeds that by more than the file's
// threshold (disturbanceSpec).

// disturbanceSpec is the file's [disturbance]: when a span is disturbed,
// how often a point is measured again and how much time that may add.
type disturbanceSpec struct {
	// Off reads and records the interference of every span but never
	// judges it: each repeat is measured once and used, disturbed or not
	// (for tests of the runner's own order, and for a machine whose
	// interference readings are known to be wrong).
	Off bool `toml:"off"`
	// Threshold is how far, in percentage points of one core, a span's
	// interference may exceed what the baseline expects before the span
	// is disturbed (default 10).
	Threshold float64 `toml:"threshold"`
	// MaxAttempts bounds the measurements of one repeat of a point: the
	// first and the re-measures while it is disturbed (default 3; 1
	// measures once and leaves a disturbed repeat out).
	MaxAttempts int `toml:"max_attempts"`
	// MaxExtra bounds the measuring time the re-measures and a redone
	// calibration add to the experiment (default: a quarter of the
	// planned steps' time).
	MaxExtra cli.Duration `toml:"max_extra"`
	// CPUPerRequest is how far, in % of the others' median, a repeat's
	// server CPU per request may be from the point's other repeats before
	// it is suspect (the quiet kind: frequency scaling, steal the OS does
	// not report; default 25). It also bounds the drift of the CPU per
	// request at the calibration's point that redoes the calibration.
	CPUPerRequest float64 `toml:"cpu_per_request"`
	// Settle bounds the wait for quiet cores before a disturbed point or
	// probe is measured again (settle.go; default 10s, within max_extra).
	Settle cli.Duration `toml:"settle"`
}

// Disturbance defaults ([disturbance]).
const (
	defaultThreshold     = 10
	defaultMaxAttempts   = 3
	maxMaxAttempts       = 10
	defaultCPUPerRequest = 25
	// minFree is the least free time (percentage points of a core) a span
	// needs to say what share of it others took: a saturated server
	// leaves too little to divide by.
	minFree = 20
)

// checkDisturbance validates [disturbance] and fills in its defaults.
func (e *Experiment) checkDisturbance() []error {
	d := &e.Disturbance
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if d.Threshold < 0 || d.Threshold > 100 || math.IsNaN(d.Threshold) {
		bad("disturbance.threshold = %g: want percentage points of a core above the baseline, 0..100 (0: %d)", d.Threshold, defaultThreshold)
	}
	if d.Threshold == 0 {
		d.Threshold = defaultThreshold
	}
	if d.MaxAttempts < 0 || d.MaxAttempts > maxMaxAttempts {
		bad("disturbance.max_attempts = %d: want 1..%d measurements of a repeat (0: %d)", d.MaxAttempts, maxMaxAttempts, defaultMaxAttempts)
	}
	if d.MaxAttempts == 0 {
		d.MaxAttempts = defaultMaxAttempts
	}
	if m := time.Duration(d.MaxExtra); m < 0 || m > time.Hour {
		bad("disturbance.max_extra = %v: want 0s..1h (0: a quarter of the planned steps' time)", m)
	}
	if d.CPUPerRequest < 0 || d.CPUPerRequest > 1000 || math.IsNaN(d.CPUPerRequest) {
		bad("disturbance.cpu_per_request = %g: want a difference in %% of the other repeats' median, 0..1000 (0: %d)", d.CPUPerRequest, defaultCPUPerRequest)
	}
	if d.CPUPerRequest == 0 {
		d.CPUPerRequest = defaultCPUPerRequest
	}
	if v := time.Duration(d.Settle); v < 0 || v > time.Minute {
		bad("disturbance.settle = %v: want 0s..1m, the longest wait for quiet cores before a re-measure (0: %v)", v, defaultSettle)
	}
	if d.Settle == 0 {
		d.Settle = cli.Duration(defaultSettle)
	}
	return errs
}

// maxExtra is the file's budget of extra measuring time, or its default:
// a quarter of the planned steps' time.
func (e *Experiment) maxExtra() time.Duration {
	if m := time.Duration(e.Disturbance.MaxExtra); m > 0 {
		return m
	}
	n := len(e.Runs) * len(e.Load.Clients) * max(e.Load.Repeats, 1)
	return time.Duration(n) * e.stepLength() / 4
}

// stepLength is one measurement's planned length, warm-up included: the
// longest of the runs' (a run may set its own warm-up and duration).
func (e *Experiment) stepLength() time.Duration {
	d := e.Load.Warmup + e.Load.Duration
	for _, r := range e.Runs {
		s := e.runSettings(r)
		d = max(d, s.Warmup+s.Duration)
	}
	return d
}

// Disturbance is what the experiment did about a machine busy with other
// work, as written to experiment.json: the settings it judged by, the
// readings it read, the time its re-measures added and the baseline.
type Disturbance struct {
	// Off: the spans were read but not judged ([disturbance] off).
	Off             bool    `json:"off,omitempty"`
	Threshold       float64 `json:"threshold"`
	MaxAttempts     int     `json:"max_attempts"`
	MaxExtraSeconds float64 `json:"max_extra_seconds"`
	CPUPerRequest   float64 `json:"cpu_per_request"`
	SettleSeconds   float64 `json:"settle_seconds,omitempty"`
	// Interference, Steal and CPU name the readings (Result.Stats) of the
	// server's cores' interference, its steal and the server's own CPU;
	// empty where the target gives none.
	Interference string `json:"interference,omitempty"`
	Steal        string `json:"steal,omitempty"`
	CPU          string `json:"cpu,omitempty"`
	// ExtraSeconds is the measuring time the re-measures and a redone
	// calibration took; Remeasured counts the re-measures.
	ExtraSeconds float64 `json:"extra_seconds"`
	Remeasured   int     `json:"remeasured"`
	// Baseline is what the spans were judged against at the end.
	Baseline *Baseline `json:"baseline,omitempty"`
}

// Baseline is the interference the machine gave to others when the
// baseline was taken: Source says when ("calibration": its probes;
// "steps": the undisturbed steps so far, there being no calibration).
type Baseline struct {
	Source    string         `json:"source"`
	Server    *BaselineCores `json:"server,omitempty"`
	Generator *BaselineCores `json:"generator,omitempty"`
	// The spans, kept while the experiment runs.
	server, generator coresBaseline
}

// Sources of a baseline.
const (
	baselineCalibration = "calibration"
	baselineSteps       = "steps"
)

// add adds one span of the server's cores and one of the generator's
// (either nil when not read).
func (b *Baseline) add(server, generator *span) {
	if server != nil {
		b.server.spans = append(b.server.spans, *server)
	}
	if generator != nil {
		b.generator.spans = append(b.generator.spans, *generator)
	}
	b.Server, b.Generator = nil, nil
	if f, ok := b.server.figures(); ok {
		b.Server = &f
	}
	if f, ok := b.generator.figures(); ok {
		b.Generator = &f
	}
}

// BaselineCores is one set of cores' baseline: over Spans spans, Level
// (the median interference, % of one core) and FreeShare (the median
// share, 0..1, of the time the process left free that others took).
type BaselineCores struct {
	Spans     int     `json:"spans"`
	Level     float64 `json:"level_percent"`
	FreeShare float64 `json:"free_share"`
	// Steal is the median steal (% of one core) over the spans that read
	// it; nil where none did.
	Steal *float64 `json:"steal_percent,omitempty"`
}

// span is one measured span of a set of cores, in % of one core: what the
// run's process on them used (own), what others took (interference) and
// the cores' capacity (100 a core).
type span struct {
	own, interference, capacity float64
	// steal is the hypervisor's part of interference, where read
	// (hasSteal): judged on its own too, for a CPU-bound process that
	// takes the cores' free time hides it in interference (the process
	// gets less, the total stays: docs/measurements.md, the steady hog).
	steal    float64
	hasSteal bool
}

// free is the cores' time the process left.
func (s span) free() float64 { return max(0, s.capacity-s.own) }

// coresBaseline holds the spans a baseline is made of.
type coresBaseline struct{ spans []span }

// figures returns the baseline's level and free share, ok false when it
// has no span.
func (b coresBaseline) figures() (BaselineCores, bool) {
	if len(b.spans) == 0 {
		return BaselineCores{}, false
	}
	var levels, shares []float64
	for _, s := range b.spans {
		levels = append(levels, s.interference)
		if f := s.free(); f >= minFree {
			shares = append(shares, min(1, s.interference/f))
		}
	}
	f := BaselineCores{Spans: len(b.spans), Level: loadtest.Median(levels)}
	if len(shares) > 0 {
		f.FreeShare = loadtest.Median(shares)
	}
	var steals []float64
	for _, s := range b.spans {
		if s.hasSteal {
			steals = append(steals, s.steal)
		}
	}
	if len(steals) > 0 {
		f.Steal = ptrTo(loadtest.Median(steals))
	}
	return f, true
}

// The hypervisor's steal comes and goes on its own (on 2026-12-03 in
// bursts of 30-60 s at 10-47 % every few minutes), and a burst may cover
// the whole calibration: the steal its probes read is then no level of the
// machine's. So steal is judged against the lower of the baseline's and
// the lowest the run has read on those cores (seeSteal): once the run saw
// the cores with less, more is a disturbance, and a calibration that ran
// with more is redone (recalibrationReason). A steal that never eases
// stays the machine's.

// seeSteal lowers the run's steal floor by a measured span's steal, on the
// server's cores and the generator's (nil spans, or spans without steal,
// leave it).
func (x *experimentRunner) seeSteal(srv, gen *span) {
	for i, s := range []*span{srv, gen} {
		if s == nil || !s.hasSteal {
			continue
		}
		if f := x.stealFloor[i]; f == nil || s.steal < *f {
			x.stealFloor[i] = ptrTo(s.steal)
		}
	}
}

// stealLevel is the steal a span is judged against: the lower of the
// baseline's level and the run's floor, nil when neither is known.
func stealLevel(level, floor *float64) *float64 {
	switch {
	case level == nil:
		return floor
	case floor == nil || *level <= *floor:
		return level
	}
	return floor
}

// stealBeyond says how far s's steal is beyond the steal level, in points,
// when both are known (ok false otherwise).
func stealBeyond(s span, level *float64) (float64, bool) {
	if !s.hasSteal || level == nil {
		return 0, false
	}
	return s.steal - *level, true
}

// expect returns the interference the baseline allows at s: the larger of
// its level and its free share of s's free time; ok false without spans.
func (b coresBaseline) expect(s span) (float64, bool) {
	f, ok := b.figures()
	if !ok {
		return 0, false
	}
	return max(f.Level, f.FreeShare*s.free()), true
}

// interference is what others took of the cores over one measured span,
// in % of one core, absent where it was not read: Server of the server's
// cores (less the generator's CPU where the two share cores), Steal the
// hypervisor's part, Generator of the generator's cores (less the
// server's CPU where they share). Expected and GeneratorExpected are what
// the baseline allowed there.
type interference struct {
	Server            *float64 `json:"server_percent,omitempty"`
	Steal             *float64 `json:"steal_percent,omitempty"`
	Generator         *float64 `json:"generator_percent,omitempty"`
	Expected          *float64 `json:"expected_percent,omitempty"`
	GeneratorExpected *float64 `json:"generator_expected_percent,omitempty"`
	// GeneratorSteal is the hypervisor's part of Generator; StealBaseline
	// and GeneratorStealBaseline the baseline's steal the steal was
	// judged against (absent where not read).
	GeneratorSteal         *float64 `json:"generator_steal_percent,omitempty"`
	StealBaseline          *float64 `json:"steal_baseline_percent,omitempty"`
	GeneratorStealBaseline *float64 `json:"generator_steal_baseline_percent,omitempty"`
}

// worst is the larger of the server's and the generator's interference.
func (i *interference) worst() (float64, bool) {
	if i == nil {
		return 0, false
	}
	var vs []float64
	for _, v := range []*float64{i.Server, i.Generator} {
		if v != nil {
			vs = append(vs, *v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	return slices.Max(vs), true
}

// text prints the interference, e.g. "server's cores 46.8 % of a core
// (steal 20.1, 3.1 expected), generator's 1.2 %".
func (i *interference) text() string {
	if i == nil || i.Server == nil && i.Generator == nil {
		return "not read"
	}
	s := ""
	if i.Server != nil {
		s = fmt.Sprintf("server's cores %.1f %%", *i.Server)
		var in []string
		if i.Steal != nil {
			in = append(in, fmt.Sprintf("steal %.1f", *i.Steal))
		}
		if i.Expected != nil {
			in = append(in, fmt.Sprintf("%.1f expected", *i.Expected))
		}
		if len(in) > 0 {
			s += " (" + strings.Join(in, ", ") + ")"
		}
	}
	if i.Generator != nil {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("generator's %.1f %%", *i.Generator)
		var in []string
		if i.GeneratorSteal != nil {
			in = append(in, fmt.Sprintf("steal %.1f", *i.GeneratorSteal))
		}
		if i.GeneratorExpected != nil {
			in = append(in, fmt.Sprintf("%.1f expected", *i.GeneratorExpected))
		}
		if len(in) > 0 {
			s += " (" + strings.Join(in, ", ") + ")"
		}
	}
	return s
}

// coreOverlap is the share of a's cores that are also b's (0..1).
func coreOverlap(a, b []int) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for _, c := range a {
		if slices.Contains(b, c) {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
