package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// An Experiment is a set of runs of a server under the same load: for each
// run the server is started with that run's flags, checked, and swept over
// the client counts. It is read from a TOML file (see experiments/*.toml).
type Experiment struct {
	// Name and Description say what the experiment shows; the description
	// heads the report.
	Name        string `toml:"name"`
	Description string `toml:"description"`

	Server   serverSpec   `toml:"server"`
	Client   clientSpec   `toml:"client"`
	Load     loadSpec     `toml:"load"`
	Validate validateSpec `toml:"validate"`
	Stats    statsSpec    `toml:"stats"`
	Profile  profileSpec  `toml:"profile"`
	Report   reportSpec   `toml:"report"`
	Disk     diskSpec     `toml:"disk"`
	// Calibrate, when it names a var, sets that server variable from the
	// machine before the runs (calibrate.go).
	Calibrate CalibrateSpec `toml:"calibrate"`
	// Truth, when set, takes the server's own record of each measured
	// window (truth.go).
	Truth truthSpec `toml:"truth"`
	// Disturbance says when a measurement is disturbed by other work on
	// the machine and how often it is measured again (disturbance.go).
	Disturbance disturbanceSpec `toml:"disturbance"`
	Runs        []runSpec       `toml:"run"`
	// Claims are the statements the experiment tests, each traced to its
	// source and decided from the results (claim.go).
	Claims []claim `toml:"claim"`

	// Quick is set by MakeQuick: fewer, shorter, single measurements.
	Quick bool `toml:"-"`

	// Dir is the directory of the experiment file; relative paths in the
	// server command are relative to it.
	Dir string `toml:"-"`
}

// serverSpec says how to start and drive the server under test. Every
// string may hold {{var}} placeholders: {{port}} and {{admin_port}} (free
// ports picked for each run), {{dir}} (the run's output directory), and the
// run's own vars.
type serverSpec struct {
	// Command is the program and its arguments; a run's Args are appended.
	Command []string `toml:"command"`
	// Env holds extra environment variables (KEY=VALUE).
	Env []string `toml:"env"`
	// Ready, Reset and Stats are URLs: Ready answers 200 when the server
	// can take load; Reset is POSTed to restore the data before each run
	// and after validation; Stats is read every second during the load.
	Ready string `toml:"ready"`
	Reset string `toml:"reset"`
	// StartTimeout bounds the wait for Ready (default 60s); StopTimeout the
	// wait after SIGTERM before the server is killed (default 10s).
	StartTimeout cli.Duration `toml:"start_timeout"`
	StopTimeout  cli.Duration `toml:"stop_timeout"`
	// CPUs pins the server to these CPUs (Linux affinity), e.g. [0].
	CPUs []int `toml:"cpus"`
}

// clientSpec says where the load generator runs.
type clientSpec struct {
	// CPUs pins the load generator to these CPUs, e.g. [1].
	CPUs []int `toml:"cpus"`
}

// loadSpec is the load applied at each client count.
type loadSpec struct {
	// Requests are the requests clients send (placeholders allowed, both
	// the run's {{vars}} and the load tool's own {{seq}}, {{client}} and
	// {{rand A B}}).
	Requests []loadtest.Request `toml:"request"`
	Clients  []int              `toml:"clients"`
	Model    string             `toml:"model"`
	Think    cli.Duration       `toml:"think"`
	ThinkDev cli.Duration       `toml:"think_dev"`
	Timer    string             `toml:"timer"`
	// TimerSlack is Settings.TimerSlack (0: each client wakes when due).
	TimerSlack cli.Duration `toml:"timer_slack"`
	Rate       float64      `toml:"rate"`
	Warmup     cli.Duration `toml:"warmup"`
	Duration   cli.Duration `toml:"duration"`
	Timeout    cli.Duration `toml:"timeout"`
	// ResetEach resets the data before every client count, not only
	// before each run.
	ResetEach bool `toml:"reset_each"`
	// SLO is checked at every step, e.g. "p99.9<5ms,errors<0.1%" (the
	// syntax of loadtest run -slo); percentiles the samples cannot support
	// are flagged.
	SLO string `toml:"slo"`
	// Deadlines are latencies whose share of requests within them is
	// tabled per step, e.g. ["1ms", "5ms", "50ms"].
	Deadlines []cli.Duration `toml:"deadlines"`
	// Timeline records the first Timeline requests of each step one by
	// one, and a per-100 ms series, for the cold-start charts (0: off).
	Timeline int `toml:"timeline"`
	// Repeats is how many times each point (run and client count) is
	// measured, 1 to MaxRepeats (0: 1). The point's value is the median
	// and its spread the range over the repeats.
	Repeats int `toml:"repeats"`
	// Interleave starts every run's server first, then, for each repeat
	// (a whole sweep) and each client count, measures the runs one after
	// the other in the file's order, so that the machine's drift hits
	// every configuration alike and a burst of other work hits one
	// repeat of several points, not every repeat of one. Without it each run is measured in full before the next
	// starts, its repeats back to back.
	Interleave bool `toml:"interleave"`
}

