package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ExperimentResult is everything an experiment measured, as written to
// experiment.json in the report folder.
type ExperimentResult struct {
	Schema       int          `json:"schema"`
	Kind         string       `json:"kind"` // "experiment"
	Name         string       `json:"name"`
	Description  string       `json:"description,omitempty"`
	Start        time.Time    `json:"start"`
	End          time.Time    `json:"end"`
	Notes        []string     `json:"notes,omitempty"`
	Readings     []Reading    `json:"readings,omitempty"`
	Timeline     bool         `json:"timeline,omitempty"`
	Distribution bool         `json:"distribution,omitempty"`
	Deadlines    []Duration   `json:"deadlines,omitempty"`
	SLO          string       `json:"slo,omitempty"`
	Runs         []*RunResult `json:"runs"`
	// Disk is the disk benchmark's JSON output, when the file names one.
	Disk json.RawMessage `json:"disk,omitempty"`
	// Error says why the experiment stopped early, if it did.
	Error    string   `json:"error,omitempty"`
	Verdicts []string `json:"verdicts,omitempty"`
}

// RunResult is one server configuration's sweep.
type RunResult struct {
	Name     string            `json:"name"`
	Command  []string          `json:"command"`
	Vars     map[string]string `json:"vars,omitempty"`
	Points   []*Point          `json:"points"`
	Profiles []*ProfileSummary `json:"profiles,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// Point is one client count of a run: the load tool's result and the
// server's readings over the measured time.
type Point struct {
	Clients int                `json:"clients"`
	Result  *Result            `json:"result"`
	Server  map[string]float64 `json:"server,omitempty"`
	// Within is the share (0..1) of successful requests within each of
	// the experiment's deadlines, in their order.
	Within []float64 `json:"within,omitempty"`
	// SLO holds the objectives' outcomes at this step.
	SLO []SLOOutcome `json:"slo,omitempty"`
}

// SLOOutcome is one objective checked at one step.
type SLOOutcome struct {
	Objective string  `json:"objective"`
	Value     float64 `json:"value"`
	Pass      bool    `json:"pass"`
	Warning   string  `json:"warning,omitempty"`
}

// ExperimentOptions tune RunExperiment.
type ExperimentOptions struct {
	// Out is the report folder (created).
	Out string
	// Log receives progress lines.
	Log io.Writer
}

// RunExperiment runs every run of e in turn: start the server, wait until
// it is ready, reset the data, validate, reset again, sweep the client
// counts while sampling the server's stats and taking profiles, stop the
// server. A server that fails to start or to validate stops the
// experiment; what was measured so far is kept and reported. The report
// folder is written in every case.
func RunExperiment(ctx context.Context, e *Experiment, opt ExperimentOptions) (*ExperimentResult, error) {
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	logf := func(format string, a ...any) { fmt.Fprintf(logw, format+"\n", a...) }
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	res := &ExperimentResult{Schema: SchemaVersion, Kind: "experiment", Name: e.Name, Description: e.Description,
		Start: time.Now(), Readings: e.Stats.Readings, Timeline: e.Report.Timeline, Distribution: e.Report.Distribution,
		Deadlines: e.Load.Deadlines, SLO: e.Load.SLO}
	note := func(s string) { res.Notes = append(res.Notes, s); logf("%s", s) }
	note(pinSelf(e.Client.CPUs))
	if len(e.Server.Command) > 0 && len(e.Disk.Command) > 0 {
		abs, _ := filepath.Abs(opt.Out)
		raw, err := runDisk(ctx, e.Disk, e.Dir, func(s string) string { return expand(s, map[string]string{"out": abs}) })
		if err != nil {
			note("disk benchmark failed: " + err.Error())
		} else {
			res.Disk = raw
			logf("disk benchmark done")
		}
	}

	var runErr error
	for _, run := range e.Runs {
		if ctx.Err() != nil {
			runErr = ctx.Err()
			break
		}
		rr, note2, err := runOne(ctx, e, run, opt.Out, logf)
		if note2 != "" && !slices.Contains(res.Notes, note2) {
			note(note2)
		}
		if rr != nil {
			res.Runs = append(res.Runs, rr)
		}
		if err != nil {
			runErr = fmt.Errorf("run %q: %w", run.Name, err)
			if rr != nil {
				rr.Error = err.Error()
			}
			break
		}
	}
	res.End = time.Now()
	if runErr != nil {
		res.Error = runErr.Error()
		logf("experiment stopped: %v", runErr)
	}
	res.Verdicts = Verdicts(res)
	if err := WriteExperimentReport(opt.Out, res); err != nil {
		return res, errors.Join(runErr, err)
	}
	logf("report: %s", filepath.Join(opt.Out, "index.html"))
	return res, runErr
}

// runOne starts the server for one run and sweeps it.
func runOne(ctx context.Context, e *Experiment, run ExperimentRun, out string, logf func(string, ...any)) (*RunResult, string, error) {
	dir := filepath.Join(out, fileName(run.Name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	adminPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	vars := map[string]string{"port": port, "admin_port": adminPort, "dir": dir, "run": run.Name}
	for k, v := range run.Vars {
		vars[k] = v
	}
	x := func(s string) string { return expand(s, vars) }
	argv := resolveCommand(append(append([]string(nil), e.Server.Command...), run.Args...), e.Dir)
	for i := range argv {
		argv[i] = x(argv[i])
	}
	env := make([]string, len(e.Server.Env))
	for i, v := range e.Server.Env {
		env[i] = x(v)
	}
	rr := &RunResult{Name: run.Name, Command: argv, Vars: run.Vars}

	logf("run %s: starting %s", run.Name, strings.Join(argv, " "))
	proc, pinNote, err := startServer(argv, env, e.Dir, filepath.Join(dir, "server.log"), e.Server.CPUs)
	if err != nil {
		return rr, pinNote, err
	}
	stopTimeout := time.Duration(e.Server.StopTimeout)
	defer func() {
		if err := proc.stop(stopTimeout); err != nil {
			logf("run %s: %v", run.Name, err)
		}
	}()
	reset := func() error {
		if e.Server.Reset == "" {
			return nil
		}
		if err := post(ctx, x(e.Server.Reset), 5*time.Minute); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
		return nil
	}
	if run.Start == StartListening {
		// Cold start: load as soon as the board's port takes connections,
		// from a fresh process; no reset, no validation, nothing warms it.
		addr, _, _, err := splitURL(x(e.Load.Requests[0].URL))
		if err != nil {
			return rr, pinNote, err
		}
		if err := proc.waitListening(ctx, addr, time.Duration(e.Server.StartTimeout)); err != nil {
			return rr, pinNote, err
		}
		logf("run %s: port %s open, loading at once (cold start)", run.Name, addr)
	} else {
		if err := proc.waitReady(ctx, x(e.Server.Ready), time.Duration(e.Server.StartTimeout)); err != nil {
			return rr, pinNote, err
		}
		if err := reset(); err != nil {
			return rr, pinNote, err
		}
		if e.Validate.Board != "" {
			if err := ValidateBoard(ctx, x(e.Validate.Board)); err != nil {
				return rr, pinNote, fmt.Errorf("the server failed validation, so it was not loaded: %w", err)
			}
			logf("run %s: validation passed", run.Name)
			if err := reset(); err != nil {
				return rr, pinNote, err
			}
		}
	}

	profileAt := e.Profile.At
	if profileAt == 0 && len(e.Load.Clients) > 0 {
		profileAt = e.Load.Clients[len(e.Load.Clients)-1]
	}
	for i, clients := range e.Load.Clients {
		if ctx.Err() != nil {
			return rr, pinNote, ctx.Err()
		}
		if e.Load.ResetEach && i > 0 {
			if err := reset(); err != nil {
				return rr, pinNote, err
			}
		}
		s := e.settings(run.Name, clients, x)
		// The load tool reads the server's stats and takes its profiles
		// over the measured part of the step (server.go).
		if e.Stats.URL != "" {
			s.StatsURL, s.StatsReadings = x(e.Stats.URL), e.Stats.Readings
		}
		if e.Profile.URL != "" && clients == profileAt && len(e.Profile.Kinds) > 0 {
			s.ProfileURL, s.ProfileKinds = x(e.Profile.URL), e.Profile.Kinds
			s.ProfilePrefix = filepath.Join(dir, "profile")
			s.ProfileSeconds = e.Profile.Seconds
			s.ProfileBuckets, s.ProfileFocus = e.Profile.Buckets, e.Profile.Focus
		}
		r, err := Run(ctx, s)
		if err != nil {
			return rr, pinNote, fmt.Errorf("load %d clients: %w", clients, err)
		}
		p := &Point{Clients: clients, Result: r}
		judge(p, e.Load)
		if r.Server != nil {
			p.Server = make(map[string]float64, len(r.Server.Values))
			for _, v := range r.Server.Values {
				p.Server[v.Name] = v.Value
			}
		}
		for _, pr := range r.Profiles {
			pr.File, _ = filepath.Rel(out, pr.File)
		}
		rr.Points = append(rr.Points, p)
		rr.Profiles = append(rr.Profiles, r.Profiles...)
		for _, w := range r.Warnings {
			logf("run %s: %s", run.Name, w)
		}
		logf("run %s: %s", run.Name, pointLine(p, e.Stats.Readings))
		if err := WriteSweepJSON(filepath.Join(dir, "sweep.json"), run.Name, pointResults(rr.Points)); err != nil {
			return rr, pinNote, err
		}
		if r.Interrupted {
			return rr, pinNote, context.Canceled
		}
	}
	return rr, pinNote, nil
}

// judge fills a point's deadline shares and SLO outcomes.
func judge(p *Point, l ExperimentLoad) {
	if h := p.Result.Total.Histogram; h != nil {
		for _, d := range l.Deadlines {
			p.Within = append(p.Within, h.ShareWithin(time.Duration(d)))
		}
	}
	if l.SLO == "" {
		return
	}
	objs, err := ParseSLO(l.SLO)
	if err != nil {
		return // checked when the file was read
	}
	for _, v := range EvaluateSLO(p.Result, objs) {
		p.SLO = append(p.SLO, SLOOutcome{Objective: v.Objective.Text, Value: v.Value, Pass: v.Pass, Warning: v.Warning})
	}
}

// settings builds the load tool's settings for one step.
func (e *Experiment) settings(name string, clients int, x func(string) string) Settings {
	l := e.Load
	reqs := make([]Request, len(l.Requests))
	for i, r := range l.Requests {
		r.URL = x(r.URL)
		r.Label = x(r.Label)
		if r.Form != nil {
			f := make(map[string]string, len(r.Form))
			for k, v := range r.Form {
				f[k] = x(v)
			}
			r.Form = f
		}
		reqs[i] = r
	}
	return Settings{
		Name:       name,
		Requests:   reqs,
		Clients:    clients,
		Duration:   time.Duration(l.Duration),
		Warmup:     time.Duration(l.Warmup),
		Model:      Model(l.Model),
		Think:      time.Duration(l.Think),
		ThinkDev:   time.Duration(l.ThinkDev),
		Timer:      TimerKind(l.Timer),
		TimerSlack: time.Duration(l.TimerSlack),
		Rate:       l.Rate,
		Timeout:    time.Duration(l.Timeout),
		Timeline:   l.Timeline,
	}
}

// pointLine is the progress line of one step.
func pointLine(p *Point, readings []Reading) string {
	t := p.Result.Total
	var b strings.Builder
	fmt.Fprintf(&b, "%d clients: %.1f/s, mean %.2f ms, p99 %.2f ms, errors %d, generator CPU %.0f %%",
		p.Clients, t.Throughput, t.MeanMs, t.P99Ms, t.Errors, p.Result.Cost.CPUPercent)
	for _, r := range readings {
		if v, ok := p.Server[r.Name]; ok {
			fmt.Fprintf(&b, ", %s %.2f%s", r.Name, v, unitSuffix(r.Unit))
		}
	}
	return b.String()
}

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

func pointResults(ps []*Point) []*Result {
	out := make([]*Result, len(ps))
	for i, p := range ps {
		out[i] = p.Result
	}
	return out
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName makes a run name safe as a file name.
func fileName(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-")
	if s == "" {
		return "run"
	}
	return s
}

// WriteExperimentJSON writes res to path.
func WriteExperimentJSON(path string, res *ExperimentResult) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode experiment: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
