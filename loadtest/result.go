package loadtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"
)

// SchemaVersion is the version of the JSON result format (SCHEMA.md). It
// changes when a field changes meaning or disappears; added fields keep it.
// Version 2 gives the settings' durations in milliseconds (duration_ms);
// version 1 gave them in nanoseconds (duration), and its files are still
// read (Result.Upgrade).
const SchemaVersion = 2

// A Result is the outcome of one run (or of several merged runs).
type Result struct {
	// Schema is SchemaVersion when written.
	Schema int `json:"schema"`
	// Kind is "run" (a SweepFile has "sweep").
	Kind string `json:"kind"`
	// Tool names the writer: "bbslab-loadtest" or "jmeter-jtl".
	Tool string `json:"tool"`
	// Name is a free label for the run (used as a curve name in charts).
	Name string `json:"name,omitempty"`
	// Settings are the exact settings of the run.
	Settings Settings `json:"settings"`
	// Start is when the first client started (with Settings.StartAt,
	// that time: the schedule counts from it); MeasureStart is the end of
	// the warm-up; End is when the measured window ended (no request starts
	// after it).
	Start        time.Time `json:"start"`
	MeasureStart time.Time `json:"measure_start"`
	End          time.Time `json:"end"`
	// StartLagMs, with Settings.StartAt, is how late after it the clients
	// were started (the wake-up's delay); Start is StartAt itself.
	StartLagMs float64 `json:"start_lag_ms,omitempty"`
	// MeasuredSeconds is the length of the measured window, End minus
	// MeasureStart. Throughputs divide by it: a request that finishes
	// while the run drains belongs to the window it was sent in.
	MeasuredSeconds float64 `json:"measured_seconds"`
	// DrainSeconds is how long after End the run waited for the requests
	// still in flight (at most Settings.Drain); they are counted like any
	// other, or as "cutoff" errors when abandoned.
	DrainSeconds float64 `json:"drain_seconds,omitempty"`
	// Interrupted is set when the run was stopped early (Ctrl-C).
	Interrupted bool `json:"interrupted,omitempty"`
	// Total summarises all labels; Labels has one entry per label.
	Total  Stats   `json:"total"`
	Labels []Stats `json:"labels"`
	// Series is the per-second timeline, warm-up seconds included and
	// marked.
	Series []SecondRow `json:"series"`
	// Open holds the open model's arrival counts.
	Open *OpenStats `json:"open,omitempty"`
	// Cost is the generator's own cost; Generators lists each machine's cost
	// when results were merged.
	Cost       Cost   `json:"cost"`
	Generators []Cost `json:"generators,omitempty"`
	// Overlap, in a merged result, says how the generators' measured
	// windows lined up (package merge fills it).
	Overlap *Overlap `json:"overlap,omitempty"`
	// Server holds the target's own figures over the measured period and
	// Profiles the profiles taken of it, as Settings.Watcher gave them
	// (Watched): JSON the engine keeps without looking inside; package
	// watch reads them (watch.Of).
	Server   json.RawMessage `json:"server,omitempty"`
	Profiles json.RawMessage `json:"profiles,omitempty"`
	// Timeline holds the first requests one by one and a per-100 ms series
	// (Settings.TimelineRequests).
	Timeline *Timeline `json:"timeline,omitempty"`
	// Environment is what the run ran on: the generator's machine and
	// build, and the server's database, machine and knobs as its stats JSON
	// named them (environment.go).
	Environment *Environment `json:"environment,omitempty"`
	// Warnings are plain-language notes on the validity of the figures.
	Warnings []string `json:"warnings,omitempty"`
}

