package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/fleet"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/report"
	"bbslab/loadtest/watch"
)

// Options tune Run.
type Options struct {
	Out      string       // the report folder (created)
	Log      io.Writer    // progress lines
	Target   watch.Target // all the runner knows of the server under test
	Live     *live.Hub    // receives the dashboard's frames as they come (optional)
	Progress io.Writer    // a terminal's progress line, rewritten every second
	NoPin    bool         // hold the processes to their CPUs by GOMAXPROCS alone
	Lang     string       // the report's language: "ja" or English

	serverCoresOnly bool // judge only the server's cores (tests)
}

// Run runs every run of e, decides its claims and writes the report
// folder, also when a server that fails to start or validate stops it.
func Run(ctx context.Context, e *Experiment, opt Options) (*outcome.Result, error) {
	out, err := filepath.Abs(opt.Out)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	opt.Out = out
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if e.Validate.Board != "" && opt.Target.Validate == nil {
		return nil, fmt.Errorf("experiment %s: validate.board is set but no validation was given to run it", e.Name)
	}
	res := newResult(e, opt.Target)
	hub := opt.Live
	if hub == nil {
		hub = live.New()
	}
	logw := cmp.Or[io.Writer](opt.Log, io.Discard)
	x := &experimentRunner{e: e, opt: opt, res: res, feed: feed.New(hub, e.Name), vars: map[string]string{},
		total: len(e.Runs) * len(e.Load.Clients) * max(e.Load.Repeats, 1)}
	x.logf = func(format string, a ...any) {
		if opt.Progress != nil {
			fmt.Fprint(opt.Progress, clearLine) // the progress line gives way to the log's
		}
		fmt.Fprintf(logw, format+"\n", a...)
	}
	x.watchInterference()
	genNote, genCores, restore := holdGenerator(e.Client.CPUs, !opt.NoPin)
	defer restore()
	x.genCores = genCores
	x.note(genNote)
	if e.Quick {
		x.note(outcome.QuickNote)
	}
	if len(e.Server.Command) > 0 && len(e.Disk.Command) > 0 {
		raw, err := runDisk(ctx, e.Disk, e.Dir, func(s string) string { return expand(s, map[string]string{"out": opt.Out}) })
		if err != nil {
			x.note("disk benchmark failed: " + err.Error())
		} else {
			res.Disk = raw
			x.logf("disk benchmark done")
		}
	}

	var runErr error
	if e.Calibrate.Var != "" {
		runErr = x.calibrate(ctx)
	}
	switch {
	case runErr != nil:
	case e.Tune.on():
		runErr = x.tuneAll(ctx)
	case e.Load.Interleave:
		runErr = x.interleaved(ctx)
	default:
		runErr = x.inTurn(ctx)
	}
	disk := x.finish(runErr)
	frames, err := hub.Frames()
	if err != nil {
		return res, errors.Join(runErr, err)
	}
	if err := report.Write(opt.Out, res, report.Options{Disk: disk, Charts: chart.Server{Charts: x.opt.Target.Charts, Stats: res.Stats}, Frames: frames, Lang: opt.Lang}); err != nil {
		return res, errors.Join(runErr, err)
	}
	x.logf("report: %s", filepath.Join(opt.Out, "index.html"))
	return res, runErr
}

func newResult(e *Experiment, t watch.Target) *outcome.Result {
	d := e.Disturbance
	res := &outcome.Result{Schema: loadtest.SchemaVersion, Kind: "experiment", Name: e.Name, Description: e.Description,
		Start: time.Now(), Stats: e.Stats.Stats, Timeline: e.Report.Timeline, Distribution: e.Report.Distribution,
		Deadlines: e.Load.Deadlines, SLO: e.Load.SLO, Repeats: max(e.Load.Repeats, 1), Interleave: e.Load.Interleave, Sweeps: e.Load.Interleave, Quick: e.Quick,
		Disturbance: &outcome.Disturbance{Off: d.Off, Threshold: d.Threshold, MaxAttempts: d.MaxAttempts, MaxExtraSeconds: e.maxExtra().Seconds(),
			CPUPerRequest: d.CPUPerRequest, NoiseFloor: d.NoiseFloor, Confidence: d.Confidence, SettleSeconds: time.Duration(d.Settle).Seconds()}}
	if len(res.Stats) == 0 && e.Stats.URL != "" {
		res.Stats = t.Stats
	}
	return res
}

