package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"
)

// DefaultStatsReadings are the readings Settings.StatsURL takes when
// Settings.StatsReadings is empty. Their paths follow the board server's
// /admin/stats JSON (README.md, "/admin/stats JSON"); a path a server does
// not have is simply absent from the result.
var DefaultStatsReadings = []Reading{
	{Name: "server_cpu", Path: "machine.process_cpu.total", Kind: "gauge", Scale: 1, Unit: "% of a core"},
	{Name: "machine_cpu_idle", Path: "machine.cpu.idle", Kind: "gauge", Scale: 1, Unit: "%"},
	{Name: "server_core_busy", Path: "machine.own_cpus.busy", Kind: "gauge", Scale: 1, Unit: "%"},
	{Name: "machine_cpu_user", Path: "machine.cpu.user", Kind: "gauge", Scale: 1, Unit: "%"},
	{Name: "machine_cpu_system", Path: "machine.cpu.system", Kind: "gauge", Scale: 1, Unit: "%"},
	{Name: "machine_cpu_iowait", Path: "machine.cpu.iowait", Kind: "gauge", Scale: 1, Unit: "%"},
	// Occupancy is time-averaged from the board's state-seconds counters
	// (Little's law): a gauge sampled once a second inside a server pinned
	// to one core runs only when no request does, and reads 0 at full CPU.
	{Name: "workers_busy", Path: "workers.busy_seconds_total", Kind: "counter", Scale: 1},
	{Name: "workers_queued", Path: "workers.queued_seconds_total", Kind: "counter", Scale: 1},
	{Name: "worker_wait", Path: "workers.wait_seconds_total", Kind: "counter", PerRequest: true, Scale: 1000, Unit: "ms/request"},
	{Name: "pool_in_use", Path: "db_pool.in_use_seconds_total", Kind: "counter", Scale: 1},
	{Name: "pool_waiting", Path: "db_pool.acquire_waiting_seconds_total", Kind: "counter", Scale: 1},
	{Name: "pool_wait", Path: "db_pool.acquire_wait_seconds_total", Kind: "counter", PerRequest: true, Scale: 1000, Unit: "ms/request"},
	{Name: "db_network_wait", Path: "db_pool.network_wait_seconds_total", Kind: "counter", PerRequest: true, Scale: 1000, Unit: "ms/request"},
	{Name: "cpu_wait", Path: "runtime.sched_latency_seconds_total", Kind: "counter", PerRequest: true, Scale: 1000, Unit: "ms/request"},
	{Name: "pool_opened", Path: "db_pool.opened_total", Kind: "counter", Scale: 1, Unit: "/s"},
	{Name: "gc_cycles", Path: "gc.cycles", Kind: "counter", Scale: 1, Unit: "/s"},
	{Name: "goroutines", Path: "goroutines", Kind: "gauge", Scale: 1},
	{Name: "conn_established", Path: "connections.server.states.ESTABLISHED", Kind: "gauge", Scale: 1},
	{Name: "conn_time_wait", Path: "connections.server.states.TIME_WAIT", Kind: "gauge", Scale: 1},
	{Name: "conn_close_wait", Path: "connections.server.states.CLOSE_WAIT", Kind: "gauge", Scale: 1},
	{Name: "accept_queue", Path: "connections.server.listen.accept_queue", Kind: "gauge", Scale: 1},
}