// MaxRepeats bounds load.repeats.
const MaxRepeats = 20

// validateSpec configures the check made before any load.
type validateSpec struct {
	// Board is the URL given to Options.Target's Validate (for the board,
	// its page URL); empty skips validation.
	Board string `toml:"board"`
}

// statsSpec names the stats (watch.Stat) taken from the server's stats
// JSON or Prometheus text endpoint.
type statsSpec struct {
	// URL is read every second during each measured step; empty: none.
	URL string `toml:"url"`
	// Format is how URL is read: "auto" (or empty: by the response's
	// Content-Type), "json" or "prometheus" (watch.Options.Format).
	Format string `toml:"format"`
	// Stats are the figures kept per step ([[stats.reading]] in the file).
	Stats []watch.Stat `toml:"reading"`
	// EnvironmentKeys names the top-level objects of the stats JSON copied
	// into each result's environment (default: the target's own,
	// watch.Target.EnvironmentKeys).
	EnvironmentKeys []string `toml:"environment"`
}

// profileSpec configures the profiles taken during a step.
type profileSpec struct {
	// URL is the base of the profile endpoints, e.g.
	// http://127.0.0.1:{{admin_port}}/debug; empty takes none.
	URL string `toml:"url"`
	// Kinds are "cpu" (URL/pprof/profile) and "fgprof" (URL/fgprof).
	Kinds []string `toml:"kinds"`
	// At is the client count whose step is profiled (default: the largest).
	At int `toml:"at"`
	// Seconds is the profile length (default: the step's duration, at most
	// 30).
	Seconds int `toml:"seconds"`
	// Buckets split a wall-clock profile by the first frame (function name
	// substring) found in each sample's stack, e.g. {"waiting for a
	// connection" = "acquireConn"}; samples with none count as "elsewhere".
	Buckets []watch.Bucket `toml:"bucket"`
	// Focus keeps only samples whose stack contains this function name
	// substring when computing bucket shares (e.g. "handleBoard").
	Focus string `toml:"focus"`
}

// reportSpec chooses extra charts.
type reportSpec struct {
	// Timeline adds per-second throughput and p99 of each run's last step,
	// warm-up included: the shape of a sudden step of load.
	Timeline bool `toml:"timeline"`
	// Distribution adds the latency distribution (latency against
	// percentile, HdrHistogram's plot) of each run's last step, so the
	// runs' tails can be compared side by side.
	Distribution bool `toml:"distribution"`
}

// runSpec is one server configuration.
type runSpec struct {
	Name string            `toml:"name"`
	Args []string          `toml:"args"`
	Vars map[string]string `toml:"vars"`
	// Start is when the load starts: "ready" (the default: after the
	// server's ready URL answers, a reset and validation) or "listening"
	// (as soon as the first request's port accepts connections, with no
	// reset or validation: the cold start measured from process start).
	Start string `toml:"start"`
	// Model, Think, Rate and Clients, when set, replace load's for this
	// run, so that one experiment can hold the same server under different
	// load models; Clients needs load.clients to name one count.
	Model   string       `toml:"model"`
	Think   cli.Duration `toml:"think"`
	Rate    float64      `toml:"rate"`
	Clients int          `toml:"clients"`
}

// Start modes of a run.
const (
	startReady     = "ready"
	startListening = "listening"
)

// Load reads and checks an experiment file. Unknown keys and bad
// values are errors that name them.
func Load(path string) (*Experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	e, err := parse(path, b)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", path, err)
	}
	e.Dir = abs
	return e, nil
}

