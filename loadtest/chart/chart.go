package chart

import (
	"fmt"
	"image/color"
	"maps"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"bbslab/loadtest"
)

// A Curve is one labelled set of runs drawn as one line, with its Spread.
type Curve struct {
	Name   string
	Runs   []*loadtest.Result
	Spread map[int]CurveSpread
}

// CurveSpread is one point's figures over its repeats.
type CurveSpread struct {
	Throughput, MeanMs, P99Ms loadtest.Spread
}

const (
	chartW = 7 * vg.Inch
	chartH = 4.5 * vg.Inch
)

// WriteSweepCharts draws PREFIX-throughput, PREFIX-response and the server
// charts of srv (PREFIX-server-<name>) against clients.
func WriteSweepCharts(prefix string, curves []Curve, srv Server) ([]string, error) {
	// Throughput curves rise and stay high: the legend goes lower right.
	tp := newPlot("Throughput", "clients", "successful responses / s", false)
	tp.Legend.Top = false
	rt := newPlot("Response time (mean solid, p99 dashed)", "clients", "ms", true)
	tp.Y.Min, rt.Y.Min = 0, 0 // a curve that starts at zero does not exaggerate
	for i, c := range curves {
		runs := sortedByClients(c.Runs)
		thr := make(plotter.XYs, len(runs))
		mean := make(plotter.XYs, len(runs))
		p99 := make(plotter.XYs, len(runs))
		var thrBars, meanBars, p99Bars errorBars
		for j, r := range runs {
			x := float64(r.Total.Clients)
			thr[j] = plotter.XY{X: x, Y: r.Total.Throughput}
			mean[j] = plotter.XY{X: x, Y: r.Total.MeanMs}
			p99[j] = plotter.XY{X: x, Y: r.Total.P99Ms}
			if sp, ok := c.Spread[r.Total.Clients]; ok {
				thr[j].Y, mean[j].Y, p99[j].Y = sp.Throughput.Median, sp.MeanMs.Median, sp.P99Ms.Median
				thrBars.add(x, sp.Throughput)
				meanBars.add(x, sp.MeanMs)
				p99Bars.add(x, sp.P99Ms)
			}
		}
		col := plotutil.Color(i)
		for _, b := range []struct {
			p    *plot.Plot
			bars errorBars
		}{{tp, thrBars}, {rt, meanBars}, {rt, p99Bars}} {
			if err := b.bars.draw(b.p, col); err != nil {
				return nil, fmt.Errorf("chart %s: %w", c.Name, err)
			}
		}
		if err := addLine(tp, c.Name, thr, col, nil, i); err != nil {
			return nil, err
		}
		if err := addLine(rt, c.Name+" mean", mean, col, nil, i); err != nil {
			return nil, err
		}
		if err := addLine(rt, c.Name+" p99", p99, col, dashed, i); err != nil {
			return nil, err
		}
		if i == 0 && len(runs) > 0 {
			s := runs[0].Settings
			if s.Think > 0 && s.Model != loadtest.ModelOpen {
				ideal := make(plotter.XYs, len(runs))
				for j, r := range runs {
					ideal[j] = plotter.XY{X: float64(r.Total.Clients), Y: float64(r.Total.Clients) / s.Think.Seconds()}
				}
				l, err := plotter.NewLine(ideal)
				if err != nil {
					return nil, err
				}
				l.Color = color.Gray{Y: 128}
				l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
				tp.Add(l)
				tp.Legend.Add(fmt.Sprintf("ideal clients/think (%v)", s.Think), l)
			}
		}
	}
	plots, err := serverCharts(prefix, curves, srv)
	if err != nil {
		return nil, err
	}
	plots[prefix+"-throughput"], plots[prefix+"-response"] = tp, rt
	return saveAll(plots)
}

func sortedByClients(runs []*loadtest.Result) []*loadtest.Result {
	out := append([]*loadtest.Result(nil), runs...)
	sort.SliceStable(out, func(a, b int) bool { return out[a].Total.Clients < out[b].Total.Clients })
	return out
}

// WriteTimelineCharts draws per-second throughput and p99 (PREFIX-timeline-*).
func WriteTimelineCharts(prefix string, curves []Curve) ([]string, error) {
	tp := newPlot("Throughput per second", "seconds since start", "successful responses / s", false)
	lp := newPlot("p99 response time per second", "seconds since start", "ms", false)
	for i, c := range curves {
		if len(c.Runs) == 0 || len(c.Runs[0].Series) == 0 {
			continue
		}
		ser := c.Runs[0].Series
		thr := make(plotter.XYs, len(ser))
		p99 := make(plotter.XYs, len(ser))
		for j, r := range ser {
			thr[j] = plotter.XY{X: r.T, Y: r.Throughput}
			p99[j] = plotter.XY{X: r.T, Y: r.P99Ms}
		}
		for p, xys := range map[*plot.Plot]plotter.XYs{tp: thr, lp: p99} {
			if err := addLine(p, c.Name, xys, plotutil.Color(i), nil, -1); err != nil {
				return nil, err
			}
		}
	}
	return saveAll(map[string]*plot.Plot{prefix + "-timeline-throughput": tp, prefix + "-timeline-p99": lp})
}

// newPlot is an empty plot with a grid, its legend at the top (left).
func newPlot(title, x, y string, left bool) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top, p.Legend.Left = true, left
	p.Add(plotter.NewGrid())
	return p
}

// addLine adds a line (with point glyphs when shape >= 0) and its legend.
func addLine(p *plot.Plot, name string, xys plotter.XYs, col color.Color, dashes []vg.Length, shape int) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("chart %s: %w", name, err)
	}
	l.Color = col
	l.Width = vg.Points(1.5)
	l.Dashes = dashes
	p.Add(l)
	if shape >= 0 {
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("chart %s: %w", name, err)
		}
		s.Color = col
		s.Shape = plotutil.Shape(shape)
		s.Radius = vg.Points(2.5)
		p.Add(s)
		p.Legend.Add(name, l, s)
		return nil
	}
	p.Legend.Add(name, l)
	return nil
}

// saveAll writes each plot as SVG and PNG.
func saveAll(plots map[string]*plot.Plot) ([]string, error) {
	var files []string
	for _, n := range slices.Sorted(maps.Keys(plots)) {
		for _, ext := range []string{".svg", ".png"} {
			if err := plots[n].Save(chartW, chartH, n+ext); err != nil {
				return files, fmt.Errorf("save chart %s: %w", n+ext, err)
			}
			files = append(files, n+ext)
		}
	}
	return files, nil
}

// errorBars are the min-max ranges of repeated measurements.
type errorBars struct {
	plotter.XYs
	plotter.YErrors
}

// add adds the range of s at x; a single measurement has none.
func (b *errorBars) add(x float64, s loadtest.Spread) {
	if s.N < 2 {
		return
	}
	b.XYs = append(b.XYs, plotter.XY{X: x, Y: s.Median})
	b.YErrors = append(b.YErrors, struct{ Low, High float64 }{s.Median - s.Min, s.Max - s.Median})
}

func (b errorBars) draw(p *plot.Plot, col color.Color) error {
	if len(b.XYs) == 0 {
		return nil
	}
	e, err := plotter.NewYErrorBars(b)
	if err != nil {
		return err
	}
	e.Color = col
	p.Add(e)
	return nil
}
