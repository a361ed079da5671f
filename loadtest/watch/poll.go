package watch

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// poller reads a target's stats (JSON or Prometheus text) every second
// and keeps the values of its stats.
type poller struct {
	url     string
	format  string // Auto until the first read settles it
	settled bool
	stats   []Stat
	sels    selectors
	client  *http.Client

	mu      sync.Mutex
	n       int
	sums    map[string]float64 // gauges: the sum of each read's value
	pers    map[string]float64 // the sum of each read's divisor (Stat.Per)
	pn      map[string]int     // reads that found the stat
	first   map[string]sample
	last    map[string]sample
	t0, t1  time.Time
	errors  int
	lastErr string

	envKeys []string                   // objects to copy (Options.EnvironmentKeys)
	env     map[string]json.RawMessage // copied at the first successful read

	// The window's stats take the reads sent before endAt once ended;
	// done stops the polls (a read in flight goes on).
	ended    bool
	endAt    time.Time
	done     chan struct{}
	stopOnce sync.Once

	// Live reads (Options.OnRead): the window's stats take only the polls
	// from from on; every poll after the first makes a Read.
	onRead     func(Read)
	states     []State
	from       time.Time
	prev       map[string]sample  // the previous poll's stats by name
	prevStates map[string]float64 // and its states by name
	prevT      time.Time
}

// live makes the poller hand every poll's per-second values to onRead,
// and keep for the window's stats only the polls from from on.
func (s *poller) live(from time.Time, states []State, onRead func(Read)) {
	s.from, s.states, s.onRead = from, states, onRead
}

// endWindow ends the window's stats now: a read sent after this is not
// the window's, one in flight is (its counters were read as it was
// sent). Without live reads it also stops the polls; with them they go
// on until stop.
func (s *poller) endWindow() {
	s.mu.Lock()
	s.ended, s.endAt = true, time.Now()
	s.mu.Unlock()
	if s.onRead == nil {
		s.stop()
	}
}

// stop ends the polls; a read in flight finishes (within the client's
// timeout), so that a slow endpoint's last read of the window counts.
func (s *poller) stop() { s.stopOnce.Do(func() { close(s.done) }) }

// newPoller returns a poller of url in format for stats (their selectors
// parsed in sels) that copies the objects named by envKeys at its first
// successful read.
func newPoller(url, format string, stats []Stat, sels selectors, envKeys []string) *poller {
	return &poller{url: url, format: cmp.Or(format, Auto), stats: stats, sels: sels, envKeys: envKeys, client: &http.Client{Timeout: 2 * time.Second},
		done: make(chan struct{}), sums: map[string]float64{}, pers: map[string]float64{}, pn: map[string]int{}, first: map[string]sample{}, last: map[string]sample{}}
}

// run polls every second until ctx ends.
func (s *poller) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// Live reads start before the window: poll again when it opens and
	// keep the beat from there, so that the window's stats have the same
	// reads as without live reads.
	var opens <-chan time.Time
	if d := time.Until(s.from); s.onRead != nil && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		opens = t.C
	}
	s.poll(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-opens:
			tick.Reset(time.Second)
			s.poll(ctx)
		case <-tick.C:
			s.poll(ctx)
		}
	}
}

// poll reads the stats once.
func (s *poller) poll(ctx context.Context) { s.read(ctx, false) }

// read reads the stats once; a last read (EndWindow's) is the window's
// however late it is sent.
func (s *poller) read(ctx context.Context, last bool) {
	s.mu.Lock()
	format := s.format
	s.mu.Unlock()
	sc, now, err := fetch(ctx, s.client, s.url, format)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			s.errors++
			s.lastErr = err.Error()
		}
		return
	}
	if !s.settled {
		s.settle(sc.format())
	}
	cur := make(map[string]sample, len(s.stats))
	for _, r := range s.stats {
		if v, ok := sc.sample(r, s.sels); ok {
			cur[r.Name] = v
		}
	}
	if s.onRead != nil {
		s.liveRead(sc, cur, now)
	}
	if s.ended && !last && !now.Before(s.endAt) || s.onRead != nil && now.Before(s.from) {
		return // outside the measured window
	}
	if s.n == 0 {
		s.t0 = now
		if j, ok := sc.(jsonScrape); ok {
			s.env = copyEnvironment(j.doc, s.envKeys)
		}
	}
	s.t1 = now
	s.n++
	for _, r := range s.stats {
		v, ok := cur[r.Name]
		if !ok {
			continue
		}
		s.sums[r.Name] += v.v / v.per
		s.pers[r.Name] += v.per
		s.pn[r.Name]++
		if _, seen := s.first[r.Name]; !seen {
			s.first[r.Name] = v
		}
		s.last[r.Name] = v
	}
}