// parse decodes experiment TOML; name is used in messages. The
// file-level functions such as {{env "DB_URL" "default"}} are expanded
// first (filefunc.go).
func parse(name string, data []byte) (*Experiment, error) {
	data, err := expandFileFuncs(name, data, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	var e Experiment
	if err := cli.DecodeTOML("experiment", name, data, &e); err != nil {
		return nil, err
	}
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", name, err)
	}
	return &e, nil
}

// SelectRuns keeps only the runs named in names, in the file's order. A
// name that matches no run is an error that names it.
func (e *Experiment) SelectRuns(names []string) error {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	var runs []runSpec
	for _, r := range e.Runs {
		if keep[r.Name] {
			runs = append(runs, r)
			delete(keep, r.Name)
		}
	}
	for _, n := range names {
		if keep[n] {
			return fmt.Errorf("no run named %q", n)
		}
	}
	e.Runs = runs
	return nil
}

// check validates e and fills in defaults.
func (e *Experiment) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if e.Name == "" {
		bad("name: missing")
	}
	if len(e.Server.Command) == 0 {
		bad("server.command: missing: the program to start, e.g. [\"./server\", \"-addr\", \"127.0.0.1:{{port}}\"]")
	}
	if e.Server.Ready == "" {
		bad("server.ready: missing: a URL that answers 200 when the server is ready")
	}
	if e.Server.StartTimeout == 0 {
		e.Server.StartTimeout = cli.Duration(60 * time.Second)
	}
	if e.Server.StopTimeout == 0 {
		e.Server.StopTimeout = cli.Duration(10 * time.Second)
	}
	if d := time.Duration(e.Server.StartTimeout); d < 0 || d > 10*time.Minute {
		bad("server.start_timeout = %v: want 0s..10m", d)
	}
	l := &e.Load
	if len(l.Requests) == 0 {
		bad("load.request: missing: at least one [[load.request]] with a url")
	}
	if len(l.Clients) == 0 {
		bad("load.clients: missing, e.g. [1, 5, 10]")
	}
	for _, c := range l.Clients {
		if c < 1 || c > 100_000 {
			bad("load.clients: %d: want 1..100000", c)
		}
	}
	if !sort.IntsAreSorted(l.Clients) {
		bad("load.clients = %v: want increasing client counts", l.Clients)
	}
	if l.Model == "" {
		l.Model = string(loadtest.ModelDelay)
	}
	if _, err := loadtest.ParseModel(l.Model); err != nil {
		bad("load.model: %v", err)
	}
	if l.Timer == "" {
		l.Timer = string(loadtest.TimerConstant)
	}
	if _, err := loadtest.ParseTimer(l.Timer); err != nil {
		bad("load.timer: %v", err)
	}
	if d := time.Duration(l.Duration); d <= 0 || d > time.Hour {
		bad("load.duration = %v: want above 0s and at most 1h", d)
	}
	if d := time.Duration(l.Warmup); d < 0 || d > 10*time.Minute {
		bad("load.warmup = %v: want 0s..10m", d)
	}
	if l.Think < 0 || l.ThinkDev < 0 || l.Timeout < 0 {
		bad("load: think, think_dev and timeout must not be negative")
	}
	if d := time.Duration(l.TimerSlack); d < 0 || d > time.Second {
		bad("load.timer_slack = %v: want 0s..1s", d)
	}
	if l.SLO != "" {
		if _, err := loadtest.ParseSLO(l.SLO); err != nil {
			bad("load.slo: %v", err)
		}
	}
	if l.Timeline < 0 || l.Timeline > loadtest.MaxTimeline {
		bad("load.timeline = %d: want 0 (off) to %d requests", l.Timeline, loadtest.MaxTimeline)
	}
	for _, d := range l.Deadlines {
		if d <= 0 {
			bad("load.deadlines: %v: want a positive latency", time.Duration(d))
		}
	}
	if l.Repeats < 0 || l.Repeats > MaxRepeats {
		bad("load.repeats = %d: want 1..%d measurements of each point", l.Repeats, MaxRepeats)
	}
	if l.Repeats == 0 {
		l.Repeats = 1
	}
	if l.Model == string(loadtest.ModelOpen) && l.Rate <= 0 {
		bad("load.rate = %g: the open model needs a positive rate", l.Rate)
	}
	if err := watch.CheckFormat(e.Stats.Format); err != nil {
		bad("stats.format: %v", err)
	}
	for i, r := range e.Stats.Stats {
		if err := r.Check(); err != nil {
			bad("stats.reading %d: %v", i+1, err)
		}
		if r.Scale == 0 {
			e.Stats.Stats[i].Scale = 1
		}
	}
	for i, k := range e.Stats.EnvironmentKeys {
		if strings.TrimSpace(k) == "" || strings.Contains(k, ".") {
			bad("stats.environment %d: %q: want the name of a top-level object of the stats JSON", i+1, k)
		}
	}
	for _, k := range e.Profile.Kinds {
		if k != "cpu" && k != "fgprof" {
			bad("profile.kinds: %q: want \"cpu\" or \"fgprof\"", k)
		}
	}
	if e.Profile.Seconds < 0 || e.Profile.Seconds > 300 {
		bad("profile.seconds = %d: want 0..300", e.Profile.Seconds)
	}
	if len(e.Runs) == 0 {
		bad("run: missing: at least one [[run]]")
	}
	seen := map[string]bool{}
	for i, r := range e.Runs {
		if r.Name == "" {
			bad("run %d: name: missing", i+1)
		}
		if seen[r.Name] {
			bad("run %d: name %q used twice", i+1, r.Name)
		}
		seen[r.Name] = true
		switch r.Start {
		case "":
			e.Runs[i].Start = startReady
		case startReady, startListening:
		default:
			bad("run %q: start = %q: want \"ready\" or \"listening\"", r.Name, r.Start)
		}
		errs = append(errs, e.checkRunLoad(r)...)
		if l.Interleave && r.Start == startListening {
			// A cold start is measured from the process start: its server
			// cannot be started ahead of its turn.
			bad("load.interleave = true: run %q has start = \"listening\" (a cold start), which cannot be interleaved: its server would be warm by its turn", r.Name)
		}
	}
	for _, c := range e.Server.CPUs {
		if c < 0 || c > 1023 {
			bad("server.cpus: %d: want a CPU number", c)
		}
	}
	for _, c := range e.Client.CPUs {
		if c < 0 || c > 1023 {
			bad("client.cpus: %d: want a CPU number", c)
		}
	}
	errs = append(errs, e.checkCalibrate()...)
	errs = append(errs, e.checkDisturbance()...)
	errs = append(errs, e.checkTruth()...)
	errs = append(errs, e.checkClaims()...)
	return errors.Join(errs...)
}

