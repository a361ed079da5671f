package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"bbslab/loadtest"
)

// Options say what to watch; Target.Watcher fills in the rest.
type Options struct {
	// StatsURL, when set, is read every second in Format; Stats are kept.
	StatsURL string
	Format   string
	Stats    []Stat
	// EnvironmentKeys names the stats JSON's objects copied to the result.
	EnvironmentKeys []string
	// ProfileURL is the profile endpoints' base; one of each of ProfileKinds
	// (default cpu) is saved as PREFIX-<clients>clients-<kind>.pb.gz.
	ProfileURL    string
	ProfileKinds  []string
	ProfilePrefix string
	// ProfileSeconds is their length (0: the measured one); Buckets and Focus split them.
	ProfileSeconds int
	ProfileBuckets []Bucket
	ProfileFocus   string
	// OnRead gets every poll and must return quickly; Read.States has States'.
	OnRead func(Read)
	States []State
}

// A Watcher polls a target's stats and takes its profiles during each run.
type Watcher struct {
	o    Options
	sels selectors
}

// New checks o, fills in its defaults and returns its Watcher.
func New(o Options) (*Watcher, error) {
	if err := CheckFormat(o.Format); err != nil {
		return nil, err
	}
	sels := selectors{}
	o.Stats = slices.Clone(o.Stats)
	for i, r := range o.Stats {
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("stats reading %d: %w", i+1, err)
		}
		sels.add(r.Metric, r.Per) // parsed by Check: no error
		o.Stats[i].Kind, o.Stats[i].Scale = cmp.Or(r.Kind, Gauge), cmp.Or(r.Scale, 1)
	}
	if err := checkStates(o.States); err != nil {
		return nil, err
	}
	for _, st := range o.States {
		if err := sels.add(st.Metric); err != nil {
			return nil, fmt.Errorf("state %q: %w", st.Name, err)
		}
	}
	if o.ProfileURL != "" {
		if len(o.ProfileKinds) == 0 {
			o.ProfileKinds = []string{"cpu"}
		}
		for _, k := range o.ProfileKinds {
			if profilePaths[k] == "" {
				return nil, fmt.Errorf("profile kind %q: want cpu or fgprof", k)
			}
		}
		o.ProfilePrefix = cmp.Or(o.ProfilePrefix, "loadtest")
	}
	if o.ProfileSeconds < 0 || o.ProfileSeconds > 30 {
		return nil, fmt.Errorf("profile seconds %d: want 0 (the measured duration) to 30", o.ProfileSeconds)
	}
	if o.StatsURL == "" && o.ProfileURL == "" {
		return nil, errors.New("nothing to watch: give a stats URL or a profile URL")
	}
	return &Watcher{o: o, sels: sels}, nil
}

var profilePaths = map[string]string{"cpu": "/pprof/profile", "fgprof": "/fgprof"}

// watch polls and profiles the target during one run.
type watch struct {
	o       Options
	poller  *poller // nil without a stats URL
	warmEnd time.Time
	cancel  context.CancelFunc // stops the poller
	wg      sync.WaitGroup

	mu       sync.Mutex
	profiles []*ProfileSummary
	warnings []string
}

// Start starts polling and profiling a run of s at warmEnd (loadtest.Watcher).
func (wr *Watcher) Start(ctx context.Context, s loadtest.Settings, warmEnd time.Time) loadtest.Watch {
	o := wr.o
	w := &watch{o: o, warmEnd: warmEnd}
	sctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	if o.StatsURL != "" {
		w.poller = newPoller(o.StatsURL, o.Format, o.Stats, wr.sels, o.EnvironmentKeys)
		// Live reads poll the whole run; the window's stats start at warmEnd.
		w.poller.from, w.poller.states, w.poller.onRead = warmEnd, o.States, o.OnRead
		w.wg.Go(func() {
			if o.OnRead != nil || waitUntil(sctx, warmEnd, w.poller.done) {
				w.poller.run(sctx)
			}
		})
	}
	if o.ProfileURL != "" {
		secs := profileSeconds(o, s)
		for _, kind := range o.ProfileKinds {
			u := o.ProfileURL + profilePaths[kind] + fmt.Sprintf("?seconds=%d", secs)
			path := fmt.Sprintf("%s-%dclients-%s.pb.gz", o.ProfilePrefix, s.Clients, kind)
			w.wg.Go(func() {
				if waitUntil(ctx, warmEnd, nil) {
					w.profile(ctx, kind, u, path, secs)
				}
			})
		}
	}
	return w
}

