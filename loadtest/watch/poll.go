package watch

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// poller reads a target's stats every second and keeps their values.
type poller struct {
	url     string
	format  string // Auto until the first read settles it
	settled bool
	stats   []Stat
	sels    selectors
	client  *http.Client

	mu      sync.Mutex
	n       int
	acc     map[string]*accum // by stat name, for the stats found
	t0, t1  time.Time
	errors  int
	lastErr string

	envKeys []string
	env     map[string]json.RawMessage // copied at the first successful read

	// Once ended, the window takes only reads sent before endAt; done stops polls.
	ended    bool
	endAt    time.Time
	done     chan struct{}
	stopOnce sync.Once

	// Live reads (OnRead): the window starts at from; each later poll is a Read.
	onRead     func(Read)
	states     []State
	from       time.Time
	prev       map[string]sample
	prevStates map[string]float64
	prevT      time.Time
}

// accum adds up one stat's reads in the window.
type accum struct {
	first, last sample
	sum         float64 // gauges: each read's value
	per         float64 // each read's divisor (Stat.Per)
	n           int
}

// endWindow ends the window's stats now, and without live reads the polls.
func (s *poller) endWindow() {
	s.mu.Lock()
	s.ended, s.endAt = true, time.Now()
	s.mu.Unlock()
	if s.onRead == nil {
		s.stop()
	}
}

// stop ends the polls; a read in flight finishes and counts.
func (s *poller) stop() { s.stopOnce.Do(func() { close(s.done) }) }

func newPoller(url, format string, stats []Stat, sels selectors, envKeys []string) *poller {
	return &poller{url: url, format: cmp.Or(format, Auto), stats: stats, sels: sels, envKeys: envKeys,
		client: &http.Client{Timeout: 2 * time.Second}, done: make(chan struct{}), acc: map[string]*accum{}}
}

func (s *poller) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// Live reads start early: poll again as the window opens, for the same reads.
	var opens <-chan time.Time
	if d := time.Until(s.from); s.onRead != nil && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		opens = t.C
	}
	s.read(ctx, false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-opens:
			tick.Reset(time.Second)
			s.read(ctx, false)
		case <-tick.C:
			s.read(ctx, false)
		}
	}
}

// read reads the stats once; a last read is the window's however late.
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
	for name, v := range cur {
		a := s.acc[name]
		if a == nil {
			a = &accum{first: v}
			s.acc[name] = a
		}
		a.sum += v.v / v.per
		a.per += v.per
		a.n++
		a.last = v
	}
}

// settle fixes the format, and for Prometheus the scales; s.mu is held.
func (s *poller) settle(format string) {
	s.format, s.settled = format, true
	if format == Prometheus {
		s.stats = slices.Clone(s.stats)
		for i, r := range s.stats {
			s.stats[i].Scale = cmp.Or(r.MetricScale, r.Scale)
		}
	}
}

// liveRead hands the span since the previous poll to onRead; s.mu is held.
func (s *poller) liveRead(sc scrape, cur map[string]sample, now time.Time) {
	states := make(map[string]float64, len(s.states))
	for _, st := range s.states {
		if v, ok := sc.sample(Stat{Path: st.Path, Metric: st.Metric, Kind: Counter}, s.sels); ok {
			states[st.Name] = v.v
		}
	}
	if s.prev != nil {
		s.onRead(makeRead(s.stats, s.states, s.prev, cur, s.prevStates, states, s.prevT, now))
	}
	s.prev, s.prevStates, s.prevT = cur, states, now
}

// result turns the reads into one value per stat; per-request stats take
// successes, the successful requests in the window of seconds.
func (s *poller) result(successes int64, seconds float64) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	span := s.t1.Sub(s.t0).Seconds()
	for _, r := range s.stats {
		a, ok := s.acc[r.Name]
		if !ok {
			continue
		}
		switch a.first.kind {
		case Gauge:
			out[r.Name] = a.sum / float64(s.n) * r.Scale
		case Counter:
			d := (a.last.v - a.first.v) / (a.per / float64(a.n)) // by the divisor's mean
			switch {
			case r.PerRequest && successes > 0 && seconds > 0 && span > 0:
				// The requests of the sampled span, at an even rate.
				out[r.Name] = d / (float64(successes) * span / seconds) * r.Scale
			case span > 0:
				out[r.Name] = d / span * r.Scale
			}
		case Histogram:
			if v, ok := overSpan(r, a.first, a.last); ok {
				out[r.Name] = v * r.Scale
			}
		}
	}
	return out
}

// overSpan reads a histogram's mean (or r.Quantile) between two reads.
func overSpan(r Stat, prev, cur sample) (float64, bool) {
	if r.Quantile > 0 {
		return quantile(r.Quantile, prev.buckets, cur.buckets)
	}
	if dc := cur.count - prev.count; dc > 0 {
		return (cur.v - prev.v) / dc, true
	}
	return 0, false
}

// LookupNumber follows a dot-separated path of keys or indexes to a number.
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

func copyEnvironment(doc any, keys []string) map[string]json.RawMessage {
	m, _ := doc.(map[string]any)
	var out map[string]json.RawMessage
	for _, k := range keys {
		if v, ok := m[k]; ok {
			b, _ := json.Marshal(v) // decoded JSON always encodes again
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[k] = b
		}
	}
	return out
}
