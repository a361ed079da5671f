package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/grade"
	"bbslab/loadtest/outcome"
)

// truthSpec names the server's record of what it served (its truth, in loadtest/grade's format):
// Start is POSTed as a step starts, with {{window_start}} and {{window_end}}; Stop answers the truth.
type truthSpec struct {
	Start string `toml:"start"`
	Stop  string `toml:"stop"`
}

// minTruthWarmup is a truth's least warm-up, for the window's start to reach the server in time.
const minTruthWarmup = 100 * time.Millisecond

func (e *Experiment) checkTruth() []error {
	t := e.Truth
	if t.Start == "" && t.Stop == "" {
		return nil
	}
	var bad problems
	if t.Start == "" || t.Stop == "" {
		bad.add("truth: give both start and stop URLs")
	}
	if t.Start != "" && !strings.Contains(t.Start, "{{window_start}}") {
		bad.add("truth.start = %q: want {{window_start}} in it (the measured window's start), or the truth would count the warm-up", t.Start)
	}
	if d := e.Load.Warmup; d < minTruthWarmup {
		bad.add("load.warmup = %v: with [truth] want at least %v (the window's start is sent before it)", d, minTruthWarmup)
	}
	for _, r := range e.Runs {
		if d := r.Warmup; d != 0 && d < minTruthWarmup {
			bad.add("run %q: warmup = %v: with [truth] want at least %v (the window's start is sent before it)", r.Name, d, minTruthWarmup)
		}
	}
	return bad
}

// truthFigureNames are the figures a claim may take from a step's truth.
var truthFigureNames = []string{"stall_tail_missing", "stall_tail_due", "stall_tail_seen", "stall_expected_p50_ms", "stall_ms", "served"}

// truthWatcher wraps the step's watcher (or nil) and takes its truth.
type truthWatcher struct {
	inner       loadtest.Watcher
	start, stop string // expanded but for the window's times
	truth       json.RawMessage
	err         error
}

func (t *truthWatcher) Start(ctx context.Context, s loadtest.Settings, warmEnd time.Time) loadtest.Watch {
	tw := &truthWatch{stop: func() {
		if t.err != nil {
			return
		}
		if t.truth, t.err = post(ctx, t.stop, 30*time.Second); t.err != nil {
			t.err = fmt.Errorf("truth stop: %w", t.err)
		}
	}}
	if t.inner != nil {
		tw.inner = t.inner.Start(ctx, s, warmEnd)
	}
	end := warmEnd.Add(s.Duration)
	u := expand(t.start, map[string]string{"window_start": warmEnd.UTC().Format(time.RFC3339Nano), "window_end": end.UTC().Format(time.RFC3339Nano)})
	if _, err := post(ctx, u, 30*time.Second); err != nil {
		t.err = fmt.Errorf("truth start: %w", err)
	}
	return tw
}

type truthWatch struct {
	inner loadtest.Watch
	stop  func()
}

func (w *truthWatch) EndWindow() {
	if w.inner != nil {
		w.inner.EndWindow()
	}
}

func (w *truthWatch) Finish(successes int64, seconds float64) loadtest.Watched {
	var out loadtest.Watched
	if w.inner != nil {
		out = w.inner.Finish(successes, seconds)
	}
	w.stop()
	return out
}

// addTruth keeps a step's truth and its figures in rp, or why not.
func addTruth(rp *outcome.Repeat, raw []byte, err error) {
	if err != nil {
		rp.TruthNote = err.Error()
		return
	}
	rp.Truth = json.RawMessage(bytes.TrimSpace(raw))
	t, err := grade.DecodeTruth(bytes.NewReader(raw), "the truth stop's answer")
	if err != nil {
		rp.TruthNote = err.Error()
		return
	}
	rp.TruthFigures, rp.TruthNote = truthFigures(rp.Full, t)
}

// truthFigures holds a step's result against the server's truth; note says what could not be figured.
func truthFigures(r *loadtest.Result, t *grade.Truth) (map[string]float64, string) {
	m := map[string]float64{"served": float64(t.Requests)}
	g := grade.Lab(r, t)
	m["stall_ms"] = ms(g.StallTime)
	// A stall the window's edge cuts is not one.
	whole := false
	for _, s := range t.Stalls {
		whole = whole || !s.Start.Before(r.MeasureStart) && !s.End.After(r.End)
	}
	if !whole {
		return m, "no whole stall in the measured window"
	}
	m["stall_expected_p50_ms"] = g.Expected.P50
	if g.TailSeen < 0 {
		return m, "the step's result has no latency histogram"
	}
	m["stall_tail_due"], m["stall_tail_seen"] = g.TailDue, float64(g.TailSeen)
	if g.TailDue < 1 {
		return m, fmt.Sprintf("the tool's rate (%.1f/s) puts fewer than one request in the stalls' tail", g.Rate)
	}
	m["stall_tail_missing"] = math.Max(0, 1-float64(g.TailSeen)/g.TailDue)
	return m, ""
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
