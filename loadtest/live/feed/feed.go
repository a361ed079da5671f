// Package feed turns a load run into the live dashboard's frames:
//
//	d, err := feed.Serve(ctx, "127.0.0.1:0")
//	defer d.Stop(os.Stderr)
//	f := d.NewFeed("a run")
//	settings.Observers = append(settings.Observers, f.Observer()) // the engine's seconds
//	opts.OnRead = f.OnRead                                          // the watcher's reads of the target
//	res, err := loadtest.Run(ctx, settings)
//
// The engine's rows and the watcher's reads become one live.Frame a second,
// so that the engine, the watcher and the dashboard stay unaware of each other.
package feed

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/watch"
)

// staleRead is the age past which a read is not drawn with a second.
const staleRead = 2500 * time.Millisecond

// A Feed publishes the frames of one experiment, run or sweep to a Hub;
// it is safe for concurrent use. Call New to get one.
type Feed struct {
	hub        *live.Hub
	experiment string
	start      time.Time

	mu        sync.Mutex
	pos       Position
	stepStart time.Time
	read      *watch.Read // the latest read of the current step
	err       error       // the first failed publication
	last      *live.Frame // the latest second's frame
	lastAt    time.Time
	sum       live.Summary // the steps published so far
	done      bool
}

// A Position says which step of which run is loading and the seconds planned
// for it and after it; a Phase ("calibrating") is no step and has no figures.
type Position struct {
	Run         string
	Step        int // 1-based
	Steps       int
	Clients     int
	StepSeconds float64
	After       float64
	Phase       string
}

// New returns a Feed of experiment publishing to h, its clock started now.
func New(h *live.Hub, experiment string) *Feed {
	return &Feed{hub: h, experiment: experiment, start: time.Now(), stepStart: time.Now()}
}

// Begin says a step starts now at p; the target's last read is forgotten.
func (f *Feed) Begin(p Position) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pos, f.stepStart, f.read = p, time.Now(), nil
}

// Observer feeds f a run's per-second rows.
func (f *Feed) Observer() loadtest.Observer { return loadtest.ObserverFunc(f.second) }

// OnRead keeps a watcher's read for the next second (Options.OnRead).
func (f *Feed) OnRead(r watch.Read) {
	f.mu.Lock()
	f.read = &r
	f.mu.Unlock()
}

func (f *Feed) second(row loadtest.SecondRow) {
	now := time.Now()
	f.mu.Lock()
	fr := live.Frame{Between: f.pos.Phase != ""}
	f.fill(&fr, now)
	if fr.Between {
		f.mu.Unlock()
		f.publish(fr)
		return
	}
	fr.Client = client(row)
	if r := f.read; r != nil && now.Sub(r.At) <= staleRead {
		for _, v := range r.Values(row.Throughput) {
			if v.Stat.Panel != "" && finite(v.Value) {
				fr.Server = append(fr.Server, live.Series{Name: v.Label, Unit: v.Stat.Unit, Panel: v.Stat.Panel, Value: v.Value, Dashed: v.Stat.Dashed})
			}
		}
		for _, rd := range r.Absent() {
			if rd.Panel != "" {
				fr.Server = append(fr.Server, live.Series{Name: cmp.Or(rd.Legend, rd.Name), Unit: rd.Unit, Panel: rd.Panel, Absent: true})
			}
		}
		for _, s := range r.States {
			if finite(s.Value) {
				fr.Doing = append(fr.Doing, live.Share{Name: s.Name, Value: s.Value})
			}
		}
	}
	f.last, f.lastAt = &fr, now
	f.mu.Unlock()
	f.publish(fr)
}

// lastSecond copies the figures of the second just published into fr, a
// step frame, else marks fr between the seconds. The caller holds f.mu.
func (f *Feed) lastSecond(fr *live.Frame, now time.Time) {
	if f.last == nil || now.Sub(f.lastAt) > time.Second {
		fr.Between = true
		return
	}
	fr.Client, fr.Server, fr.Doing = f.last.Client, f.last.Server, f.last.Doing
	f.last = nil // once: a later frame is a second without load
}

