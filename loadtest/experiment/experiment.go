package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

// An Experiment is a set of runs of a server under the same load, read from a TOML file.
type Experiment struct {
	Name        string `toml:"name"`
	Description string `toml:"description"` // heads the report

	Server   serverSpec   `toml:"server"`
	Client   clientSpec   `toml:"client"`
	Load     loadSpec     `toml:"load"`
	Validate validateSpec `toml:"validate"`
	Stats    statsSpec    `toml:"stats"`
	Profile  profileSpec  `toml:"profile"`
	Report   reportSpec   `toml:"report"`
	Disk     diskSpec     `toml:"disk"`
	// Calibrate, with a var, sets that server variable before the runs.
	Calibrate   calibrate.Spec `toml:"calibrate"`
	Truth       truthSpec      `toml:"truth"`
	Disturbance measure.Rules  `toml:"disturbance"`
	Tune        tuneSection    `toml:"tune"`
	Fleet       fleetSpec      `toml:"fleet"`
	Runs        []runSpec      `toml:"run"`
	Claims      []claim.Claim  `toml:"claim"`

	Quick bool   `toml:"-"` // set by MakeQuick
	Dir   string `toml:"-"` // the file's directory, where relative paths start
}

// serverSpec says how to start and drive the server under test; its
// strings may hold {{port}}, {{admin_port}}, {{dir}} and the run's vars.
type serverSpec struct {
	Command      []string     `toml:"command"`       // a run's Args are appended
	Env          []string     `toml:"env"`           // KEY=VALUE
	Ready        string       `toml:"ready"`         // answers 200 when the server can take load
	Reset        string       `toml:"reset"`         // POSTed before each run and after validation
	StartTimeout cli.Duration `toml:"start_timeout"` // for Ready
	StopTimeout  cli.Duration `toml:"stop_timeout"`  // after SIGTERM, before a kill
	CPUs         []int        `toml:"cpus"`
}

type clientSpec struct {
	CPUs []int `toml:"cpus"`
}

type loadSpec struct {
	// Settings are every step's but the name and client count.
	loadtest.Settings
	Clients    []int          `toml:"clients"`
	ResetEach  bool           `toml:"reset_each"` // reset before every client count too
	SLO        string         `toml:"slo"`        // checked at every step
	Deadlines  []cli.Duration `toml:"deadlines"`  // latencies whose share is tabled per step
	Repeats    int            `toml:"repeats"`    // measurements of each point, by their median
	Interleave bool           `toml:"interleave"` // runs measured in turns, so drift hits all alike
}

// MaxRepeats bounds load.repeats.
const MaxRepeats = 20

type validateSpec struct {
	Board string `toml:"board"`
}

type statsSpec struct {
	URL    string       `toml:"url"`    // read every second of each step
	Format string       `toml:"format"` // "auto" (or empty), "json" or "prometheus"
	Stats  []watch.Stat `toml:"reading"`
	// EnvironmentKeys are the stats JSON's objects copied into each result.
	EnvironmentKeys []string `toml:"environment"`
}

type profileSpec struct {
	URL     string   `toml:"url"`     // the base of the profile endpoints
	Kinds   []string `toml:"kinds"`   // "cpu" (URL/pprof/profile) and "fgprof" (URL/fgprof)
	At      int      `toml:"at"`      // the client count profiled (default: the largest)
	Seconds int      `toml:"seconds"` // default: the step's, at most 30
	// Buckets split a wall-clock profile by the first frame found in a sample's stack ("elsewhere": none).
	Buckets []watch.Bucket `toml:"bucket"`
	Focus   string         `toml:"focus"` // a function the bucketed samples' stacks must hold
}

// reportSpec chooses the extra charts of each run's last step.
type reportSpec struct {
	Timeline     bool `toml:"timeline"`
	Distribution bool `toml:"distribution"`
}

type runSpec struct {
	Name string            `toml:"name"`
	Args []string          `toml:"args"`
	Vars map[string]string `toml:"vars"`
	// Start is "ready" or "listening" (a cold start: loaded once the port accepts connections).
	Start   string     `toml:"start"`
	Clients int        `toml:"clients"` // replaces load.clients, of one count
	Fleet   *fleetSpec `toml:"fleet"`
	// Settings, those set, replace load's (runSettings).
	loadtest.Settings
}

const (
	startReady     = "ready"
	startListening = "listening"
)

