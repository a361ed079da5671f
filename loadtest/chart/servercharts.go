package chart

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

var dashed = []vg.Length{vg.Points(5), vg.Points(3)}

// Server says which server charts a sweep has: each of Charts draws, one
// line per curve, the Stats whose Chart is its Name (the target's
// package says which: for the board, package contract).
type Server struct {
	Charts []watch.Chart
	Stats  []watch.Stat
}

// serverCharts returns the sweep's server charts, keyed by file name
// without extension: one per chart of srv for which some run has one of
// its stats, titled with its lines' legends ("process solid, machine
// busy dashed").
func serverCharts(prefix string, curves []Curve, srv Server) (map[string]*plot.Plot, error) {
	out := map[string]*plot.Plot{}
	for _, ch := range srv.Charts {
		var lines []watch.Stat
		for _, r := range srv.Stats {
			if r.Chart == ch.Name {
				lines = append(lines, r)
			}
		}
		if len(lines) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = ch.Title
		if len(lines) > 1 {
			var parts []string
			for _, l := range lines {
				style := "solid"
				if l.Dashed {
					style = "dashed"
				}
				parts = append(parts, l.Legend+" "+style)
			}
			p.Title.Text += " (" + strings.Join(parts, ", ") + ")"
		}
		p.X.Label.Text = "clients"
		p.Y.Label.Text = ch.YLabel
		p.Legend.Top = true
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
		any := false
		for i, c := range curves {
			for _, l := range lines {
				var f func(float64) float64
				if l.Complement {
					f = func(v float64) float64 { return 100 - v }
				}
				xys, err := serverXYs(c.Runs, l.Name, f)
				if err != nil {
					return nil, err
				}
				any = any || len(xys) > 0
				var dashes []vg.Length
				if l.Dashed {
					dashes = dashed
				}
				if err := addLine(p, c.Name+" "+l.Legend, xys, plotutil.Color(i), dashes, i); err != nil {
					return nil, err
				}
			}
		}
		if any {
			out[prefix+"-server-"+ch.Name] = p
		}
	}
	return out, nil
}

// serverXYs returns one point per run (sorted by clients) that has the
// reading name, mapped through f when given.
func serverXYs(runs []*loadtest.Result, name string, f func(float64) float64) (plotter.XYs, error) {
	var xys plotter.XYs
	for _, r := range sortedByClients(runs) {
		seen, err := watch.Of(r)
		if err != nil {
			return nil, err
		}
		v, ok := seen.Server.Value(name)
		if !ok {
			continue
		}
		if f != nil {
			v = f(v)
		}
		xys = append(xys, plotter.XY{X: float64(r.Total.Clients), Y: v})
	}
	return xys, nil
}

// WriteColdStartChart draws each curve's first requests (the Timeline of
// its first run that has one): latency in ms on a log scale against the
// request index, with the warm-up cut (dashed) and the detected steady
// state (dotted) marked; and the p50 (solid) and p99 (dashed) of every 100 ms
// against time, the end of the warm-up marked. It saves
// PREFIX-coldstart.svg/.png and PREFIX-coldstart-intervals.svg/.png and
// returns the files written, none when no run has a timeline.
func WriteColdStartChart(prefix string, curves []Curve) ([]string, error) {
	iv := plot.New()
	iv.Title.Text = "Cold start: latency per 100 ms (p50 solid, p99 dashed)"
	iv.X.Label.Text = "seconds since start"
	iv.Y.Label.Text = "ms (log)"
	iv.Y.Scale = plot.LogScale{}
	iv.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	iv.Legend.Top = true
	iv.Add(plotter.NewGrid())
	ivLo, ivHi, ivN := 0.0, 0.0, 0
	var warmups []plotter.XY // x: warm-up seconds, y: curve index

	p := plot.New()
	p.Title.Text = "Cold start: latency of the first requests"
	p.X.Label.Text = "request index"
	p.Y.Label.Text = "ms (log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	type mark struct {
		x     int
		label string
		col   color.Color
		dash  []vg.Length
	}
	var marks []mark
	lo, hi := 0.0, 0.0
	n := 0
	for i, c := range curves {
		var tl *loadtest.Timeline
		var warmup time.Duration
		for _, r := range c.Runs {
			if r.Timeline != nil {
				tl, warmup = r.Timeline, r.Settings.Warmup
				break
			}
		}
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
			if ivN == 0 || a < ivLo {
				ivLo = a
			}
			ivHi = max(ivHi, b)
			ivN++
		}
		if err := addLine(iv, c.Name+" p50", p50, plotutil.Color(i), nil, -1); err != nil {
			return nil, err
		}
		if err := addLine(iv, c.Name+" p99", p99, plotutil.Color(i), dashed, -1); err != nil {
			return nil, err
		}
		if w := warmup; w > 0 && len(p50) > 0 {
			warmups = append(warmups, plotter.XY{X: w.Seconds(), Y: float64(i)})
		}
		var xys plotter.XYs
		for _, rq := range tl.Requests {
			if rq.Error != "" {
				continue
			}
			y := max(rq.LatencyMs, 0.001) // the log scale needs y > 0
			xys = append(xys, plotter.XY{X: float64(rq.I), Y: y})
			if n == 0 || y < lo {
				lo = y
			}
			if y > hi {
				hi = y
			}
			n++
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
			marks = append(marks, mark{tl.WarmupIndex, fmt.Sprintf("%s warm-up ends (#%d)", c.Name, tl.WarmupIndex), col, []vg.Length{vg.Points(6), vg.Points(3)}})
		}
		if tl.SteadyIndex >= 0 {
			marks = append(marks, mark{tl.SteadyIndex, fmt.Sprintf("%s steady from #%d", c.Name, tl.SteadyIndex), col, []vg.Length{vg.Points(1.5), vg.Points(2.5)}})
		}
	}
	if n == 0 {
		return nil, nil
	}
	for _, m := range marks {
		l, err := plotter.NewLine(plotter.XYs{{X: float64(m.x), Y: lo}, {X: float64(m.x), Y: hi}})
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", m.label, err)
		}
		l.Color = m.col
		l.Width = vg.Points(2)
		l.Dashes = m.dash
		p.Add(l)
		p.Legend.Add(m.label, l)
	}
	for _, w := range warmups {
		l, err := plotter.NewLine(plotter.XYs{{X: w.X, Y: ivLo}, {X: w.X, Y: ivHi}})
		if err != nil {
			return nil, fmt.Errorf("chart warm-up: %w", err)
		}
		l.Color = plotutil.Color(int(w.Y))
		l.Width = vg.Points(2)
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		iv.Add(l)
		iv.Legend.Add(fmt.Sprintf("%s warm-up ends (%.3g s)", curves[int(w.Y)].Name, w.X), l)
	}
	return saveAll(map[string]*plot.Plot{prefix + "-coldstart": p, prefix + "-coldstart-intervals": iv})
}