// Stats summarises the measured samples of one label (or of all).
type Stats struct {
	Label   string `json:"label"`
	Clients int    `json:"clients"`
	// Requests counts finished requests, failures included.
	Requests  int64 `json:"requests"`
	Successes int64 `json:"successes"`
	Errors    int64 `json:"errors"`
	// ErrorKinds counts failures by kind: connect, timeout, io, status, body,
	// cutoff.
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	// StatusCodes counts finished requests by the status code of their
	// response ("200", "503"); "0" counts those that got no status line
	// (connect, timeout, io and cutoff errors before it), as vegeta does.
	StatusCodes map[string]int64 `json:"status_codes,omitempty"`
	// ErrorSet counts failed requests by their error's text (vegeta's
	// "Error Set"), at most MaxErrorSet distinct texts; failures whose
	// text came after the set was full are counted under ErrorSetOther.
	ErrorSet map[string]int64 `json:"error_set,omitempty"`
	// Throughput is successful responses per measured second.
	Throughput float64 `json:"throughput"`
	// Bytes received (headers and bodies) and sent.
	Bytes     int64 `json:"bytes"`
	SentBytes int64 `json:"sent_bytes"`
	// Latencies of successful requests in milliseconds.
	MinMs   float64 `json:"min_ms"`
	MeanMs  float64 `json:"mean_ms"`
	P50Ms   float64 `json:"p50_ms"`
	P90Ms   float64 `json:"p90_ms"`
	P95Ms   float64 `json:"p95_ms"`
	P99Ms   float64 `json:"p99_ms"`
	P999Ms  float64 `json:"p99_9_ms"`
	P9999Ms float64 `json:"p99_99_ms"`
	MaxMs   float64 `json:"max_ms"`
	// Histogram holds the successful latencies (µs), base64 HdrHistogram V2.
	Histogram *Histogram `json:"histogram"`
}

