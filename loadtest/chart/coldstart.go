package chart

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"bbslab/loadtest"
)

// WriteColdStartChart draws the latencies of the first requests by index
// (PREFIX-coldstart) and per 100 ms (PREFIX-coldstart-intervals), if any.
func WriteColdStartChart(prefix string, curves []Curve) ([]string, error) {
	iv, err := coldStartIntervals(curves)
	if err != nil {
		return nil, err
	}
	p, ok, err := coldStartRequests(curves)
	if err != nil || !ok {
		return nil, err
	}
	return saveAll(map[string]*plot.Plot{prefix + "-coldstart": p, prefix + "-coldstart-intervals": iv})
}

// firstTimeline returns the first Timeline of c's runs and that warm-up.
func firstTimeline(c Curve) (*loadtest.Timeline, time.Duration) {
	for _, r := range c.Runs {
		if r.Timeline != nil {
			return r.Timeline, r.Settings.Warmup
		}
	}
	return nil, 0
}

// logPlot is an empty plot with a grid and a log-scaled y axis in ms.
func logPlot(title, x string) *plot.Plot {
	p := newPlot(title, x, "ms (log)", false)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	return p
}

// yRange is the range of the y values drawn, for the vertical marks.
type yRange struct {
	lo, hi float64
	n      int
}

func (r *yRange) add(lo, hi float64) {
	if r.n == 0 || lo < r.lo {
		r.lo = lo
	}
	r.hi = max(r.hi, hi)
	r.n++
}

var warmupDash = []vg.Length{vg.Points(6), vg.Points(3)}

// A mark is a vertical line at x, named in the legend.
type mark struct {
	x     float64
	label string
	col   color.Color
	dash  []vg.Length
}

func drawMarks(p *plot.Plot, marks []mark, r yRange) error {
	for _, m := range marks {
		l, err := plotter.NewLine(plotter.XYs{{X: m.x, Y: r.lo}, {X: m.x, Y: r.hi}})
		if err != nil {
			return fmt.Errorf("chart %s: %w", m.label, err)
		}
		l.Color, l.Width, l.Dashes = m.col, vg.Points(2), m.dash
		p.Add(l)
		p.Legend.Add(m.label, l)
	}
	return nil
}

func coldStartIntervals(curves []Curve) (*plot.Plot, error) {
	iv := logPlot("Cold start: latency per 100 ms (p50 solid, p99 dashed)", "seconds since start")
	var ys yRange
	var marks []mark
	for i, c := range curves {
		tl, warmup := firstTimeline(c)
		if tl == nil {
			continue
		}
		var p50, p99 plotter.XYs
		for _, in := range tl.Intervals {
			if in.Successes == 0 {
				continue
			}
			a, b := max(in.P50Ms, 0.001), max(in.P99Ms, 0.001)
			p50 = append(p50, plotter.XY{X: in.T, Y: a})
			p99 = append(p99, plotter.XY{X: in.T, Y: b})
			ys.add(a, b)
		}
		if err := addLine(iv, c.Name+" p50", p50, plotutil.Color(i), nil, -1); err != nil {
			return nil, err
		}
		if err := addLine(iv, c.Name+" p99", p99, plotutil.Color(i), dashed, -1); err != nil {
			return nil, err
		}
		if x := warmup.Seconds(); warmup > 0 && len(p50) > 0 {
			marks = append(marks, mark{x, fmt.Sprintf("%s warm-up ends (%.3g s)", c.Name, x), plotutil.Color(i), warmupDash})
		}
	}
	if err := drawMarks(iv, marks, ys); err != nil {
		return nil, err
	}
	return iv, nil
}

// coldStartRequests is false when no timeline has a successful request.
func coldStartRequests(curves []Curve) (p *plot.Plot, ok bool, err error) {
	p = logPlot("Cold start: latency of the first requests", "request index")
	var marks []mark
	var ys yRange
	for i, c := range curves {
		tl, _ := firstTimeline(c)
		if tl == nil {
			continue
		}
		var xys plotter.XYs
		for _, rq := range tl.Requests {
			if rq.Error != "" {
				continue
			}
			y := max(rq.LatencyMs, 0.001) // the log scale needs y > 0
			xys = append(xys, plotter.XY{X: float64(rq.I), Y: y})
			ys.add(y, y)
		}
		col := plotutil.Color(i)
		l, err := plotter.NewLine(xys)
		if err != nil {
			continue // no successful request
		}
		l.Color = col
		l.Width = vg.Points(1)
		p.Add(l)
		p.Legend.Add(c.Name, l)
		if tl.WarmupIndex > 0 {
			marks = append(marks, mark{float64(tl.WarmupIndex), fmt.Sprintf("%s warm-up ends (#%d)", c.Name, tl.WarmupIndex), col, warmupDash})
		}
		if tl.SteadyIndex >= 0 {
			marks = append(marks, mark{float64(tl.SteadyIndex), fmt.Sprintf("%s steady from #%d", c.Name, tl.SteadyIndex), col, []vg.Length{vg.Points(1.5), vg.Points(2.5)}})
		}
	}
	if ys.n == 0 {
		return nil, false, nil
	}
	if err := drawMarks(p, marks, ys); err != nil {
		return nil, false, err
	}
	return p, true, nil
}
