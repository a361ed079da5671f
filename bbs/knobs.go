package bbs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"bbslab/entity"
)

// The bounds of the knobs set while the board runs, as config's Validate
// bounds them at start-up (TestKnobBoundsMatchConfig holds them equal),
// but for 0 workers (no limit) and pool_min 0 (= pool), which only a start
// can set.
const (
	maxWorkers      = 100_000
	maxQueue        = 1_000_000
	maxQueueTimeout = time.Hour
	maxPool         = 10_000
	// maxKnobWait bounds ?wait=, how long a POST waits for its change to
	// take effect before it answers.
	maxKnobWait = time.Minute
)

// defaultKnobWait is how long a POST waits for its change to take effect
// when it gives no ?wait=.
const defaultKnobWait = 5 * time.Second

// knobKeys are the keys /admin/knobs takes, the TOML keys of the same
// knobs, and wait.
var knobKeys = []string{"workers", "queue", "queue_timeout", "pool", "pool_min", "wait"}

// poolNoneFixed says why a pool in mode none cannot change while it runs.
const poolNoneFixed = `pool_mode = "none" opens a connection per acquire and keeps none: its cap cannot change while the board runs; restart the board with -pool N`

// knobState is what the board remembers of the changes made through
// /admin/knobs.
type knobState struct {
	busy chan struct{} // one change at a time

	mu        sync.Mutex
	changes   int64
	changedAt time.Time
}

func newKnobState() knobState { return knobState{busy: make(chan struct{}, 1)} }

// KnobStats is the JSON of /admin/knobs and the "knobs" object of
// /admin/stats: the worker limit, its queue and the pool in force, by
// their TOML keys, and when they took effect.
type KnobStats struct {
	Workers             int     `json:"workers"` // 0 = no limit (set at start only)
	Queue               int     `json:"queue"`
	QueueTimeout        string  `json:"queue_timeout"`
	QueueTimeoutSeconds float64 `json:"queue_timeout_seconds"`
	Pool                int     `json:"pool"`
	PoolMin             int     `json:"pool_min"`
	PoolMode            string  `json:"pool_mode"` // "fixed" (min = max), "grow", "none", or the store's
	// Changes counts the POSTs that changed the knobs; ChangedAt is when
	// the last one was applied (absent before the first).
	Changes   int64      `json:"changes_total"`
	ChangedAt *time.Time `json:"changed_at,omitempty"`
	// EffectiveAt is when the settings in force took full effect: no
	// worker busy above the limit, no connection open above the pool (the
	// board's start until a change); absent while Pending says what is
	// still above them.
	EffectiveAt *time.Time `json:"effective_at,omitempty"`
	Pending     []string   `json:"pending"`
	// Fixed names the knobs that cannot change while this board runs, each
	// with why: restart the board to change them.
	Fixed map[string]string `json:"fixed,omitempty"`
}

// knobStats reads the knobs in force and how the board stands against
// them.
func (s *Server) knobStats() KnobStats {
	l := s.limit.settings()
	p := s.store.Stats()
	s.knobs.mu.Lock()
	changes, changedAt := s.knobs.changes, s.knobs.changedAt
	s.knobs.mu.Unlock()
	k := KnobStats{
		Workers: l.size, Queue: l.queue, QueueTimeout: l.timeout.String(), QueueTimeoutSeconds: l.timeout.Seconds(),
		Pool: p.Size, PoolMin: p.Min, PoolMode: p.Mode, Changes: changes, Pending: []string{},
	}
	if l.over > 0 {
		k.Pending = append(k.Pending, fmt.Sprintf("%d requests hold a worker above the limit of %d: each worker is retired when its command ends", l.over, l.size))
	}
	if p.Draining > 0 {
		k.Pending = append(k.Pending, fmt.Sprintf("%d connections above the pool's %d are in use: each is closed when given back", p.Draining, p.Size))
	}
	if !changedAt.IsZero() {
		t := changedAt.UTC()
		k.ChangedAt = &t
	}
	if len(k.Pending) == 0 {
		t := s.started
		for _, at := range []time.Time{changedAt, l.settled, p.Settled} {
			if at.After(t) {
				t = at
			}
		}
		t = t.UTC()
		k.EffectiveAt = &t
	}
	if why := s.fixedKnobs(p); len(why) > 0 {
		k.Fixed = why
	}
	return k
}