// finish decides the result once the runs stopped and returns the disk table the report shows.
func (x *experimentRunner) finish(runErr error) *watch.DiskTable {
	res, e, t := x.res, x.e, x.opt.Target
	res.End = time.Now()
	if runErr != nil {
		res.Error = runErr.Error()
		x.logf("experiment stopped: %v", runErr)
	}
	if e.Stats.URL != "" {
		res.Interference, res.Steal = t.Interference.Name, t.Steal.Name
	}
	x.note(report.RemeasuredText(res))
	x.note(unjudgedNote(res))
	if !e.Quick {
		res.CalibrationMoved = movedFromCalibration(res)
		x.note(res.CalibrationMoved)
	}
	res.Claims = claim.Evaluate(e.Claims, res, e.Quick)
	var disk *watch.DiskTable
	if t.Disk != nil && len(res.Disk) > 0 {
		disk = t.Disk(res.Disk)
	}
	res.Verdicts = claim.Verdicts(res, disk)
	if err := x.feed.Done(liveClaims(res.Claims, true, nil)); err != nil {
		x.note(err.Error()) // a frame the page could not draw: the experiment goes on
	}
	return disk
}

type experimentRunner struct {
	e                       *Experiment
	opt                     Options
	res                     *outcome.Result
	logf                    func(string, ...any)
	feed                    *feed.Feed
	seq, total              int                     // measurements taken and planned
	vars                    map[string]string       // every run's (the calibrated wait)
	described               bool                    // the stats URL was read once (describe)
	genCores                []int                   // the load generator's CPUs (all when not pinned)
	recals                  int                     // calibrations redone
	recalTried              bool                    // a recalibration was tried (once at most)
	judge                   measure.Judge           // see judgeOf
	budget                  *measure.Budget         // see budgetOf
	quietChecked, tieBroken map[*outcome.Point]bool // points measured again, once each
}

// describe reads the stats URL once when the file names no readings: an
// endpoint without the target's own metrics is read as any Go service's.
func (x *experimentRunner) describe(ctx context.Context, url string) {
	if x.described || len(x.e.Stats.Stats) > 0 || x.e.Stats.Format == watch.JSON {
		return
	}
	x.described = true
	t, own, err := watch.Describe(ctx, url, x.e.Stats.Format, x.opt.Target)
	if err != nil || own {
		return
	}
	x.note("the stats URL serves Prometheus without the target's own metrics: it is read as any Go service's (process, runtime, GC)")
	x.opt.Target.Stats, x.opt.Target.Charts, x.opt.Target.States = t.Stats, t.Charts, t.States
	x.opt.Target.ProcessCPU, x.opt.Target.Limiting = t.ProcessCPU, nil
	x.opt.Target.Interference, x.opt.Target.Steal = t.Interference, t.Steal
	x.res.Stats = t.Stats
	x.watchInterference()
}

// note records s, once, in the result's notes, the log and the dashboard.
func (x *experimentRunner) note(s string) {
	if s == "" || slices.Contains(x.res.Notes, s) {
		return
	}
	x.res.Notes = append(x.res.Notes, s)
	x.logf("%s", s)
	x.feed.Note(s)
}

func (x *experimentRunner) start(ctx context.Context, run runSpec) (*serverRun, error) {
	rr := &outcome.Run{Name: run.Name, Vars: run.Vars}
	x.res.Runs = append(x.res.Runs, rr)
	return x.launch(ctx, run, rr)
}