// Load reads and checks an experiment file, naming unknown keys and bad values.
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

// SelectRuns keeps only the runs named in names, in the file's order.
func (e *Experiment) SelectRuns(names []string) error {
	for _, n := range names {
		if e.run(n) == nil {
			return fmt.Errorf("no run named %q", n)
		}
	}
	e.Runs = slices.DeleteFunc(e.Runs, func(r runSpec) bool { return !slices.Contains(names, r.Name) })
	return nil
}

func (e *Experiment) run(name string) *runSpec {
	if i := slices.IndexFunc(e.Runs, func(r runSpec) bool { return r.Name == name }); i >= 0 {
		return &e.Runs[i]
	}
	return nil
}

// check validates e and fills in defaults: its errors name the key.
func (e *Experiment) check() error {
	var errs []error
	if e.Name == "" {
		errs = append(errs, errors.New("name: missing"))
	}
	disturbance := func() []error { return e.Disturbance.Check("disturbance") }
	for _, f := range []func() []error{e.checkServer, e.checkLoad, e.checkWatch, e.checkRuns, e.checkFleet,
		e.checkCalibrate, disturbance, e.checkTruth, e.checkTune, e.checkClaims} {
		errs = append(errs, f()...)
	}
	return errors.Join(errs...)
}

type problems []error

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Errorf(format, a...)) }

func (p *problems) cpus(key string, cpus []int) {
	for _, c := range cpus {
		if c < 0 || c > 1023 {
			p.add("%s: %d: want a CPU number", key, c)
		}
	}
}

func (e *Experiment) checkServer() []error {
	var bad problems
	if len(e.Server.Command) == 0 {
		bad.add("server.command: missing: the program to start, e.g. [\"./server\", \"-addr\", \"127.0.0.1:{{port}}\"]")
	}
	if e.Server.Ready == "" {
		bad.add("server.ready: missing: a URL that answers 200 when the server is ready")
	}
	e.Server.StartTimeout = cmp.Or(e.Server.StartTimeout, cli.Duration(60*time.Second))
	e.Server.StopTimeout = cmp.Or(e.Server.StopTimeout, cli.Duration(10*time.Second))
	if d := time.Duration(e.Server.StartTimeout); d < 0 || d > 10*time.Minute {
		bad.add("server.start_timeout = %v: want 0s..10m", d)
	}
	bad.cpus("server.cpus", e.Server.CPUs)
	bad.cpus("client.cpus", e.Client.CPUs)
	return bad
}

func (e *Experiment) checkLoad() []error {
	var bad problems
	l := &e.Load
	if len(l.Requests) == 0 {
		bad.add("load.request: missing: at least one [[load.request]] with a url")
	}
	if len(l.Clients) == 0 {
		bad.add("load.clients: missing, e.g. [1, 5, 10]")
	}
	for _, c := range l.Clients {
		if c < 1 || c > 100_000 {
			bad.add("load.clients: %d: want 1..100000", c)
		}
	}
	if !sort.IntsAreSorted(l.Clients) {
		bad.add("load.clients = %v: want increasing client counts", l.Clients)
	}
	cli.FillDefaults(&l.Settings)
	bad = append(bad, checkSettings(l.Settings, func(k string) string { return "load." + k })...)
	if l.SLO != "" {
		if _, err := loadtest.ParseSLO(l.SLO); err != nil {
			bad.add("load.slo: %v", err)
		}
	}
	for _, d := range l.Deadlines {
		if d <= 0 {
			bad.add("load.deadlines: %v: want a positive latency", time.Duration(d))
		}
	}
	if l.Repeats < 0 || l.Repeats > MaxRepeats {
		bad.add("load.repeats = %d: want 1..%d measurements of each point", l.Repeats, MaxRepeats)
	}
	l.Repeats = cmp.Or(l.Repeats, 1)
	return bad
}