// fixedKnobs says which knobs cannot change while this board runs, and
// why, for KnobStats.Fixed and the 409 answers.
func (s *Server) fixedKnobs(p entity.PoolStats) map[string]string {
	why := map[string]string{}
	if s.limit.unlimited {
		why["workers"] = "the board started with workers = 0 (no limit), which counts no workers: restart it with -workers N to set a limit"
	}
	if _, ok := s.opt.Store.(entity.Resizable); !ok {
		why["pool"] = "this store cannot change its pool while it runs: restart the board with -pool N"
	} else if p.Mode == entity.PoolNone {
		why["pool"] = poolNoneFixed
	}
	return why
}

// handleKnobs answers GET with the knobs in force and sets them on POST.
func (s *Server) handleKnobs(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, s.knobStats())
	case http.MethodPost:
		s.setKnobs(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeJSON(w, http.StatusMethodNotAllowed, jsonError{Status: 405, Error: "/admin/knobs: GET reads the knobs, POST sets them"})
	}
}

// knobChange is a POST to /admin/knobs, parsed: nil for a knob not given.
type knobChange struct {
	workers, queue, pool, poolMin *int
	timeout                       *time.Duration
	wait                          time.Duration
}

// setKnobs applies a POST: every key is checked first and a bad one
// changes nothing (400); a knob this board cannot change live answers 409;
// the pool changes first (its new connections opened before they count),
// then the worker limit. It answers 200 once the change took effect, or
// 202 with what is pending when ?wait= ran out first.
func (s *Server) setKnobs(w http.ResponseWriter, r *http.Request) {
	fail := func(code int, msg string) { writeJSON(w, code, jsonError{Status: code, Error: msg}) }
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "the form cannot be parsed: "+formProblem(err))
		return
	}
	ch, problems := parseKnobs(r.Form)
	if len(problems) > 0 {
		fail(http.StatusBadRequest, strings.Join(problems, "; ")+": nothing changed")
		return
	}
	cur := s.store.Stats()
	minConns, maxConns, resize, err := ch.poolSizes(cur)
	if err != nil {
		fail(http.StatusBadRequest, err.Error()+": nothing changed")
		return
	}
	fixed := s.fixedKnobs(cur)
	if why, ok := fixed["workers"]; ok && (ch.workers != nil || ch.queue != nil || ch.timeout != nil) {
		fail(http.StatusConflict, "workers, queue, queue_timeout: "+why+"; nothing changed")
		return
	}
	if why, ok := fixed["pool"]; ok && resize {
		fail(http.StatusConflict, "pool: "+why+"; nothing changed")
		return
	}
	select {
	case s.knobs.busy <- struct{}{}:
		defer func() { <-s.knobs.busy }()
	case <-r.Context().Done():
		return
	}
	if resize {
		if code, msg := s.resizePool(r.Context(), minConns, maxConns); code != 0 {
			fail(code, msg)
			return
		}
	}
	if ch.workers != nil || ch.queue != nil || ch.timeout != nil {
		l := s.limit.settings()
		s.limit.set(deref(ch.workers, l.size), deref(ch.queue, l.queue), deref(ch.timeout, l.timeout))
	}
	s.knobs.mu.Lock()
	s.knobs.changes++
	s.knobs.changedAt = time.Now()
	s.knobs.mu.Unlock()
	k := s.waitForKnobs(r.Context(), ch.wait)
	s.log.Info("knobs set", "workers", k.Workers, "queue", k.Queue, "queue_timeout", k.QueueTimeout,
		"pool", k.Pool, "pool_min", k.PoolMin, "pending", strings.Join(k.Pending, "; "))
	code := http.StatusOK
	if len(k.Pending) > 0 {
		code = http.StatusAccepted
	}
	writeJSON(w, code, k)
}

