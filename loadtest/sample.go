package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"
)

// A Reading is one number taken from the stats JSON at Path (dot
// separated, e.g. "workers.queued"). A "gauge" is averaged over the step; a
// "counter" becomes its increase per second over the step, or, with
// PerRequest, per successful request in milliseconds when Scale is 1000.
type Reading struct {
	Name       string  `toml:"name"`
	Path       string  `toml:"path"`
	Kind       string  `toml:"kind"` // gauge or counter
	PerRequest bool    `toml:"per_request"`
	Scale      float64 `toml:"scale"` // multiplies the value (default 1)
	Unit       string  `toml:"unit"`
}

// A Bucket names the share of samples whose stack holds Frame.
type Bucket struct {
	Name  string `toml:"name"`
	Frame string `toml:"frame"`
}

// statsSampler reads a server's stats JSON every second and keeps the
// readings an experiment names.
type statsSampler struct {
	url      string
	readings []Reading
	client   *http.Client

	mu      sync.Mutex
	n       int
	sums    map[string]float64
	first   map[string]float64
	last    map[string]float64
	t0, t1  time.Time
	errors  int
	lastErr string

	envKeys []string                   // objects to copy (Settings.StatsEnvironment)
	env     map[string]json.RawMessage // copied at the first successful read
}

func newStatsSampler(url string, readings []Reading) *statsSampler {
	return &statsSampler{url: url, readings: readings, client: &http.Client{Timeout: 2 * time.Second},
		sums: map[string]float64{}, first: map[string]float64{}, last: map[string]float64{}}
}

// run samples every second until ctx ends.
func (s *statsSampler) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	s.sample(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.sample(ctx)
		}
	}
}

func (s *statsSampler) sample(ctx context.Context) {
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
	if s.n == 0 {
		s.t0 = now
		s.env = copyEnvironment(doc, s.envKeys)
	}
	s.t1 = now
	s.n++
	for _, r := range s.readings {
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

// result turns the samples into one value per reading; successes is the
// number of successful requests in the sampled time, for per-request
// readings.
func (s *statsSampler) result(successes int64, seconds float64) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	span := s.t1.Sub(s.t0).Seconds()
	for _, r := range s.readings {
		if _, ok := s.first[r.Name]; !ok {
			continue
		}
		switch r.Kind {
		case "gauge":
			out[r.Name] = s.sums[r.Name] / float64(s.n) * r.Scale
		case "counter":
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

// fetchProfile saves a profile endpoint's answer to path.
func fetchProfile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("profile %s: %s: %s", url, resp.Status, strings.TrimSpace(string(b)))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("profile %s: %w", url, err)
	}
	return f.Close()
}

// ProfileSummary is what an experiment keeps of one profile.
type ProfileSummary struct {
	Kind string `json:"kind"` // cpu or fgprof
	File string `json:"file"`
	// Clients and Repeat say which step of an experiment was profiled
	// (absent outside experiments).
	Clients int `json:"clients,omitempty"`
	Repeat  int `json:"repeat,omitempty"`
	// Total is the sum of the last sample value (ns for CPU and fgprof).
	Total int64 `json:"total"`
	// Top are the functions with the most flat samples.
	Top []FuncShare `json:"top"`
	// Buckets are the shares of (focused) samples by the bucket frames.
	Buckets []FuncShare `json:"buckets,omitempty"`
	// Focused is the share of all samples that passed the focus.
	Focused float64 `json:"focused,omitempty"`
}

// FuncShare is a name with its share of samples (0..1).
type FuncShare struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

// summarizeProfile reads a pprof file and computes its top functions and,
// when buckets are given, the share of samples under each bucket frame.
func summarizeProfile(kind, path string, top int, buckets []Bucket, focus string) (*ProfileSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("parse profile %s: %w", path, err)
	}
	vi := len(p.SampleType) - 1
	sum := &ProfileSummary{Kind: kind, File: path}
	flat := map[string]int64{}
	bucketed := map[string]int64{}
	var focused int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		sum.Total += v
		frames := sampleFrames(s)
		if len(frames) > 0 {
			flat[frames[0]] += v
		}
		if len(buckets) == 0 {
			continue
		}
		if focus != "" && !slices.ContainsFunc(frames, func(f string) bool { return strings.Contains(f, focus) }) {
			continue
		}
		focused += v
		name := "elsewhere"
	find:
		for _, fr := range frames { // leaf first
			for _, b := range buckets {
				if strings.Contains(fr, b.Frame) {
					name = b.Name
					break find
				}
			}
		}
		bucketed[name] += v
	}
	if sum.Total > 0 {
		sum.Top = topShares(flat, sum.Total, top)
		if len(buckets) > 0 {
			sum.Focused = float64(focused) / float64(sum.Total)
		}
	}
	if focused > 0 {
		for _, b := range buckets {
			sum.Buckets = append(sum.Buckets, FuncShare{b.Name, float64(bucketed[b.Name]) / float64(focused)})
		}
		sum.Buckets = append(sum.Buckets, FuncShare{"elsewhere", float64(bucketed["elsewhere"]) / float64(focused)})
	}
	return sum, nil
}

// sampleFrames lists a sample's function names, leaf first.
func sampleFrames(s *profile.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				out = append(out, ln.Function.Name)
			}
		}
	}
	return out
}

func topShares(m map[string]int64, total int64, n int) []FuncShare {
	out := make([]FuncShare, 0, len(m))
	for k, v := range m {
		out = append(out, FuncShare{k, float64(v) / float64(total)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Name < out[j].Name
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