// ServerReadings are the load target's own figures over the measured
// period of a run, read from its stats JSON every second.
type ServerReadings struct {
	// URL is the stats URL read.
	URL string `json:"url"`
	// Samples counts the successful reads; Failed the reads that failed
	// (unreachable, not 200, not JSON), LastError the last failure.
	Samples   int    `json:"samples"`
	Failed    int    `json:"failed,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// Values holds one entry per reading found in at least one sample, in
	// the order of the readings.
	Values []ServerValue `json:"values,omitempty"`
}

// A ServerValue is one reading over a run: the mean of a gauge, or a
// counter's increase per second (or per successful request).
type ServerValue struct {
	Name  string  `json:"name"`
	Path  string  `json:"path"`
	Kind  string  `json:"kind"`
	Unit  string  `json:"unit,omitempty"`
	Value float64 `json:"value"`
}

// Value returns the reading called name, if it was found.
func (s *ServerReadings) Value(name string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	for _, v := range s.Values {
		if v.Name == name {
			return v.Value, true
		}
	}
	return 0, false
}

// profilePaths maps a profile kind to its endpoint under Settings.ProfileURL.
var profilePaths = map[string]string{"cpu": "/pprof/profile", "fgprof": "/fgprof"}

// serverWatch reads the target's stats and takes its profiles during the
// measured period of one run.
type serverWatch struct {
	sampler *statsSampler
	url     string
	cancel  context.CancelFunc // stops the sampler
	wg      sync.WaitGroup

	mu       sync.Mutex
	profiles []*ProfileSummary
	warnings []string
}

// startServerWatch starts sampling and profiling at warmEnd; it returns
// nil when s asks for neither.
func startServerWatch(ctx context.Context, s Settings, warmEnd time.Time) *serverWatch {
	if s.StatsURL == "" && s.ProfileURL == "" {
		return nil
	}
	w := &serverWatch{url: s.StatsURL}
	sctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	if s.StatsURL != "" {
		readings := s.StatsReadings
		if len(readings) == 0 {
			readings = DefaultStatsReadings
		}
		w.sampler = newStatsSampler(s.StatsURL, readings)
		w.sampler.envKeys = s.StatsEnvironment
		if len(w.sampler.envKeys) == 0 {
			w.sampler.envKeys = DefaultStatsEnvironment
		}
		w.wg.Go(func() {
			if waitUntil(sctx, warmEnd) {
				w.sampler.run(sctx)
			}
		})
	}
	if s.ProfileURL != "" {
		secs := profileSeconds(s)
		for _, kind := range s.ProfileKinds {
			u := s.ProfileURL + profilePaths[kind] + fmt.Sprintf("?seconds=%d", secs)
			path := fmt.Sprintf("%s-%dclients-%s.pb.gz", s.ProfilePrefix, s.Clients, kind)
			w.wg.Go(func() {
				if !waitUntil(ctx, warmEnd) {
					return
				}
				// A stalled endpoint must not hold the run.
				pctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second+15*time.Second)
				defer cancel()
				err := fetchProfile(pctx, u, path)
				var sum *ProfileSummary
				if err == nil {
					sum, err = summarizeProfile(kind, path, 10, s.ProfileBuckets, s.ProfileFocus)
					if err != nil { // keep the file, say why there is no summary
						w.warn(fmt.Sprintf("%s profile %s: %v", kind, path, err))
						sum, err = &ProfileSummary{Kind: kind, File: path}, nil
					}
				}
				if err != nil {
					w.warn(fmt.Sprintf("%s profile: %v", kind, err))
					return
				}
				w.mu.Lock()
				w.profiles = append(w.profiles, sum)
				w.mu.Unlock()
			})
		}
	}
	return w
}

// profileSeconds is the length of the profiles: ProfileSeconds, else the
// measured duration in whole seconds, 1 to 30 (30 with a request budget
// only).
func profileSeconds(s Settings) int {
	if s.ProfileSeconds > 0 {
		return s.ProfileSeconds
	}
	d := s.Duration
	if d == 0 {
		d = s.MaxDuration - s.Warmup
	}
	return max(1, min(30, int(d/time.Second)))
}

func (w *serverWatch) warn(msg string) {
	w.mu.Lock()
	w.warnings = append(w.warnings, msg)
	w.mu.Unlock()
}

// endWindow stops sampling when the measured window ends, so that the
// readings cover the window and not the drain after it (profiles run their
// own length).
func (w *serverWatch) endWindow() {
	if w != nil {
		w.cancel()
	}
}

// finish stops sampling, waits for the profiles and returns the readings
// (nil without a stats URL), the profiles in kind order and warnings.
func (w *serverWatch) finish(successes int64, seconds float64) (*ServerReadings, []*ProfileSummary, []string) {
	w.cancel()
	w.wg.Wait()
	var sr *ServerReadings
	if w.sampler != nil {
		vals := w.sampler.result(successes, seconds)
		sp := w.sampler
		sp.mu.Lock()
		sr = &ServerReadings{URL: w.url, Samples: sp.n, Failed: sp.errors, LastError: sp.lastErr}
		sp.mu.Unlock()
		for _, rd := range sp.readings {
			if v, ok := vals[rd.Name]; ok {
				sr.Values = append(sr.Values, ServerValue{Name: rd.Name, Path: rd.Path, Kind: rd.Kind, Unit: rd.Unit, Value: v})
			}
		}
		if sr.Failed > 0 {
			w.warnings = append(w.warnings, fmt.Sprintf("server stats: %d of %d reads failed (last: %s)", sr.Failed, sr.Failed+sr.Samples, sr.LastError))
		}
	}
	profs := w.profiles
	sortProfiles(profs)
	return sr, profs, w.warnings
}

// environment returns the objects copied from the stats JSON, nil when
// none were (no stats URL, or no read succeeded).
func (w *serverWatch) environment() map[string]json.RawMessage {
	if w.sampler == nil {
		return nil
	}
	w.sampler.mu.Lock()
	defer w.sampler.mu.Unlock()
	return w.sampler.env
}

// sortProfiles orders profiles by kind (cpu before fgprof).
func sortProfiles(ps []*ProfileSummary) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Kind < ps[j].Kind })
}

// waitUntil waits until t; false when ctx ended first.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// validateServer checks and completes the server-reading settings.
func (s *Settings) validateServer() error {
	if len(s.StatsReadings) > 0 {
		rs := append([]Reading(nil), s.StatsReadings...)
		for i, r := range rs {
			if r.Kind != "gauge" && r.Kind != "counter" {
				return fmt.Errorf("stats reading %q: kind %q: want gauge or counter", r.Name, r.Kind)
			}
			if r.Scale == 0 {
				rs[i].Scale = 1
			}
		}
		s.StatsReadings = rs
	}
	if s.ProfileURL == "" {
		return nil
	}
	if len(s.ProfileKinds) == 0 {
		s.ProfileKinds = []string{"cpu"}
	}
	for _, k := range s.ProfileKinds {
		if profilePaths[k] == "" {
			return fmt.Errorf("profile kind %q: want cpu or fgprof", k)
		}
	}
	if s.ProfilePrefix == "" {
		s.ProfilePrefix = "loadtest"
	}
	return nil
}
