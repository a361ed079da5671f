package loadtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"
)

// SchemaVersion is the version of the JSON result format (SCHEMA.md).
const SchemaVersion = 2

// A Result is the outcome of one run.
type Result struct {
	// Kind is "run"; Tool is "bbslab-loadtest" or "jmeter-jtl"; Name labels charts.
	Schema   int      `json:"schema"`
	Kind     string   `json:"kind"`
	Tool     string   `json:"tool"`
	Name     string   `json:"name,omitempty"`
	Settings Settings `json:"settings"`
	// Start is when the clients started; MeasureStart to End is the measured window.
	Start        time.Time `json:"start"`
	MeasureStart time.Time `json:"measure_start"`
	End          time.Time `json:"end"`
	// MeasuredSeconds is End minus MeasureStart; throughputs divide by it.
	MeasuredSeconds float64 `json:"measured_seconds"`
	// DrainSeconds is the wait after End for requests in flight (at most Settings.Drain).
	DrainSeconds float64     `json:"drain_seconds,omitempty"`
	Interrupted  bool        `json:"interrupted,omitempty"`
	Total        Stats       `json:"total"`
	Labels       []Stats     `json:"labels"`
	Series       []SecondRow `json:"series"`
	Open         *OpenStats  `json:"open,omitempty"`
	Cost         Cost        `json:"cost"`
	// Server and Profiles are what Settings.Watcher saw, as opaque JSON.
	Server      json.RawMessage `json:"server,omitempty"`
	Profiles    json.RawMessage `json:"profiles,omitempty"`
	Timeline    *Timeline       `json:"timeline,omitempty"`
	Environment *Environment    `json:"environment,omitempty"`
	Warnings    []string        `json:"warnings,omitempty"`
}

// Stats summarises the measured samples of one label (or of all).
type Stats struct {
	Label   string `json:"label"`
	Clients int    `json:"clients"`
	// Requests counts finished requests, failures included.
	Requests   int64            `json:"requests"`
	Successes  int64            `json:"successes"`
	Errors     int64            `json:"errors"`
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	// StatusCodes counts requests by status code, "0" for no status line (as vegeta).
	StatusCodes map[string]int64 `json:"status_codes,omitempty"`
	// ErrorSet counts failures by error text (vegeta's "Error Set").
	ErrorSet map[string]int64 `json:"error_set,omitempty"`
	// Throughput is successful responses per measured second.
	Throughput float64 `json:"throughput"`
	// Bytes received (headers and bodies) and sent.
	Bytes     int64 `json:"bytes"`
	SentBytes int64 `json:"sent_bytes"`
	// Latencies of successful requests in milliseconds.
	MinMs     float64    `json:"min_ms"`
	MeanMs    float64    `json:"mean_ms"`
	P50Ms     float64    `json:"p50_ms"`
	P90Ms     float64    `json:"p90_ms"`
	P95Ms     float64    `json:"p95_ms"`
	P99Ms     float64    `json:"p99_ms"`
	P999Ms    float64    `json:"p99_9_ms"`
	P9999Ms   float64    `json:"p99_99_ms"`
	MaxMs     float64    `json:"max_ms"`
	Histogram *Histogram `json:"histogram"`
}

// SecondRow is one second of the timeline.
type SecondRow struct {
	// T is the end of the interval in seconds since the start.
	T          float64          `json:"t"`
	Warmup     bool             `json:"warmup,omitempty"`
	Successes  int64            `json:"successes"`
	Errors     int64            `json:"errors"`
	Throughput float64          `json:"throughput"`
	Bytes      int64            `json:"bytes"`
	MeanMs     float64          `json:"mean_ms"`
	P50Ms      float64          `json:"p50_ms"`
	P90Ms      float64          `json:"p90_ms"`
	P95Ms      float64          `json:"p95_ms"`
	P99Ms      float64          `json:"p99_ms"`
	MaxMs      float64          `json:"max_ms"`
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	Histogram  *Histogram       `json:"histogram,omitempty"`
	// Labels splits the second by label when the run had several.
	Labels []LabelSecond `json:"labels,omitempty"`
}