// resizePool resizes the store's pool and returns 0 and "" when it did,
// else the status and message of why nothing changed.
func (s *Server) resizePool(ctx context.Context, minConns, maxConns int) (int, string) {
	err := s.opt.Store.(entity.Resizable).Resize(ctx, minConns, maxConns)
	switch {
	case err == nil:
		return 0, ""
	case errors.Is(err, entity.ErrNotResizable):
		return http.StatusConflict, "pool: " + poolNoneFixed + "; nothing changed"
	}
	code, msg := classify(err)
	s.log.Error("knobs: pool resize failed", "pool_min", minConns, "pool", maxConns, "err", err)
	if code == http.StatusInternalServerError {
		code, msg = http.StatusServiceUnavailable, "the new connections could not be opened"
	}
	return code, fmt.Sprintf("pool: %s (pool_min %d, pool %d); nothing changed", msg, minConns, maxConns)
}

// waitForKnobs reads the knobs until nothing is pending, for at most wait.
func (s *Server) waitForKnobs(ctx context.Context, wait time.Duration) KnobStats {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(wait)
	for {
		k := s.knobStats()
		if len(k.Pending) == 0 || !time.Now().Before(end) {
			return k
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return k
		}
	}
}

// poolSizes says what a change does to the pool: pool alone sets min =
// max; pool_min alone keeps the maximum in force.
func (ch knobChange) poolSizes(cur entity.PoolStats) (minConns, maxConns int, resize bool, err error) {
	if ch.pool == nil && ch.poolMin == nil {
		return 0, 0, false, nil
	}
	maxConns = deref(ch.pool, cur.Size)
	minConns = maxConns
	if ch.poolMin != nil {
		minConns = *ch.poolMin
	} else if ch.pool == nil {
		minConns = cur.Min
	}
	if minConns > maxConns {
		return 0, 0, false, fmt.Errorf("pool_min = %d is above pool = %d: want pool_min <= pool", minConns, maxConns)
	}
	return minConns, maxConns, true, nil
}

// parseKnobs reads a POST's keys, each checked against its bounds; it
// returns every problem found.
func parseKnobs(f url.Values) (knobChange, []string) {
	var ch knobChange
	var problems []string
	for k := range f {
		if !slices.Contains(knobKeys, k) {
			problems = append(problems, fmt.Sprintf("unknown key %q: want %s", k, strings.Join(knobKeys, ", ")))
		}
	}
	whole := func(key string, lo, hi int, also string) *int {
		v, ok := f[key]
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(first(v)))
		if err != nil || n < lo || n > hi {
			problems = append(problems, fmt.Sprintf("%s = %q: want a whole number from %d to %d%s", key, first(v), lo, hi, also))
			return nil
		}
		return &n
	}
	ch.workers = whole("workers", 1, maxWorkers, " (0, no limit, only at start)")
	ch.queue = whole("queue", 0, maxQueue, "")
	ch.pool = whole("pool", 1, maxPool, "")
	ch.poolMin = whole("pool_min", 1, maxPool, " (leave it out for pool_min = pool)")
	if v, ok := f["queue_timeout"]; ok {
		d, err := time.ParseDuration(strings.TrimSpace(first(v)))
		if err != nil || d <= 0 || d > maxQueueTimeout {
			problems = append(problems, fmt.Sprintf("queue_timeout = %q: want a duration above 0s and at most %v, such as 5s", first(v), maxQueueTimeout))
		} else {
			ch.timeout = &d
		}
	}
	ch.wait = defaultKnobWait
	if v, ok := f["wait"]; ok {
		d, err := time.ParseDuration(strings.TrimSpace(first(v)))
		if err != nil || d < 0 || d > maxKnobWait {
			problems = append(problems, fmt.Sprintf("wait = %q: want a duration from 0s to %v", first(v), maxKnobWait))
		}
		ch.wait = d
	}
	if len(problems) == 0 && ch.workers == nil && ch.queue == nil && ch.timeout == nil && ch.pool == nil && ch.poolMin == nil {
		problems = append(problems, "give at least one of workers, queue, queue_timeout, pool, pool_min")
	}
	slices.Sort(problems)
	return ch, problems
}

// first is a form value's first entry, "" when it has none.
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// deref is *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
