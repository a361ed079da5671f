package bbs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"bbslab/entity"
	"bbslab/knob"
)

// maxKnobWait bounds ?wait=, how long a POST waits for its change to take
// effect before it answers; defaultKnobWait is its value when not given.
const (
	maxKnobWait     = time.Minute
	defaultKnobWait = 5 * time.Second
)

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

// knobChange is a POST to /admin/knobs, parsed: the knobs given by key
// (a duration in nanoseconds) and ?wait=.
type knobChange struct {
	v    map[string]int64
	wait time.Duration
}

// has reports whether any of keys was given.
func (ch knobChange) has(keys ...string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { _, ok := ch.v[k]; return ok })
}

// or is the value given for key, or def.
func or[T ~int | ~int64](ch knobChange, key string, def T) T {
	if v, ok := ch.v[key]; ok {
		return T(v)
	}
	return def
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
	ch, problems := parseKnobs(knob.Board, r.Form)
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
	if why, ok := fixed["workers"]; ok && ch.has("workers", "queue", "queue_timeout") {
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
	if ch.has("workers", "queue", "queue_timeout") {
		l := s.limit.settings()
		s.limit.set(or(ch, "workers", l.size), or(ch, "queue", l.queue), or(ch, "queue_timeout", l.timeout))
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
	if !ch.has("pool", "pool_min") {
		return 0, 0, false, nil
	}
	maxConns = or(ch, "pool", cur.Size)
	minConns = or(ch, "pool_min", maxConns)
	if err := knob.Board.Validate(map[string]int64{"pool_min": int64(minConns), "pool": int64(maxConns)}); err != nil {
		return 0, 0, false, err
	}
	return minConns, maxConns, true, nil
}

// parseKnobs reads a POST's keys: t's live knobs, each checked against
// the bounds a running board accepts, and wait. It returns every problem
// found.
func parseKnobs(t knob.Table, f url.Values) (knobChange, []string) {
	ch := knobChange{v: map[string]int64{}, wait: defaultKnobWait}
	var problems []string
	live := liveKeys(t)
	for k := range f {
		if !slices.Contains(live, k) && k != "wait" {
			problems = append(problems, fmt.Sprintf("unknown key %q: want %s, wait", k, strings.Join(live, ", ")))
		}
	}
	for _, d := range t {
		if v, ok := f[d.Key]; ok && d.Live {
			if n, err := d.ParseLive(strings.TrimSpace(first(v))); err != nil {
				problems = append(problems, err.Error())
			} else {
				ch.v[d.Key] = n
			}
		}
	}
	if v, ok := f["wait"]; ok {
		d, err := time.ParseDuration(strings.TrimSpace(first(v)))
		if err != nil || d < 0 || d > maxKnobWait {
			problems = append(problems, fmt.Sprintf("wait = %q: want a duration from 0s to %v", first(v), maxKnobWait))
		}
		ch.wait = d
	}
	if len(problems) == 0 && len(ch.v) == 0 {
		problems = append(problems, "give at least one of "+strings.Join(live, ", "))
	}
	slices.Sort(problems)
	return ch, problems
}

// liveKeys are the keys of the knobs of t a running board sets.
func liveKeys(t knob.Table) []string {
	var keys []string
	for _, d := range t {
		if d.Live {
			keys = append(keys, d.Key)
		}
	}
	return keys
}

// first is a form value's first entry, "" when it has none.
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// knobDesc is the gauge of a knob /admin/knobs sets, its value in force,
// named and described by its declaration in knob.Board.
func knobDesc(key, more string) *prometheus.Desc {
	d := knob.Board.Get(key)
	help := fmt.Sprintf("%s%s (%s in force; /admin/knobs may change it). %s", strings.ToUpper(d.Help[:1]), d.Help[1:], d.Key, more)
	return prometheus.NewDesc(d.Metric, strings.TrimSpace(help), nil, nil)
}