// LabelSecond is one label's share of a SecondRow.
type LabelSecond struct {
	Label      string     `json:"label"`
	Successes  int64      `json:"successes"`
	Errors     int64      `json:"errors"`
	Throughput float64    `json:"throughput"`
	MeanMs     float64    `json:"mean_ms"`
	P50Ms      float64    `json:"p50_ms"`
	P99Ms      float64    `json:"p99_ms"`
	MaxMs      float64    `json:"max_ms"`
	Histogram  *Histogram `json:"histogram,omitempty"`
}

// OpenStats counts the open model's arrivals.
type OpenStats struct {
	// Dropped arrivals found every connection busy.
	Arrivals int64 `json:"arrivals"`
	Dropped  int64 `json:"dropped"`
}

// A Tally adds up finished requests into one label's Stats.
type Tally struct {
	hist      *Histogram
	ok        int64
	errs      map[string]int64 // error kind -> count
	codes     map[string]int64 // status code -> count
	errSet    map[string]int64 // error text -> count
	recv, snt int64
}

// Tallies adds up finished requests by label; its zero value is ready.
type Tallies struct {
	order []string
	by    map[string]*Tally
}

// Of returns label's Tally, new on the label's first use.
func (ts *Tallies) Of(label string) *Tally {
	t := ts.by[label]
	if t == nil {
		if ts.by == nil {
			ts.by = map[string]*Tally{}
		}
		t = NewTally()
		ts.by[label] = t
		ts.order = append(ts.order, label)
	}
	return t
}

// Stats returns each label's figures, in first-use order, and TOTAL's.
func (ts *Tallies) Stats(clients func(label string) int, total int, seconds float64) ([]Stats, Stats) {
	var out []Stats
	all := NewTally()
	for _, name := range ts.order {
		t := ts.by[name]
		all.add(t)
		out = append(out, t.Stats(name, clients(name), seconds))
	}
	return out, all.Stats("TOTAL", total, seconds)
}

// NewTally returns an empty Tally.
func NewTally() *Tally {
	return &Tally{hist: NewHistogram(), errs: map[string]int64{}, codes: map[string]int64{}, errSet: map[string]int64{}}
}

// Success counts a successful request of latency d, its status and bytes.
func (t *Tally) Success(d time.Duration, code string, recv, sent int64) {
	t.hist.Record(d)
	t.ok++
	t.count(code, recv, sent)
}

// Failure counts a failed request by its error kind and text.
func (t *Tally) Failure(kind, text, code string, recv, sent int64) {
	t.errs[kind]++
	addErr(t.errSet, text, 1)
	t.count(code, recv, sent)
}

func (t *Tally) count(code string, recv, sent int64) {
	t.codes[code]++
	t.recv += recv
	t.snt += sent
}

// MaxErrorSet bounds the distinct error texts a Stats keeps in ErrorSet.
const MaxErrorSet = 10

// ErrorSetOther is the ErrorSet key of texts that found the set full.
const ErrorSetOther = "(other texts)"

func addErr(set map[string]int64, text string, n int64) {
	if _, ok := set[text]; ok || len(set) < MaxErrorSet || text == ErrorSetOther {
		set[text] += n
		return
	}
	set[ErrorSetOther] += n
}

func (t *Tally) add(b *Tally) {
	t.hist.Merge(b.hist)
	t.ok += b.ok
	t.recv += b.recv
	t.snt += b.snt
	for k, v := range b.errs {
		t.errs[k] += v
	}
	for k, v := range b.codes {
		t.codes[k] += v
	}
	for _, k := range slices.Sorted(maps.Keys(b.errSet)) {
		addErr(t.errSet, k, b.errSet[k])
	}
}

// Stats returns t's figures as those of label over seconds of measurement.
func (t *Tally) Stats(label string, clients int, seconds float64) Stats {
	var n int64
	for _, v := range t.errs {
		n += v
	}
	s := Stats{
		Label: label, Clients: clients,
		Requests: t.ok + n, Successes: t.ok, Errors: n, ErrorKinds: nonEmpty(t.errs),
		StatusCodes: nonEmpty(t.codes), ErrorSet: nonEmpty(t.errSet),
		Bytes: t.recv, SentBytes: t.snt, Histogram: t.hist,
	}
	if seconds > 0 {
		s.Throughput = float64(t.ok) / seconds
	}
	s.fillLatency()
	return s
}

