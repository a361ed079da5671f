package outcome

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// BusyText says why p could not be measured when none of its measurements is used.
func (p *Point) BusyText(run string) string {
	if len(p.Repeats) == 0 || p.Measured() {
		return ""
	}
	n, worst, read := 0, 0.0, false
	for _, rp := range p.Repeats {
		if !rp.Disturbed {
			continue
		}
		n++
		if w, ok := rp.Interference.worst(); ok {
			worst, read = max(worst, w), true
		}
	}
	s := fmt.Sprintf("the machine was busy at %s at %s (%d of %d attempts disturbed", run, ClientsText(p.Clients), n, len(p.Repeats))
	if read {
		s += fmt.Sprintf(", worst interference %.0f %% of a core", worst)
	}
	return s + ")"
}

// LostText says which repeats the machine took from a point that kept some; "" if none.
func (p *Point) LostText(run string, planned int) string {
	used := len(p.Used())
	var unresolved int
	for _, rp := range p.Used() {
		if rp.Unresolved {
			unresolved++
		}
	}
	var parts []string
	if used < planned {
		parts = append(parts, fmt.Sprintf("%d of %d repeats left out as disturbed", planned-used, planned))
	}
	if unresolved > 0 {
		parts = append(parts, fmt.Sprintf("%d suspect repeat(s) with no time left to measure again", unresolved))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("the machine was busy at %s at %s (%s)", run, ClientsText(p.Clients), strings.Join(parts, ", "))
}

// Figures are the numbers kept of one label (or of all) in one measurement.
type Figures struct {
	Throughput float64 `json:"throughput"`
	MeanMs     float64 `json:"mean_ms"`
	P50Ms      float64 `json:"p50_ms"`
	P90Ms      float64 `json:"p90_ms"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	P999Ms     float64 `json:"p99_9_ms"`
	MaxMs      float64 `json:"max_ms"`
	Errors     int64   `json:"errors"`
	// The first measured second of the step, all labels.
	FirstSecondThroughput float64 `json:"first_second_throughput,omitempty"`
	FirstSecondP99Ms      float64 `json:"first_second_p99_ms,omitempty"`
}

func figuresOf(s loadtest.Stats) Figures {
	return Figures{Throughput: s.Throughput, MeanMs: s.MeanMs, P50Ms: s.P50Ms, P90Ms: s.P90Ms, P95Ms: s.P95Ms, P99Ms: s.P99Ms, P999Ms: s.P999Ms, MaxMs: s.MaxMs, Errors: s.Errors}
}

// MetricNames are the metrics a claim or a table may take from figures.
var MetricNames = []string{"throughput", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms", "max_ms", "errors",
	"first_second_throughput", "first_second_p99_ms"}

var metricOf = map[string]func(Figures) float64{
	"throughput":              func(f Figures) float64 { return f.Throughput },
	"mean_ms":                 func(f Figures) float64 { return f.MeanMs },
	"p50_ms":                  func(f Figures) float64 { return f.P50Ms },
	"p90_ms":                  func(f Figures) float64 { return f.P90Ms },
	"p95_ms":                  func(f Figures) float64 { return f.P95Ms },
	"p99_ms":                  func(f Figures) float64 { return f.P99Ms },
	"p99_9_ms":                func(f Figures) float64 { return f.P999Ms },
	"max_ms":                  func(f Figures) float64 { return f.MaxMs },
	"errors":                  func(f Figures) float64 { return float64(f.Errors) },
	"first_second_throughput": func(f Figures) float64 { return f.FirstSecondThroughput },
	"first_second_p99_ms":     func(f Figures) float64 { return f.FirstSecondP99Ms },
}

// metric returns the figure called name; first-second figures are absent when zero.
func (f Figures) metric(name string) (float64, bool) {
	get, ok := metricOf[name]
	if !ok {
		return 0, false
	}
	v := get(f)
	return v, v > 0 || !strings.HasPrefix(name, "first_second_")
}

// A Repeat is one measurement of a point.
type Repeat struct {
	Seq            int                `json:"seq"`
	Start          time.Time          `json:"start"`
	Total          Figures            `json:"total"`
	Labels         map[string]Figures `json:"labels,omitempty"`
	Server         map[string]float64 `json:"server,omitempty"`
	Truth          json.RawMessage    `json:"truth,omitempty"`
	TruthFigures   map[string]float64 `json:"truth_figures,omitempty"`
	TruthNote      string             `json:"truth_note,omitempty"`
	GeneratorCores *loadtest.CoresUse `json:"generator_cores,omitempty"`
	Repeat         int                `json:"repeat,omitempty"`
	Attempt        int                `json:"attempt,omitempty"`
	Interference   *Interference      `json:"interference,omitempty"`
	Disturbed      bool               `json:"disturbed,omitempty"`
	Suspect        bool               `json:"suspect,omitempty"`
	Unresolved     bool               `json:"unresolved,omitempty"`
	Dropped        bool               `json:"dropped,omitempty"`
	Reason         string             `json:"reason,omitempty"`
	Calibration    int                `json:"calibration,omitempty"`
	Recalibrated   bool               `json:"recalibrated,omitempty"`
	// Full is the full result, kept while the point is measured.
	Full *loadtest.Result `json:"-"`
}

// cores is GeneratorCores, or its result's for a point of the older form.
func (rp *Repeat) cores() *loadtest.CoresUse {
	if rp.GeneratorCores == nil && rp.Full != nil {
		return rp.Full.Cost.Cores
	}
	return rp.GeneratorCores
}

// Drop leaves rp out of its point's figures, saying why.
func (rp *Repeat) Drop(reason string) {
	rp.Dropped = true
	rp.Reason = reason
}

// NewRepeat takes the figures of one measurement and the server's readings (nil: none).
func NewRepeat(seq int, r *loadtest.Result, server *watch.ServerStats) *Repeat {
	rp := &Repeat{Seq: seq, Start: r.MeasureStart, Total: figuresOf(r.Total), Server: server.Map(), GeneratorCores: r.Cost.Cores, Full: r}
	for _, sec := range r.Series {
		if !sec.Warmup {
			rp.Total.FirstSecondThroughput, rp.Total.FirstSecondP99Ms = sec.Throughput, sec.P99Ms
			break
		}
	}
	if len(r.Labels) > 0 {
		rp.Labels = make(map[string]Figures, len(r.Labels))
		for _, l := range r.Labels {
			rp.Labels[l.Label] = figuresOf(l)
		}
	}
	return rp
}

// label returns the figures of a request label ("" for the total).
func (rp *Repeat) label(name string) (Figures, bool) {
	if name == "" {
		return rp.Total, true
	}
	if f, ok := rp.Labels[name]; ok {
		return f, true
	}
	if rp.Labels == nil && rp.Full != nil { // a point of the older form
		for _, l := range rp.Full.Labels {
			if l.Label == name {
				return figuresOf(l), true
			}
		}
	}
	return Figures{}, false
}

// PointSummary is a point's figures over its repeats.
type PointSummary struct {
	Total  map[string]loadtest.Spread `json:"total"`
	Server map[string]loadtest.Spread `json:"server,omitempty"`
}

// medianRepeat returns the repeat of median throughput of rs.
func medianRepeat(rs []*Repeat) *Repeat {
	rs = slices.Clone(rs)
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].Total.Throughput < rs[b].Total.Throughput })
	return rs[(len(rs)-1)/2]
}

// Used returns p's repeats not dropped, or its Result for a point without repeats.
func (p *Point) Used() []*Repeat {
	if len(p.Repeats) > 0 {
		return slices.DeleteFunc(slices.Clone(p.Repeats), func(rp *Repeat) bool { return rp.Dropped })
	}
	if p.Result == nil {
		return nil
	}
	return []*Repeat{{Total: figuresOf(p.Result.Total), Server: p.Server, Full: p.Result}}
}

// Slots returns which repeat each of p.Used() is, in the same order.
func (p *Point) Slots() []int {
	if len(p.Repeats) == 0 && p.Result != nil {
		return []int{1}
	}
	var out []int
	for i, rp := range p.Repeats {
		if rp.Dropped {
			continue
		}
		if rp.Repeat > 0 {
			out = append(out, rp.Repeat)
		} else {
			out = append(out, i+1)
		}
	}
	return out
}

// Measured reports whether p has a measurement its figures can use.
func (p *Point) Measured() bool { return len(p.Used()) > 0 }

// UsedSeqs are the Seq of p's used measurements (nil for a point without repeats).
func (p *Point) UsedSeqs() map[int]bool {
	if len(p.Repeats) == 0 {
		return nil
	}
	m := map[int]bool{}
	for _, rp := range p.Used() {
		m[rp.Seq] = true
	}
	return m
}

// Refresh makes the used repeat of median throughput the point's Result and
// summarises the used repeats; it clears Within and SLO, which the runner sets.
func (p *Point) Refresh() {
	p.Result, p.Server, p.Within, p.SLO, p.Summary = nil, nil, nil, nil, nil
	used := p.Used()
	if len(used) == 0 {
		return
	}
	med := medianRepeat(used)
	p.Result, p.Server = med.Full, med.Server
	p.Summary = p.summarize()
}

// summarize takes each figure's and reading's spread over the used repeats.
func (p *Point) summarize() *PointSummary {
	s := &PointSummary{Total: map[string]loadtest.Spread{}}
	for _, m := range MetricNames {
		if sp, ok := p.Spread("", m); ok {
			s.Total[m] = sp
		}
	}
	for _, rp := range p.Used() {
		for n := range rp.Server {
			if s.Server == nil {
				s.Server = map[string]loadtest.Spread{}
			}
			s.Server[n], _ = p.ReadingSpread(n)
		}
	}
	return s
}

// Spread returns a metric of a label ("" for all) over p's repeats.
func (p *Point) Spread(label, metric string) (loadtest.Spread, bool) {
	return SpreadOf(p.over(false, func(rp *Repeat) (float64, bool) { return rp.figure(label, metric, "") }))
}

// TruthValues returns a truth figure of every used repeat; ok is false when one lacks it.
func (p *Point) TruthValues(name string) ([]float64, bool) {
	return p.over(true, func(rp *Repeat) (float64, bool) { v, ok := rp.TruthFigures[name]; return v, ok })
}

// TruthNotes returns why the repeats lack truth figures, once each.
func (p *Point) TruthNotes() string {
	var notes []string
	for _, rp := range p.Used() {
		if rp.TruthNote != "" && !slices.Contains(notes, rp.TruthNote) {
			notes = append(notes, rp.TruthNote)
		}
	}
	return strings.Join(notes, "; ")
}

// ReadingSpread returns a server reading over the repeats that have it.
func (p *Point) ReadingSpread(name string) (loadtest.Spread, bool) {
	return SpreadOf(p.over(false, func(rp *Repeat) (float64, bool) { return rp.figure("", "", name) }))
}

// Values returns a metric of a label ("" for all), or a server reading when
// reading is set, of every used repeat in order; ok is false when one lacks it.
func (p *Point) Values(label, metric, reading string) ([]float64, bool) {
	return p.over(true, func(rp *Repeat) (float64, bool) { return rp.figure(label, metric, reading) })
}

// over takes a figure of each used repeat in order: with all, of every one or
// none if one lacks it, else of those that have it; ok is false for none.
func (p *Point) over(all bool, get func(*Repeat) (float64, bool)) (vs []float64, ok bool) {
	for _, rp := range p.Used() {
		v, has := get(rp)
		if !has && all {
			return nil, false
		}
		if has {
			vs = append(vs, v)
		}
	}
	return vs, len(vs) > 0
}

// figure is a metric of a label ("" for all) of rp, or a server reading.
func (rp *Repeat) figure(label, metric, reading string) (float64, bool) {
	if reading != "" {
		v, ok := rp.Server[reading]
		return v, ok
	}
	f, ok := rp.label(label)
	if !ok {
		return 0, false
	}
	return f.metric(metric)
}

// SpreadOf is the spread of vs, when ok.
func SpreadOf(vs []float64, ok bool) (loadtest.Spread, bool) {
	if !ok {
		return loadtest.Spread{}, false
	}
	return loadtest.SpreadOf(vs), true
}

// ReadingMinus returns reading less the minus readings per used repeat, if all have them.
func (p *Point) ReadingMinus(reading string, minus []string) ([]float64, bool) {
	vs, ok := p.Values("", "", reading)
	for _, m := range minus {
		ms, mok := p.Values("", "", m)
		if !ok || !mok || len(ms) != len(vs) {
			return nil, false
		}
		for i := range vs {
			vs[i] -= ms[i]
		}
	}
	return vs, ok
}

// Throughput is p's median throughput.
func (p *Point) Throughput() loadtest.Spread {
	s, _ := p.Spread("", "throughput")
	return s
}

// SpreadText formats a spread with format ("auto": formatNum's): the median
// and unit, and the range after more than one measurement.
func SpreadText(s loadtest.Spread, format, unit string) string {
	v := formatNum(format, s.Median) + unit
	if s.N > 1 {
		v += " (" + formatNum(format, s.Min) + "-" + formatNum(format, s.Max) + ")"
	}
	return v
}

// formatNum formats v with format, or, with "auto", with two decimals
// from 0.01 up, none from 1000 up and three significant digits below 0.01.
func formatNum(format string, v float64) string {
	if format != "auto" {
		return fmt.Sprintf(format, v)
	}
	switch a := math.Abs(v); {
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 0.01 || a == 0:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// GeneratorInterference is the time others took from the generator's cores over p's repeats.
func (p *Point) GeneratorInterference() (loadtest.Spread, bool) {
	return SpreadOf(p.over(false, func(rp *Repeat) (float64, bool) {
		if c := rp.cores(); c != nil {
			return c.Interference, true
		}
		return 0, false
	}))
}