// fill sets the frame's time and progress. The caller holds f.mu.
func (f *Feed) fill(fr *live.Frame, now time.Time) {
	el := now.Sub(f.start).Seconds()
	left := f.pos.After + max(0, f.pos.StepSeconds-now.Sub(f.stepStart).Seconds())
	fr.T = el
	fr.Progress = live.Progress{Experiment: f.experiment, Run: f.pos.Run, Step: f.pos.Step, Steps: f.pos.Steps,
		Clients: f.pos.Clients, Elapsed: el, Left: max(0, left), Phase: f.pos.Phase}
}

func client(row loadtest.SecondRow) live.Client {
	c := live.Client{Throughput: row.Throughput}
	if row.Successes > 0 {
		c.P50, c.P90, c.P95, c.P99 = row.P50Ms, row.P90Ms, row.P95Ms, row.P99Ms
	}
	for _, k := range slices.Sorted(maps.Keys(row.ErrorKinds)) {
		c.Errors = append(c.Errors, live.Count{Kind: k, Count: row.ErrorKinds[k]})
	}
	return c
}

// StepOf is the step of run at clients whose measured figures are t.
func StepOf(run string, clients int, t loadtest.Stats) live.Step {
	return live.Step{Run: run, Clients: clients, Throughput: t.Throughput, P50: t.P50Ms, P99: t.P99Ms, Mean: t.MeanMs,
		Requests: t.Requests, Errors: t.Errors}
}

// Step publishes a completed step and the claims decidable so far.
func (f *Feed) Step(s live.Step, claims []live.Claim) {
	fr := live.Frame{Step: &s, Claims: claims}
	now := time.Now()
	f.mu.Lock()
	f.fill(&fr, now)
	f.lastSecond(&fr, now)
	f.count(s)
	f.mu.Unlock()
	f.publish(fr)
}

// count adds s to the summary that Done publishes. The caller holds f.mu.
func (f *Feed) count(s live.Step) {
	f.sum.Steps++
	f.sum.Requests += s.Requests
	f.sum.Errors += s.Errors
	if f.sum.Peak == nil || s.Throughput > f.sum.Peak.Throughput {
		f.sum.Peak = &s
	}
}

// Note publishes a note on a frame of its own, unless after Done.
func (f *Feed) Note(s string) {
	f.between(live.Frame{Between: true, Notes: []string{s}}, nil)
}

// Tune publishes a tuner's step on a frame of its own between the seconds;
// it counts in the headline as a measured step, its setting as the run.
func (f *Feed) Tune(p live.TunePoint) {
	f.between(live.Frame{Between: true, Tune: &p}, &live.Step{Run: fmt.Sprintf("%s: %d/%d", p.Path, p.Workers, p.Pool),
		Throughput: p.Throughput, P99: p.P99, Requests: p.Requests, Errors: p.Errors})
}

// between publishes fr and counts s, if given, unless after Done.
func (f *Feed) between(fr live.Frame, s *live.Step) {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return
	}
	if s != nil {
		s.Clients = f.pos.Clients
		f.count(*s)
	}
	f.fill(&fr, time.Now())
	f.mu.Unlock()
	f.publish(fr)
}

// Done publishes the last frame, closes the hub and returns Err.
func (f *Feed) Done(claims []live.Claim) error {
	fr := live.Frame{Claims: claims, Done: true, Between: true}
	f.mu.Lock()
	f.pos.After, f.pos.StepSeconds, f.pos.Phase = 0, 0, ""
	f.done = true
	f.fill(&fr, time.Now())
	sum := f.sum
	sum.Duration = fr.T
	fr.Summary = &sum
	f.mu.Unlock()
	f.publish(fr)
	f.hub.Close()
	return f.Err()
}

// Err returns the first publication that failed; the load goes on.
func (f *Feed) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *Feed) publish(fr live.Frame) {
	if err := f.hub.Publish(fr); err != nil {
		f.mu.Lock()
		if f.err == nil {
			f.err = fmt.Errorf("live dashboard: %w", err)
		}
		f.mu.Unlock()
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