func nonEmpty(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	return m
}

// FillLatency sets r's latency figures from its histograms, then compacts them.
func (r *SecondRow) FillLatency() {
	if h := r.Histogram; h != nil {
		r.P90Ms, r.P95Ms = ms(h.Quantile(0.90)), ms(h.Quantile(0.95)) // before h is compacted
		r.MeanMs, r.P50Ms, r.P99Ms, r.MaxMs = secondFigures(h)
	}
	for i := range r.Labels {
		if l := &r.Labels[i]; l.Histogram != nil {
			l.MeanMs, l.P50Ms, l.P99Ms, l.MaxMs = secondFigures(l.Histogram)
		}
	}
}

func secondFigures(h *Histogram) (mean, p50, p99, maxMs float64) {
	mean, p50, p99, maxMs = ms(h.Mean()), ms(h.Quantile(0.5)), ms(h.Quantile(0.99)), ms(h.Max())
	h.Compact()
	return mean, p50, p99, maxMs
}

func (s *Stats) fillLatency() {
	h := s.Histogram
	if h == nil {
		return
	}
	s.MinMs, s.MeanMs, s.MaxMs = ms(h.Min()), ms(h.Mean()), ms(h.Max())
	s.P50Ms, s.P90Ms, s.P95Ms = ms(h.Quantile(0.50)), ms(h.Quantile(0.90)), ms(h.Quantile(0.95))
	s.P99Ms, s.P999Ms, s.P9999Ms = ms(h.Quantile(0.99)), ms(h.Quantile(0.999)), ms(h.Quantile(0.9999))
}

// WriteJSON writes r to path as indented JSON.
func (r *Result) WriteJSON(path string) error {
	r.Schema, r.Kind = SchemaVersion, "run"
	return writeJSON(path, "result", r)
}

// MarshalIndent returns r as indented JSON with the schema version set.
func (r *Result) MarshalIndent() ([]byte, error) {
	r.Schema, r.Kind = SchemaVersion, "run"
	return indentJSON("result", r)
}

func indentJSON(what string, v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	return append(b, '\n'), nil
}

func writeJSON(path, what string, v any) error {
	b, err := indentJSON(what, v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}

// ReadResult reads a result written by WriteJSON.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	return DecodeResult(path, b)
}

// DecodeResult decodes the JSON result b read from path.
func DecodeResult(path string, b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read result %s: %w", path, err)
	}
	if err := CheckSchema(path, r.Schema); err != nil {
		return nil, err
	}
	r.Upgrade(r.Schema)
	return &r, nil
}

// Upgrade derives from the histograms what a file of schema version v lacks (1: min_ms, p95_ms).
func (r *Result) Upgrade(v int) {
	if v >= 2 {
		return
	}
	fill := func(s *Stats) {
		if h := s.Histogram; h != nil && h.Count() > 0 {
			s.MinMs, s.P95Ms = ms(h.Min()), ms(h.Quantile(0.95))
		}
	}
	fill(&r.Total)
	for i := range r.Labels {
		fill(&r.Labels[i])
	}
	for i := range r.Series {
		if h := r.Series[i].Histogram; h != nil && h.Count() > 0 {
			r.Series[i].P95Ms = ms(h.Quantile(0.95))
		}
	}
}

// CheckSchema accepts the schema versions this package can read.
func CheckSchema(path string, v int) error {
	if v < 1 || v > SchemaVersion {
		return fmt.Errorf("read %s: schema version %d not supported (want 1..%d)", path, v, SchemaVersion)
	}
	return nil
}

func errorKinds(c [numKinds]int64) map[string]int64 {
	m := map[string]int64{}
	for k := ErrorKind(1); k < numKinds; k++ {
		if c[k] > 0 {
			m[k.String()] = c[k]
		}
	}
	return nonEmpty(m)
}