// SecondRow is one second of the timeline.
type SecondRow struct {
	// T is the end of the interval in seconds since the start.
	T      float64 `json:"t"`
	Warmup bool    `json:"warmup,omitempty"`
	// Successes and Errors finished in this interval.
	Successes  int64   `json:"successes"`
	Errors     int64   `json:"errors"`
	Throughput float64 `json:"throughput"`
	Bytes      int64   `json:"bytes"`
	MeanMs     float64 `json:"mean_ms"`
	P50Ms      float64 `json:"p50_ms"`
	P90Ms      float64 `json:"p90_ms"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	// ErrorKinds counts this second's errors by kind (absent when none).
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	// Histogram of this second's successful latencies.
	Histogram *Histogram `json:"histogram,omitempty"`
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
	// Arrivals is the number of measured arrivals; Dropped those that found
	// every connection busy and were not sent.
	Arrivals int64 `json:"arrivals"`
	Dropped  int64 `json:"dropped"`
}

// A Tally adds up finished requests into one label's Stats where they
// do not come from a run's clients (see Tallies): the lines of a JTL
// file (package resultfile), the labels of several generators' results
// (package merge). A run's clients count into accumulators made for
// their hot path (labelAcc) and hand their totals over as a Tally.
type Tally struct {
	hist      *Histogram
	ok        int64
	errs      map[string]int64 // error kind -> count
	codes     map[string]int64 // status code -> count
	errSet    map[string]int64 // error text -> count
	recv, snt int64
}

// Tallies adds up finished requests by label, in the order the labels
// first come: the lines of a JTL file, the labels of several generators'
// results. The zero Tallies is empty and ready to use.
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

// Stats returns each label's figures, in the order the labels came, run
// by clients(label) clients, and the total's, labelled TOTAL and run by
// total clients, all over seconds of measurement.
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

// Success counts a successful request of latency d whose response had the
// status code code, with the bytes it received and sent.
func (t *Tally) Success(d time.Duration, code string, recv, sent int64) {
	t.hist.Record(d)
	t.ok++
	t.count(code, recv, sent)
}

// Failure counts a failed request by its error kind (connect, timeout,
// io, status, body, cutoff) and its error's text (the error set), with
// its status code ("0" when it got no response) and the bytes it received
// and sent.
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

// ErrorSetOther is the ErrorSet key of failures whose text found the set
// full.
const ErrorSetOther = "(other texts)"

// addErr counts one failure's text in set, keeping at most MaxErrorSet
// distinct texts.
func addErr(set map[string]int64, text string, n int64) {
	if _, ok := set[text]; ok || len(set) < MaxErrorSet || text == ErrorSetOther {
		set[text] += n
		return
	}
	set[ErrorSetOther] += n
}

// AddStats adds the requests s summarises (a label of a result being
// merged): its counts, bytes, status codes, error set and histogram.
func (t *Tally) AddStats(s *Stats) {
	t.add(&Tally{hist: s.Histogram, ok: s.Successes, errs: s.ErrorKinds, codes: s.StatusCodes, errSet: s.ErrorSet, recv: s.Bytes, snt: s.SentBytes})
}

// add adds b's samples to t.
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

// Stats returns t's figures as those of label, run by clients clients,
// over seconds of measurement: the throughput divides by seconds.
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

// nonEmpty returns m, or nil when it is empty (no key in the JSON).
func nonEmpty(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	return m
}

// FillLatency sets the latency figures of r and of its labels from their
// histograms, then compacts the histograms, which the row keeps for exact
// merges.
func (r *SecondRow) FillLatency() {
	if h := r.Histogram; h != nil {
		r.P90Ms, r.P95Ms = ms(h.Quantile(0.90)), ms(h.Quantile(0.95)) // before secondFigures compacts h
		r.MeanMs, r.P50Ms, r.P99Ms, r.MaxMs = secondFigures(h)
	}
	for i := range r.Labels {
		if l := &r.Labels[i]; l.Histogram != nil {
			l.MeanMs, l.P50Ms, l.P99Ms, l.MaxMs = secondFigures(l.Histogram)
		}
	}
}

// secondFigures returns the latency figures of a per-second row from h,
// then compacts h.
func secondFigures(h *Histogram) (mean, p50, p99, maxMs float64) {
	mean, p50, p99, maxMs = ms(h.Mean()), ms(h.Quantile(0.5)), ms(h.Quantile(0.99)), ms(h.Max())
	h.Compact()
	return mean, p50, p99, maxMs
}

// fillLatency recomputes the latency figures from the histogram.
func (s *Stats) fillLatency() {
	h := s.Histogram
	if h == nil {
		return
	}
	s.MinMs = ms(h.Min())
	s.MeanMs = ms(h.Mean())
	s.P50Ms = ms(h.Quantile(0.50))
	s.P90Ms = ms(h.Quantile(0.90))
	s.P95Ms = ms(h.Quantile(0.95))
	s.P99Ms = ms(h.Quantile(0.99))
	s.P999Ms = ms(h.Quantile(0.999))
	s.P9999Ms = ms(h.Quantile(0.9999))
	s.MaxMs = ms(h.Max())
}

// WriteJSON writes r to path as indented JSON.
func (r *Result) WriteJSON(path string) error {
	b, err := r.MarshalIndent()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// MarshalIndent returns r as indented JSON with the schema version set.
func (r *Result) MarshalIndent() ([]byte, error) {
	r.Schema, r.Kind = SchemaVersion, "run"
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return append(b, '\n'), nil
}

// ReadResult reads a result written by WriteJSON. A newer schema version is
// an error.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	return DecodeResult(path, b)
}

// DecodeResult decodes the JSON result b read from path, as ReadResult
// does.
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

// Upgrade brings a result read from a file of schema version v (checked
// by CheckSchema) up to date: version 1 files lack the figures added since (min_ms and p95_ms,
// here derived from the histograms they kept; the status codes and error
// set cannot be, and stay absent). Their settings' nanoseconds are read by
// Settings.UnmarshalJSON.
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

// CheckSchema accepts the schema versions this package can read: a file
// from a newer version is an error naming path, not a silent misreading.
func CheckSchema(path string, v int) error {
	if v < 1 || v > SchemaVersion {
		return fmt.Errorf("read %s: schema version %d not supported (want 1..%d)", path, v, SchemaVersion)
	}
	return nil
}

// errorKinds converts counts indexed by ErrorKind to a map (nil if none).
func errorKinds(c [numKinds]int64) map[string]int64 {
	var m map[string]int64
	for k := ErrorKind(1); k < numKinds; k++ {
		if c[k] > 0 {
			if m == nil {
				m = map[string]int64{}
			}
			m[k.String()] = c[k]
		}
	}
	return m
}