// checkRunLoad returns what is wrong with a run's own load keys.
func (e *Experiment) checkRunLoad(r runSpec) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("run %q: "+format, append([]any{r.Name}, a...)...))
	}
	if r.Model != "" {
		if _, err := loadtest.ParseModel(r.Model); err != nil {
			bad("model: %v", err)
		}
	}
	if r.Think < 0 || r.Rate < 0 {
		bad("think and rate must not be negative")
	}
	model := cmp.Or(r.Model, e.Load.Model)
	if model == string(loadtest.ModelOpen) && cmp.Or(r.Rate, e.Load.Rate) <= 0 {
		bad("the open model needs a positive rate (run's rate or load.rate)")
	}
	if r.Clients < 0 || r.Clients > 100_000 {
		bad("clients = %d: want 1..100000", r.Clients)
	}
	if r.Clients > 0 && len(e.Load.Clients) != 1 {
		bad("clients = %d replaces load.clients, which must then name one count (it has %d)", r.Clients, len(e.Load.Clients))
	}
	return errs
}

// apply applies a run's own load keys to s.
func (r runSpec) apply(s *loadtest.Settings) {
	if r.Model != "" {
		s.Model = loadtest.Model(r.Model)
	}
	if r.Think != 0 {
		s.Think = time.Duration(r.Think)
	}
	if r.Rate != 0 {
		s.Rate = r.Rate
	}
	if r.Clients != 0 {
		s.Clients = r.Clients
	}
}

// expand replaces {{name}} placeholders from vars, leaving the load tool's
// own placeholders ({{seq}}, {{client}}, {{rand …}}) and unknown names as
// they are.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}