// launch starts a server of run, recorded in rr, ready to load (prepare) or, for a cold start, listening.
func (x *experimentRunner) launch(ctx context.Context, run runSpec, rr *outcome.Run) (*serverRun, error) {
	e := x.e
	lr := &serverRun{run: run, dir: filepath.Join(x.opt.Out, outcome.FileName(run.Name)), rr: rr}
	if err := os.MkdirAll(lr.dir, 0o755); err != nil {
		return lr, err
	}
	ports, err := fleet.FreePorts(2)
	if err != nil {
		return lr, err
	}
	vars := map[string]string{"dir": lr.dir, "run": run.Name, "port": strconv.Itoa(ports[0]), "admin_port": strconv.Itoa(ports[1])}
	maps.Copy(vars, x.vars)
	maps.Copy(vars, run.Vars)
	if _, isFleet := e.fleetOf(run); isFleet { // it picks its own ports
		delete(vars, "port")
		delete(vars, "admin_port")
	}
	lr.vars = vars
	lr.x = func(s string) string { return expand(s, lr.vars) }
	return lr, x.startProcess(ctx, lr)
}

func (x *experimentRunner) startProcess(ctx context.Context, lr *serverRun) error {
	e, run, vars := x.e, lr.run, lr.vars
	fs, isFleet := e.fleetOf(run)
	argv := mapped(resolveCommand(slices.Concat(e.Server.Command, run.Args), e.Dir), lr.x)
	env := mapped(e.Server.Env, lr.x)
	lr.rr.Command = redactURLs(argv)
	if isFleet {
		if err := x.launchFleet(ctx, lr, fs, argv, env, vars); err != nil {
			x.hint(argv)
			return err
		}
		return x.prepare(ctx, lr)
	}

	x.logf("run %s: starting %s", run.Name, strings.Join(lr.rr.Command, " "))
	proc, pinNote, err := startServer(argv, env, e.Dir, filepath.Join(lr.dir, "server.log"), e.Server.CPUs, !x.opt.NoPin)
	x.note(pinNote)
	if err != nil {
		return err
	}
	lr.proc = proc
	if run.Start == startListening { // a cold start: nothing warms it
		addr, err := loadtest.DialAddr(lr.x(e.Load.Requests[0].URL))
		if err != nil {
			return err
		}
		if err := proc.waitListening(ctx, addr, time.Duration(e.Server.StartTimeout)); err != nil {
			x.hint(argv)
			return err
		}
		x.logf("run %s: port %s open, loading at once (cold start)", run.Name, addr)
		return nil
	}
	if err := proc.waitReady(ctx, lr.x(e.Server.Ready), time.Duration(e.Server.StartTimeout)); err != nil {
		x.hint(argv)
		return err
	}
	return x.prepare(ctx, lr)
}