// profile saves one profile of kind from u to path and keeps its summary.
func (w *watch) profile(ctx context.Context, kind, u, path string, secs int) {
	// A stalled endpoint must not hold the run.
	ctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second+15*time.Second)
	defer cancel()
	if err := fetchProfile(ctx, u, path); err != nil {
		w.warn(fmt.Sprintf("%s profile: %v", kind, err))
		return
	}
	sum, err := summarizeProfile(kind, path, 10, w.o.ProfileBuckets, w.o.ProfileFocus)
	if err != nil { // keep the file, say why there is no summary
		w.warn(fmt.Sprintf("%s profile %s: %v", kind, path, err))
		sum = &ProfileSummary{Kind: kind, File: path}
	}
	w.mu.Lock()
	w.profiles = append(w.profiles, sum)
	w.mu.Unlock()
}

// profileSeconds is ProfileSeconds, else the measured seconds, 1 to 30.
func profileSeconds(o Options, s loadtest.Settings) int {
	if o.ProfileSeconds > 0 {
		return o.ProfileSeconds
	}
	d := cmp.Or(s.Duration, s.MaxDuration-s.Warmup)
	return max(1, min(30, int(d/time.Second)))
}

func (w *watch) warn(msg string) {
	w.mu.Lock()
	w.warnings = append(w.warnings, msg)
	w.mu.Unlock()
}

// EndWindow ends the stats' window, leaving out the drain after it. Without
// live reads the stats are read once more: a short window has few reads.
func (w *watch) EndWindow() {
	p := w.poller
	if p == nil {
		return
	}
	p.endWindow()
	if p.onRead != nil || time.Now().Before(w.warmEnd) { // live, or no window
		return
	}
	w.wg.Go(func() { p.read(context.Background(), true) }) // bounded by the poller's client timeout
}

// Finish stops polling, waits for the profiles and returns what it saw.
func (w *watch) Finish(successes int64, seconds float64) loadtest.Watched {
	if w.poller != nil {
		w.poller.stop() // a read in flight finishes: the window's last may be slow
	}
	w.wg.Wait()
	w.cancel()
	var out loadtest.Watched
	var seen Seen
	if p := w.poller; p != nil {
		vals := p.result(successes, seconds)
		p.mu.Lock()
		sr := &ServerStats{URL: w.o.StatsURL, Reads: p.n, Failed: p.errors, LastError: p.lastErr}
		if p.format != Auto {
			sr.Format = p.format
		}
		out.Environment = p.env
		var missing []string
		for _, rd := range p.stats {
			if v, ok := vals[rd.Name]; ok {
				sv := ServerValue{Name: rd.Name, Path: rd.Path, Kind: p.acc[rd.Name].first.kind, Unit: rd.Unit, Value: v}
				if sr.Format == Prometheus {
					sv.Path, sv.Metric, sv.Quantile = "", rd.Metric, rd.Quantile
				}
				sr.Values = append(sr.Values, sv)
			} else if !rd.Optional {
				missing = append(missing, rd.Name)
			}
		}
		p.mu.Unlock()
		if sr.Failed > 0 {
			w.warnings = append(w.warnings, fmt.Sprintf("server stats: %d of %d reads failed (last: %s)", sr.Failed, sr.Failed+sr.Reads, sr.LastError))
		}
		if sr.Reads > 0 && len(missing) > 0 {
			w.warnings = append(w.warnings, fmt.Sprintf("server stats: unavailable on this target: %s", strings.Join(missing, ", ")))
		}
		seen.Server = sr
	}
	sort.SliceStable(w.profiles, func(i, j int) bool { return w.profiles[i].Kind < w.profiles[j].Kind })
	seen.Profiles = w.profiles
	var err error
	if out.Server, out.Profiles, err = seen.encode(); err != nil {
		w.warnings = append(w.warnings, err.Error())
	}
	out.Warnings = w.warnings
	return out
}

// waitUntil waits until t; false when ctx ended or stop closed first.
func waitUntil(ctx context.Context, t time.Time, stop <-chan struct{}) bool {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		return ctx.Err() == nil
	case <-stop:
	case <-ctx.Done():
	}
	return false
}
