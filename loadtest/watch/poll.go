package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// poller reads a target's stats JSON every second and keeps the values of
// its stats.
type poller struct {
	url    string
	stats  []Stat
	client *http.Client

	mu      sync.Mutex
	n       int
	sums    map[string]float64
	first   map[string]float64
	last    map[string]float64
	t0, t1  time.Time
	errors  int
	lastErr string

	envKeys []string                   // objects to copy (Options.EnvironmentKeys)
	env     map[string]json.RawMessage // copied at the first successful read

	// Live reads (Options.OnRead): the window's stats take only the polls
	// from from until ended; every poll after the first makes a Read.
	onRead func(Read)
	states []State
	from   time.Time
	ended  bool
	prev   map[string]float64 // the previous poll's numbers by path
	prevT  time.Time
}

// live makes the poller hand every poll's per-second values to onRead,
// and keep for the window's stats only the polls from from on.
func (s *poller) live(from time.Time, states []State, onRead func(Read)) {
	s.from, s.states, s.onRead = from, states, onRead
}

// endWindow ends the window's stats; live reads go on.
func (s *poller) endWindow() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
}

// newPoller returns a poller of url for stats that copies the objects
// named by envKeys at its first successful read.

func newPoller(url string, stats []Stat, envKeys []string) *poller {
	return &poller{url: url, stats: stats, envKeys: envKeys, client: &http.Client{Timeout: 2 * time.Second},
		sums: map[string]float64{}, first: map[string]float64{}, last: map[string]float64{}}
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
		case <-opens:
			tick.Reset(time.Second)
			s.poll(ctx)
		case <-tick.C:
			s.poll(ctx)
		}
	}
}

// poll reads the stats JSON once.
func (s *poller) poll(ctx context.Context) {
	doc, err := getJSON(ctx, s.client, s.url)
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			s.errors++
			s.lastErr = err.Error()
		}
		return
	}
	if s.onRead != nil {
		s.liveRead(doc, now)
		if s.ended || now.Before(s.from) {
			return // outside the measured window
		}
	}
	if s.n == 0 {
		s.t0 = now
		s.env = copyEnvironment(doc, s.envKeys)
	}
	s.t1 = now
	s.n++
	for _, r := range s.stats {
		v, ok := lookupNumber(doc, r.Path)
		if !ok {
			continue
		}
		s.sums[r.Name] += v
		if _, seen := s.first[r.Name]; !seen {
			s.first[r.Name] = v
		}
		s.last[r.Name] = v
	}
}

// liveRead hands the span since the previous poll to onRead. The caller
// holds s.mu; onRead must return quickly (Options.OnRead).
func (s *poller) liveRead(doc any, now time.Time) {
	cur := make(map[string]float64, len(s.stats)+len(s.states))
	for _, r := range s.stats {
		if v, ok := lookupNumber(doc, r.Path); ok {
			cur[r.Path] = v
		}
	}
	for _, st := range s.states {
		if v, ok := lookupNumber(doc, st.Path); ok {
			cur[st.Path] = v
		}
	}
	if s.prev != nil {
		s.onRead(makeRead(s.stats, s.states, s.prev, cur, s.prevT, now))
	}
	s.prev, s.prevT = cur, now
}

// result turns the reads into one value per stat; successes is the
// number of successful requests in the measured window of seconds, for per-request
// stats.
func (s *poller) result(successes int64, seconds float64) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	span := s.t1.Sub(s.t0).Seconds()
	for _, r := range s.stats {
		if _, ok := s.first[r.Name]; !ok {
			continue
		}
		switch r.Kind {
		case Gauge:
			out[r.Name] = s.sums[r.Name] / float64(s.n) * r.Scale
		case Counter:
			d := s.last[r.Name] - s.first[r.Name]
			switch {
			case r.PerRequest && successes > 0 && seconds > 0 && span > 0:
				// Requests that finished in the sampled span, assuming an
				// even rate over the step.
				out[r.Name] = d / (float64(successes) * span / seconds) * r.Scale
			case span > 0:
				out[r.Name] = d / span * r.Scale
			}
		}
	}
	return out
}

// getJSON fetches and decodes a JSON document.
func getJSON(ctx context.Context, c *http.Client, url string) (any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var doc any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return doc, nil
}

// lookupNumber follows a dot-separated path of object keys (or array
// indexes) to a number.
func lookupNumber(doc any, path string) (float64, bool) {
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