func (x *experimentRunner) prepare(ctx context.Context, lr *serverRun) error {
	e := x.e
	if err := lr.reset(ctx, e); err != nil {
		return err
	}
	if e.Validate.Board != "" {
		if err := x.opt.Target.Validate(ctx, lr.x(e.Validate.Board)); err != nil {
			return fmt.Errorf("the server failed validation, so it was not loaded: %w", err)
		}
		x.logf("run %s: validation passed", lr.run.Name)
		if err := lr.reset(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// measure takes, judges and records one measurement (attempt of repeat rep) of a run at clients.
func (x *experimentRunner) measure(ctx context.Context, lr *serverRun, clients, rep, attempt int) (*outcome.Point, *outcome.Repeat, error) {
	e := x.e
	if e.Load.ResetEach && lr.steps > 0 {
		if err := lr.reset(ctx, e); err != nil {
			return nil, nil, err
		}
	}
	lr.steps++
	if lr.run.Clients > 0 {
		clients = lr.run.Clients
	}
	s, tw, err := x.stepSettings(ctx, lr, clients)
	if err != nil {
		return nil, nil, err
	}
	r, err := loadtest.Run(ctx, s)
	if err != nil {
		return nil, nil, fmt.Errorf("load %d clients: %w", clients, err)
	}
	x.seq++
	rr := lr.rr
	i := slices.IndexFunc(rr.Points, func(q *outcome.Point) bool { return q.Clients == clients })
	if i < 0 {
		i = len(rr.Points)
		rr.Points = append(rr.Points, &outcome.Point{Clients: clients})
	}
	p := rr.Points[i]
	seen, err := watch.Of(r)
	if err != nil {
		return nil, nil, err
	}
	rp := outcome.NewRepeat(x.seq, r, seen.Server)
	rp.Repeat, rp.Attempt, rp.Calibration = rep, attempt, x.recals
	if tw != nil {
		addTruth(rp, tw.truth, tw.err)
		if rp.TruthNote != "" {
			x.logf("run %s: truth: %s", lr.run.Name, rp.TruthNote)
		}
	}
	calibrationInForce(x.res).AddShare(rp.Server)
	srv, gen, in := x.spans(lr.cores(), r, rp.Server)
	x.judgeSpanOf(rp, srv, gen, in)
	addRepeat(p, rp, e.Load)
	for _, w := range r.Warnings {
		x.logf("run %s: %s", lr.run.Name, w)
	}
	x.logf("run %s: %s", lr.run.Name, x.stepText(lr, r, rp, clients))
	x.feed.Step(feed.StepOf(lr.run.Name, clients, r.Total),
		liveClaims(claim.Evaluate(e.Claims, x.res, e.Quick), false, pendingClaims(e.Claims, x.res, e.Load.Clients)))
	if err := x.writeSweep(lr); err != nil {
		return nil, nil, err
	}
	if r.Interrupted {
		return nil, nil, context.Canceled
	}
	return p, rp, x.profile(ctx, lr, clients, rp)
}

// profile takes the [profile] in a step of its own after rp's, under the
// same load: a profiler costs the server CPU (its samples, fgprof's walks
// of every stack), so the step it watches is never the one measured.
func (x *experimentRunner) profile(ctx context.Context, lr *serverRun, clients int, rp *outcome.Repeat) error {
	e := x.e
	if clients != e.profileAt() || e.Profile.URL == "" || len(e.Profile.Kinds) == 0 || rp.Disturbed {
		return nil // a disturbed measurement is taken again, and profiled then
	}
	prefix := filepath.Join(lr.dir, "profile")
	if rp.Repeat > 1 {
		prefix += fmt.Sprintf("-r%d", rp.Repeat)
	}
	if rp.Attempt > 1 {
		prefix += fmt.Sprintf("-a%d", rp.Attempt)
	}
	s := e.settings(lr.run, clients, lr.x)
	if e.Profile.Seconds > 0 {
		s.Duration = time.Duration(e.Profile.Seconds) * time.Second
	}
	w, err := x.watcher(lr, prefix)
	if err != nil {
		return fmt.Errorf("profile the server: %w", err)
	}
	s.Watcher = w
	r, err := loadtest.Run(ctx, s)
	if err != nil {
		return fmt.Errorf("profile at %d clients: %w", clients, err)
	}
	seen, err := watch.Of(r)
	if err != nil {
		return err
	}
	for _, pr := range seen.Profiles {
		pr.File, _ = filepath.Rel(x.opt.Out, pr.File)
		lr.rr.Profiles = append(lr.rr.Profiles, &outcome.StepProfile{ProfileSummary: pr, Clients: clients, Repeat: rp.Repeat, Seq: rp.Seq})
	}
	x.logf("run %s: %s profiled in a step of its own, %.1f/s", lr.run.Name, outcome.ClientsText(clients), r.Total.Throughput)
	if r.Interrupted {
		return context.Canceled
	}
	return nil
}

func (x *experimentRunner) stepSettings(ctx context.Context, lr *serverRun, clients int) (loadtest.Settings, *truthWatcher, error) {
	e := x.e
	s := e.settings(lr.run, clients, lr.x)
	if e.Stats.URL != "" {
		x.describe(ctx, lr.x(e.Stats.URL))
	}
	w, err := x.watcher(lr, "")
	if err != nil {
		return s, nil, fmt.Errorf("watch the server: %w", err)
	}
	s.Watcher, s.Observers = w, x.begin(lr, clients)
	if e.Truth.Start == "" {
		return s, nil, nil
	}
	tw := &truthWatcher{inner: s.Watcher, start: lr.x(e.Truth.Start), stop: lr.x(e.Truth.Stop)}
	s.Watcher = tw
	return s, tw, nil
}

func (x *experimentRunner) watcher(lr *serverRun, profilePrefix string) (loadtest.Watcher, error) {
	e := x.e
	o := watch.Options{Format: e.Stats.Format, EnvironmentKeys: e.Stats.EnvironmentKeys}
	if e.Stats.URL != "" && profilePrefix == "" { // a profile's step is not read
		o.StatsURL, o.Stats, o.OnRead = lr.x(e.Stats.URL), x.res.Stats, x.feed.OnRead
	}
	if p := e.Profile; profilePrefix != "" && p.URL != "" && len(p.Kinds) > 0 {
		o.ProfileURL, o.ProfileKinds, o.ProfilePrefix = lr.x(p.URL), p.Kinds, profilePrefix
		o.ProfileSeconds, o.ProfileBuckets, o.ProfileFocus = p.Seconds, p.Buckets, p.Focus
	}
	if rf := lr.fleet; rf != nil && rf.watch != nil {
		return rf.watcher(o)
	}
	return x.opt.Target.Watcher(o)
}

func (x *experimentRunner) stepText(lr *serverRun, r *loadtest.Result, rp *outcome.Repeat, clients int) string {
	t := r.Total
	var b strings.Builder
	fmt.Fprintf(&b, "%d clients: %.1f/s, mean %.2f ms, p99 %.2f ms, errors %d, generator CPU %s %%",
		clients, t.Throughput, t.MeanMs, t.P99Ms, t.Errors, r.Cost.CPUText("%.0f"))
	for _, rd := range x.e.Stats.Stats {
		if v, ok := rp.Server[rd.Name]; ok {
			fmt.Fprintf(&b, ", %s %.2f%s", rd.Name, v, outcome.UnitSuffix(rd.Unit))
		}
	}
	line := b.String()
	limiting, stats := x.opt.Target.Limiting, x.res.Stats
	if rf := lr.fleet; rf != nil && rf.watch != nil {
		limiting, stats = rf.target.Limiting, rf.stats(stats)
	}
	if limiting != nil {
		line += ", limit: " + limiting(byPath(rp.Server, stats))
	}
	if rp.Interference != nil {
		line += ", interference: " + rp.Interference.Text()
	}
	if rp.Disturbed {
		line += ": DISTURBED"
	}
	if rp.Attempt > 1 {
		line = fmt.Sprintf("attempt %d, %s", rp.Attempt, line)
	}
	if n := x.e.Load.Repeats; n > 1 {
		line = fmt.Sprintf("repeat %d/%d, %s", rp.Repeat, n, line)
	}
	return line
}

func (x *experimentRunner) writeSweep(lr *serverRun) error {
	return loadtest.WriteSweepJSON(filepath.Join(lr.dir, "sweep.json"), lr.run.Name, outcome.Results(lr.rr.Points))
}

func addRepeat(p *outcome.Point, rp *outcome.Repeat, l loadSpec) {
	p.Repeats = append(p.Repeats, rp)
	refresh(p, l)
}

// refresh takes p's figures, deadline shares and SLO over its used repeats.
func refresh(p *outcome.Point, l loadSpec) {
	p.Refresh()
	if p.Result == nil {
		return
	}
	if h := p.Result.Total.Histogram; h != nil {
		for _, d := range l.Deadlines {
			p.Within = append(p.Within, h.ShareWithin(time.Duration(d)))
		}
	}
	if objs, err := loadtest.ParseSLO(l.SLO); l.SLO != "" && err == nil { // checked when read
		p.SLO = loadtest.EvaluateSLO(p.Result, objs)
	}
}

func (e *Experiment) settings(r runSpec, clients int, x func(string) string) loadtest.Settings {
	s := e.runSettings(r)
	s.Name, s.Clients = r.Name, clients
	reqs := s.Requests
	s.Requests = make([]loadtest.Request, len(reqs))
	for i, q := range reqs {
		q.URL, q.Label = x(q.URL), x(q.Label)
		if q.Form != nil {
			q.Form = maps.Clone(q.Form)
			for k, v := range q.Form {
				q.Form[k] = x(v)
			}
		}
		s.Requests[i] = q
	}
	return s
}

func mapped(ss []string, f func(string) string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}