// settle fixes the format at the first successful read and, for
// Prometheus, each stat's scale there (Stat.MetricScale). The caller holds
// s.mu.
func (s *poller) settle(format string) {
	s.format, s.settled = format, true
	if format != Prometheus {
		return
	}
	stats := make([]Stat, len(s.stats))
	for i, r := range s.stats {
		if r.MetricScale != 0 {
			r.Scale = r.MetricScale
		}
		stats[i] = r
	}
	s.stats = stats
}

// liveRead hands the span since the previous poll to onRead. The caller
// holds s.mu; onRead must return quickly (Options.OnRead).
func (s *poller) liveRead(sc scrape, cur map[string]sample, now time.Time) {
	states := make(map[string]float64, len(s.states))
	for _, st := range s.states {
		if v, ok := sc.state(st, s.sels); ok {
			states[st.Name] = v
		}
	}
	if s.prev != nil {
		s.onRead(makeRead(s.stats, s.states, s.prev, cur, s.prevStates, states, s.prevT, now))
	}
	s.prev, s.prevStates, s.prevT = cur, states, now
}

// result turns the reads into one value per stat; successes is the
// number of successful requests in the measured window of seconds, for
// per-request stats.
func (s *poller) result(successes int64, seconds float64) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	span := s.t1.Sub(s.t0).Seconds()
	for _, r := range s.stats {
		first, ok := s.first[r.Name]
		if !ok {
			continue
		}
		last := s.last[r.Name]
		switch first.kind {
		case Gauge:
			out[r.Name] = s.sums[r.Name] / float64(s.n) * r.Scale
		case Counter:
			// A divisor (Stat.Per) is taken as its mean over the reads.
			d := (last.v - first.v) / (s.pers[r.Name] / float64(s.pn[r.Name]))
			switch {
			case r.PerRequest && successes > 0 && seconds > 0 && span > 0:
				// Requests that finished in the sampled span, assuming an
				// even rate over the step.
				out[r.Name] = d / (float64(successes) * span / seconds) * r.Scale
			case span > 0:
				out[r.Name] = d / span * r.Scale
			}
		case Histogram:
			if v, ok := overSpan(r, first, last); ok {
				out[r.Name] = v * r.Scale
			}
		}
	}
	return out
}

// kinds returns each found stat's kind as read (a Prometheus metric's
// type decides it).
func (s *poller) kinds() map[string]string {
	out := make(map[string]string, len(s.first))
	for name, f := range s.first {
		out[name] = f.kind
	}
	return out
}

// overSpan reads a histogram between two reads: the mean of the
// observations in between, or with r.Quantile their quantile.
func overSpan(r Stat, prev, cur sample) (float64, bool) {
	if r.Quantile > 0 {
		return quantile(r.Quantile, prev.buckets, cur.buckets)
	}
	if dc := cur.count - prev.count; dc > 0 {
		return (cur.v - prev.v) / dc, true
	}
	return 0, false
}

// LookupNumber follows a dot-separated path of object keys (or array
// indexes) to a number.
func LookupNumber(doc any, path string) (float64, bool) {
	cur := doc
	for _, key := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(c) {
				return 0, false
			}
			cur = c[i]
		default:
			return 0, false
		}
	}
	switch v := cur.(type) {
	case float64:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// copyEnvironment returns the objects of doc (a decoded JSON object) named
// by keys, each re-encoded as it was.
func copyEnvironment(doc any, keys []string) map[string]json.RawMessage {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	var out map[string]json.RawMessage
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue // decoded JSON always encodes again
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k] = b
	}
	return out
}
