package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// Spec sets a server's wait per unit of work to land on an operating point on this machine.
type Spec struct {
	// Var is the placeholder the chosen wait fills, e.g. "db_latency".
	Var string `toml:"var"`
	// Set is POSTed to the server to set the wait, {{Var}} holding it.
	Set     string `toml:"set"`
	Run     string `toml:"run"`
	Clients int    `toml:"clients"`
	// Reading names the readings of the operating point, the first given taken.
	Reading   []string `toml:"reading"`
	Target    float64  `toml:"target"`
	Tolerance float64  `toml:"tolerance"`
	// Relative makes Target a percentage of the reading with no wait.
	Relative bool `toml:"relative"`
	// Share names a reading added to every step, relative as Relative.
	Share string `toml:"share"`
	// CPU names the reading of the server's CPU in percent of one core.
	CPU string `toml:"cpu"`
	// Ratio is the off-CPU over the on-CPU time per request: the first guess.
	Ratio float64 `toml:"ratio"`
	// Units names a per-request reading of the units a request waits for.
	Units    string       `toml:"units"`
	Probes   int          `toml:"probes"`
	Warmup   cli.Duration `toml:"warmup"`
	Duration cli.Duration `toml:"duration"`
}

// Calibration is what a calibration measured and chose.
type Calibration struct {
	Var     string  `json:"var"`
	Run     string  `json:"run"`
	Clients int     `json:"clients"`
	Reading string  `json:"reading"` // the reading of the operating point that was read
	Target  float64 `json:"target"`
	// Relative says Target and Tolerance are percentages of Capacity.
	Tolerance float64 `json:"tolerance"`
	Relative  bool    `json:"relative,omitempty"`
	Capacity  float64 `json:"capacity,omitempty"`
	Share     string  `json:"share,omitempty"`
	// CPUPerRequestMs is the server's CPU per request with no wait.
	CPUPerRequestMs float64 `json:"cpu_per_request_ms"`
	// CapacityNote says when the probes with no wait did not agree.
	CapacityNote string `json:"capacity_note,omitempty"`
	// CPUNoise is how far apart the agreeing probes were, in % of their mean.
	CPUNoise float64 `json:"cpu_noise_percent"`
	Units    float64 `json:"units"`
	Ratio    float64 `json:"ratio"`
	Probes   []Probe `json:"probes"`
	// Disturbed are the probes measured again because they were disturbed.
	Disturbed []Probe `json:"disturbed,omitempty"`
	// Steal is the median steal on the server's cores over the probes used.
	Steal *float64 `json:"steal_percent,omitempty"`
	// Value is the chosen wait.
	Value   string  `json:"value"`
	Reached bool    `json:"reached"`
	Seconds float64 `json:"seconds"`
	// Sweep and Reason say when and why a calibration was redone.
	Sweep  int    `json:"sweep,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// A Probe is one calibration measurement.
type Probe struct {
	WaitMs          float64 `json:"wait_ms"`
	Throughput      float64 `json:"throughput"`
	Reading         float64 `json:"reading"`
	CPUPerRequestMs float64 `json:"cpu_per_request_ms"`
	// Dropped says why a probe was not used, Note why it was taken again.
	Dropped string    `json:"dropped,omitempty"`
	Note    string    `json:"note,omitempty"`
	At      time.Time `json:"at"`
}

// AddShare adds the share reading to a step's server readings.
func (c *Calibration) AddShare(server map[string]float64) {
	if c == nil || c.Share == "" || c.Capacity <= 0 || server == nil {
		return
	}
	if v, ok := server[c.Reading]; ok {
		server[c.Share] = v / c.Capacity * 100
	}
}

const (
	defaultProbes      = 6
	maxProbes          = 10
	defaultProbeWarmup = time.Second
	defaultProbeLength = 3 * time.Second
)

// Check checks the spec and fills in its defaults; name names a key.
func (c *Spec) Check(name func(key string) string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Clients < 1 || c.Clients > 100_000 {
		bad("%s = %d: want 1..100000", name("clients"), c.Clients)
	}
	if c.Target <= 0 || c.Tolerance <= 0 || c.Tolerance >= c.Target {
		bad("%s = %g, %s = %g: want a positive target and a tolerance above 0 and below it", name("target"), c.Target, name("tolerance"), c.Tolerance)
	}
	if c.Ratio <= 0 || c.Ratio > 1000 {
		bad("%s = %g: want the off-CPU time over the CPU time per request, above 0 and at most 1000", name("ratio"), c.Ratio)
	}
	if c.Probes < 0 || c.Probes > maxProbes {
		bad("%s = %d: want 1..%d (0: %d)", name("probes"), c.Probes, maxProbes, defaultProbes)
	}
	c.Probes = cmp.Or(c.Probes, defaultProbes)
	if c.Warmup < 0 || time.Duration(c.Warmup) > time.Minute {
		bad("%s = %v: want 0s..1m", name("warmup"), time.Duration(c.Warmup))
	}
	c.Duration = cmp.Or(c.Duration, cli.Duration(defaultProbeLength))
	c.Warmup = cmp.Or(c.Warmup, cli.Duration(defaultProbeWarmup))
	if d := time.Duration(c.Duration); d < 2*time.Second || d > time.Minute {
		// A counter's rate needs two of the once-a-second reads.
		bad("%s = %v: want 2s..1m", name("duration"), d)
	}
	return errs
}

// nextWait returns the wait per unit that moves reading u, measured with wait w per
// unit, c seconds of CPU and q units per request, to target t: with a fixed number of
// workers kept busy the reading is k·c/(c + q·w), so w' = (u·(c + q·w)/t − c)/q, at least 0.
func nextWait(w, c, q, u, t float64) float64 {
	if q <= 0 {
		q = 1
	}
	return max(0, (u*(c+q*w)/t-c)/q)
}

// New returns the calibration c describes, before any probe.
func New(c Spec) *Calibration {
	return &Calibration{Var: c.Var, Run: c.Run, Clients: c.Clients, Target: c.Target, Tolerance: c.Tolerance, Ratio: c.Ratio,
		Relative: c.Relative, Share: c.Share}
}

// A Measure sets the server's wait per unit to wait and loads it.
type Measure func(ctx context.Context, wait time.Duration) (*loadtest.Result, error)

// Run runs the probes c describes with measure: with no wait until two agree, then
// with a wait corrected by each probe until the reading is within Tolerance of Target
// or Probes run out. On an error the Calibration holds the probes taken so far.
func Run(ctx context.Context, c Spec, measure Measure, logf func(string, ...any)) (*Calibration, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	start := time.Now()
	cal := New(c)
	if c.CPU == "" || len(c.Reading) == 0 {
		return cal, errors.New("calibrate: no CPU reading or no reading of the operating point to probe")
	}
	logf("calibrate: %s at %d clients to %s = %g ± %g", c.Run, c.Clients, strings.Join(c.Reading, " (or "+")"), c.Target, c.Tolerance)

	probe := func(wait time.Duration) (Probe, map[string]float64, error) {
		r, err := measure(ctx, wait)
		if err != nil {
			return Probe{}, nil, err
		}
		if r.Interrupted {
			return Probe{}, nil, context.Canceled
		}
		seen, err := watch.Of(r)
		if err != nil {
			return Probe{}, nil, err
		}
		m := seen.Server.Map()
		p := Probe{WaitMs: wait.Seconds() * 1000, Throughput: r.Total.Throughput, At: r.Start}
		cpu, ok := m[c.CPU]
		switch {
		case r.Total.Throughput <= 0:
			return p, m, fmt.Errorf("calibrate: no throughput at %d clients (%d errors): the CPU per request cannot be measured", c.Clients, r.Total.Errors)
		case !ok:
			why := "its stats were not read"
			if st := seen.Server; st != nil {
				why = fmt.Sprintf("%d stats reads, %d failed %s", st.Reads, st.Failed, st.LastError)
			}
			return p, m, fmt.Errorf("calibrate: the server gave no %q reading (%s): the CPU per request cannot be measured", c.CPU, strings.TrimSpace(why))
		}
		p.CPUPerRequestMs = cpu / 100 / r.Total.Throughput * 1000
		for _, name := range c.Reading {
			if v, ok := m[name]; ok && (cal.Reading == "" || cal.Reading == name) {
				p.Reading, cal.Reading = v, name
				break
			}
		}
		if cal.Reading == "" {
			return p, m, fmt.Errorf("calibrate: the server gave none of the readings %q", c.Reading)
		}
		if c.Relative && cal.Capacity > 0 {
			p.Reading = p.Reading / cal.Capacity * 100
		}
		cal.Probes = append(cal.Probes, p)
		logf("calibrate: %s = %s: %.1f/s, %s %.1f%s, CPU per request %.3f ms", c.Var, FormatWait(wait), p.Throughput, cal.Reading, p.Reading, cal.of(), p.CPUPerRequestMs)
		return p, m, nil
	}

	m0, err := cal.capacityProbes(c, probe, logf)
	if err != nil {
		return cal, err
	}
	cal.Units = 1
	if q := m0[c.Units]; c.Units != "" && q > 0 {
		cal.Units = q
	}
	cpu := cal.CPUPerRequestMs / 1000
	wait := c.Ratio * cpu / cal.Units
	for i := 0; i < c.Probes; i++ {
		d := time.Duration(wait * float64(time.Second)).Round(time.Microsecond)
		p, _, err := probe(d)
		if err != nil {
			return cal, err
		}
		cal.Value = FormatWait(d)
		if math.Abs(p.Reading-c.Target) <= c.Tolerance {
			cal.Reached = true
			break
		}
		wait = secantWait(waitProbes(cal.Probes), c.Target)
		if wait < 0 {
			wait = nextWait(d.Seconds(), p.CPUPerRequestMs/1000, cal.Units, p.Reading, c.Target)
		}
	}
	cal.Seconds = time.Since(start).Seconds()
	return cal, nil
}

const maxCapacityProbes = 4

// capacityProbes takes probes with no wait until two agree (one alone may have run while other
// work took the core), sets the CPU per request and the capacity from them and returns the first's readings.
func (cal *Calibration) capacityProbes(c Spec, probe func(time.Duration) (Probe, map[string]float64, error), logf func(string, ...any)) (map[string]float64, error) {
	var maps []map[string]float64
	i, j, off := 0, 0, math.Inf(1)
	for n := 1; n <= maxCapacityProbes; n++ {
		_, m, err := probe(0)
		if err != nil {
			return nil, err
		}
		maps = append(maps, m)
		if n < 2 {
			continue
		}
		if i, j, off = cal.closestPair(c); off <= 1 {
			break
		}
		if n < maxCapacityProbes {
			logf("calibrate: the probes with no wait do not agree yet (closest two %.0f %% apart, %.0f %% allowed): probing again", off*c.agreement()*100, c.agreement()*100)
		}
	}
	a, b := cal.Probes[i], cal.Probes[j]
	if off > 1 {
		cal.CapacityNote = fmt.Sprintf("the %d probes with no wait did not agree within %.0f %%: the closest two (%.0f %% apart) were taken", len(cal.Probes), c.agreement()*100, off*c.agreement()*100)
		logf("calibrate: %s", cal.CapacityNote)
	}
	cal.CPUPerRequestMs = (a.CPUPerRequestMs + b.CPUPerRequestMs) / 2
	if cal.CPUPerRequestMs > 0 {
		cal.CPUNoise = math.Round(1000*math.Abs(a.CPUPerRequestMs-b.CPUPerRequestMs)/cal.CPUPerRequestMs) / 10
	}
	if c.Relative {
		cal.Capacity = (a.Reading + b.Reading) / 2
		if cal.Capacity <= 0 {
			return nil, fmt.Errorf("calibrate: %s read %g with no wait: nothing to take a share of", cal.Reading, cal.Capacity)
		}
	}
	for k := range cal.Probes {
		p := &cal.Probes[k]
		if k != i && k != j {
			p.Dropped = fmt.Sprintf("did not agree with the two probes with no wait that did (%s %.1f and %.1f)", cal.Reading, a.Reading, b.Reading)
		}
		if c.Relative {
			p.Reading = p.Reading / cal.Capacity * 100
		}
	}
	return maps[i], nil
}

// agreement is how far apart, as a share, two agreeing probes may be.
func (c Spec) agreement() float64 { return 2 * c.Tolerance / c.Target }

// closestPair returns the two closest probes and their distance in c.agreement()s (at most 1 agrees).
func (cal *Calibration) closestPair(c Spec) (int, int, float64) {
	value := func(p Probe) float64 {
		if c.Relative {
			return p.Reading
		}
		return p.CPUPerRequestMs
	}
	bi, bj, best := 0, 0, math.Inf(1)
	for i := range cal.Probes {
		for j := i + 1; j < len(cal.Probes); j++ {
			x, y := value(cal.Probes[i]), value(cal.Probes[j])
			if x+y <= 0 {
				continue
			}
			if off := math.Abs(x-y) / ((x + y) / 2) / c.agreement(); off < best {
				bi, bj, best = i, j, off
			}
		}
	}
	return bi, bj, best
}

func waitProbes(ps []Probe) []Probe {
	var out []Probe
	for _, p := range ps {
		if p.WaitMs > 0 {
			out = append(out, p)
		}
	}
	return out
}

// secantWait returns the next wait per unit, in seconds, from the line 1/reading makes in
// the wait through the last two probes with a wait, or -1 when there are not two or it does not fall.
func secantWait(probes []Probe, target float64) float64 {
	n := len(probes)
	if n < 2 {
		return -1
	}
	p1, p2 := probes[n-2], probes[n-1]
	w1, w2 := p1.WaitMs/1000, p2.WaitMs/1000
	if w1 == w2 || p1.Reading <= 0 || p2.Reading <= 0 {
		return -1
	}
	b := (1/p2.Reading - 1/p1.Reading) / (w2 - w1)
	if b <= 0 || math.IsInf(b, 0) || math.IsNaN(b) {
		return -1
	}
	a := 1/p2.Reading - b*w2
	w := (1/target - a) / b
	if w <= 0 {
		return min(w1, w2) / 2
	}
	return min(w, 4*max(w1, w2))
}

// Table returns the probes, used and disturbed, in the order they ran.
func (c *Calibration) Table() []Probe {
	out := slices.Concat(c.Probes, c.Disturbed)
	slices.SortStableFunc(out, func(a, b Probe) int { return a.At.Compare(b.At) })
	return out
}

// Used says whether the report's probe was used, and why not.
func (p Probe) Used() string {
	switch {
	case p.Note != "":
		return "no: disturbed (" + p.Note + "), taken again"
	case p.Dropped != "":
		return "no: " + p.Dropped
	}
	return "yes"
}

func (c *Calibration) of() string {
	if !c.Relative || c.Capacity == 0 {
		return ""
	}
	return fmt.Sprintf(" %% of its %.1f with no wait", c.Capacity)
}

// Summary says in one line what the calibration measured and chose.
func (c *Calibration) Summary() string {
	if len(c.Probes) == 0 {
		return fmt.Sprintf("calibration of %s did not measure anything", c.Var)
	}
	last := c.Probes[len(c.Probes)-1]
	if !c.Reached {
		return fmt.Sprintf("calibration did NOT reach its point in %d probes: %s = %s gave %s %.1f%s (target %g ± %g); the runs use it and the claims say what it gave",
			len(waitProbes(c.Probes)), c.Var, c.Value, c.Reading, last.Reading, c.of(), c.Target, c.Tolerance)
	}
	return fmt.Sprintf("calibrated on this machine: CPU per request %.3f ms with no wait; %s = %s puts %s at %d clients at %s %.1f%s (target %g ± %g), after %d probes with a wait",
		c.CPUPerRequestMs, c.Var, c.Value, c.Run, c.Clients, c.Reading, last.Reading, c.of(), c.Target, c.Tolerance, len(waitProbes(c.Probes)))
}

// Method says how the wait was found, for the report.
func (c *Calibration) Method() string {
	nowait := len(c.Probes) - len(waitProbes(c.Probes))
	s := fmt.Sprintf("Probes ran %s at %d clients with no wait until two agreed (%d taken)", c.Run, c.Clients, nowait)
	if c.CapacityNote != "" {
		s = fmt.Sprintf("Probes ran %s at %d clients with no wait: %s", c.Run, c.Clients, c.CapacityNote)
	}
	s += fmt.Sprintf("; the first guess was %g x their CPU per request per unit (%g units a request), and each probe after it set the wait on the running server and corrected it from the reading it measured, in %.0f s",
		c.Ratio, c.Units, c.Seconds)
	if n := len(c.Disturbed); n > 0 {
		what := fmt.Sprintf("%d probes", n)
		if n == 1 {
			what = "1 probe"
		}
		s += fmt.Sprintf("; %s taken again because other work took the cores while it ran (in the table, marked disturbed)", what)
	}
	return s
}

// ReadingHead heads the probes' reading column.
func (c *Calibration) ReadingHead() string {
	if c.Relative {
		return c.Reading + " (% of its value with no wait)"
	}
	return c.Reading
}

// FormatWait writes a wait as a duration a flag or URL takes.
func FormatWait(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	return d.Round(time.Microsecond).String()
}