func checkSettings(s loadtest.Settings, key func(string) string) []error {
	var bad problems
	if _, err := loadtest.ParseModel(string(s.Model)); err != nil {
		bad.add("%s: %v", key("model"), err)
	}
	if _, err := loadtest.ParseTimer(string(s.TimerKind)); err != nil {
		bad.add("%s: %v", key("timer"), err)
	}
	if s.Duration <= 0 || s.Duration > time.Hour {
		bad.add("%s = %v: want above 0s and at most 1h", key("duration"), s.Duration)
	}
	if s.Warmup > 10*time.Minute {
		bad.add("%s = %v: want 0s..10m", key("warmup"), s.Warmup)
	}
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if k := f.Tag.Get("toml"); k != "-" && v.Field(i).CanInt() && v.Field(i).Int() < 0 {
			bad.add("%s = %v: must not be negative", key(k), v.Field(i).Interface())
		}
	}
	if s.TimerSlack > time.Second {
		bad.add("%s = %v: want 0s..1s", key("timer_slack"), s.TimerSlack)
	}
	if s.TimelineRequests > loadtest.MaxTimeline {
		bad.add("%s = %d: want 0 (off) to %d requests", key("timeline"), s.TimelineRequests, loadtest.MaxTimeline)
	}
	if s.Rate < 0 || s.Model == loadtest.ModelOpen && s.Rate <= 0 {
		bad.add("%s = %g: the open model needs a positive rate", key("rate"), s.Rate)
	}
	return bad
}

func (e *Experiment) checkWatch() []error {
	var bad problems
	if err := watch.CheckFormat(e.Stats.Format); err != nil {
		bad.add("stats.format: %v", err)
	}
	for i, r := range e.Stats.Stats {
		if err := r.Check(); err != nil {
			bad.add("stats.reading %d: %v", i+1, err)
		}
		e.Stats.Stats[i].Scale = cmp.Or(r.Scale, 1)
	}
	for i, k := range e.Stats.EnvironmentKeys {
		if strings.TrimSpace(k) == "" || strings.Contains(k, ".") {
			bad.add("stats.environment %d: %q: want the name of a top-level object of the stats JSON", i+1, k)
		}
	}
	for _, k := range e.Profile.Kinds {
		if k != "cpu" && k != "fgprof" {
			bad.add("profile.kinds: %q: want \"cpu\" or \"fgprof\"", k)
		}
	}
	if e.Profile.Seconds < 0 || e.Profile.Seconds > 300 {
		bad.add("profile.seconds = %d: want 0..300", e.Profile.Seconds)
	}
	return bad
}

func (e *Experiment) checkRuns() []error {
	var bad problems
	if len(e.Runs) == 0 {
		bad.add("run: missing: at least one [[run]]")
	}
	loadOK := len(checkSettings(e.Load.Settings, func(k string) string { return k })) == 0
	seen := map[string]bool{}
	for i, r := range e.Runs {
		if r.Name == "" {
			bad.add("run %d: name: missing", i+1)
		}
		if seen[r.Name] {
			bad.add("run %d: name %q used twice", i+1, r.Name)
		}
		seen[r.Name] = true
		switch r.Start {
		case "":
			e.Runs[i].Start = startReady
		case startReady, startListening:
		default:
			bad.add("run %q: start = %q: want \"ready\" or \"listening\"", r.Name, r.Start)
		}
		if r.Clients < 0 || r.Clients > 100_000 {
			bad.add("run %q: clients = %d: want 1..100000", r.Name, r.Clients)
		}
		if r.Clients > 0 && len(e.Load.Clients) != 1 {
			bad.add("run %q: clients = %d replaces load.clients, which must then name one count (it has %d)", r.Name, r.Clients, len(e.Load.Clients))
		}
		if len(r.Requests) > 0 {
			bad.add("run %q: request: a run loads [load]'s requests; vary them with the run's vars", r.Name)
		}
		if loadOK { // else [load]'s errors are said once, there
			bad = append(bad, checkSettings(e.runSettings(r), func(k string) string { return fmt.Sprintf("run %q: %s", r.Name, k) })...)
		}
		if e.Load.Interleave && r.Start == startListening {
			bad.add("load.interleave = true: run %q has start = \"listening\" (a cold start), which cannot be interleaved: its server would be warm by its turn", r.Name)
		}
	}
	return bad
}

func (e *Experiment) runSettings(r runSpec) loadtest.Settings {
	s := e.Load.Settings
	overlay(&s, r.Settings)
	return s
}

// overlay sets the fields of *dst that src sets (not toml:"-").
func overlay[T any](dst *T, src T) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src)
	for i := range s.NumField() {
		if f := s.Field(i); s.Type().Field(i).Tag.Get("toml") != "-" && !f.IsZero() {
			d.Field(i).Set(f)
		}
	}
}

// expand replaces {{name}} placeholders from vars, leaving unknown names as they are.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}
