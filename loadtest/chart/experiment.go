package chart

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"bbslab/loadtest"
)

var distributionQuantiles = []float64{0, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999}

// WriteDistributionChart draws each curve's latency against percentile, the
// axis spread as -log10(1-q) so the tail gets room, as BASE.svg and BASE.png.
func WriteDistributionChart(base string, curves []Curve) ([]string, error) {
	p := newPlot("Latency by percentile", "percentile", "ms", true)
	var ticks []plot.Tick
	for _, q := range distributionQuantiles {
		ticks = append(ticks, plot.Tick{Value: nines(q), Label: strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", 100*q), "0"), ".")})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, c := range curves {
		if len(c.Runs) == 0 || c.Runs[0] == nil {
			continue
		}
		h := c.Runs[0].Total.Histogram
		if h == nil || h.Count() == 0 {
			continue
		}
		var xys plotter.XYs
		for _, q := range distributionQuantiles {
			if q > 0 && float64(h.Count())*(1-q) < 1 {
				break // not enough samples for this percentile
			}
			xys = append(xys, plotter.XY{X: nines(q), Y: float64(h.Quantile(q)) / 1e6})
		}
		if err := addLine(p, c.Name, xys, plotutil.Color(i), nil, i); err != nil {
			return nil, err
		}
	}
	return saveAll(map[string]*plot.Plot{base: p})
}

// nines maps a quantile to -log10(1-q): 0.9 -> 1, 0.99 -> 2.
func nines(q float64) float64 {
	if q >= 1 {
		return 6
	}
	return -math.Log10(1 - q)
}

// A Bar is one named result of a bar chart.
type Bar struct {
	Name   string
	Result *loadtest.Result
}

// WriteBarCharts draws the bars as PREFIX-throughput and PREFIX-response.
func WriteBarCharts(prefix, at string, bars []Bar) ([]string, error) {
	names := make([]string, len(bars))
	thr, mean, p99 := make(plotter.Values, len(bars)), make(plotter.Values, len(bars)), make(plotter.Values, len(bars))
	for i, b := range bars {
		t := b.Result.Total
		names[i], thr[i], mean[i], p99[i] = b.Name, t.Throughput, t.MeanMs, t.P99Ms
	}
	tp := plot.New()
	tp.Title.Text = "Throughput " + at
	tp.Y.Label.Text = "successful responses / s"
	rt := plot.New()
	rt.Title.Text = "Response time " + at
	rt.Y.Label.Text = "ms"
	w := vg.Points(14)
	charts := make([]*plotter.BarChart, 3)
	for i, vs := range []plotter.Values{thr, mean, p99} {
		var err error
		if charts[i], err = plotter.NewBarChart(vs, w); err != nil {
			return nil, err
		}
	}
	b, bm, bp := charts[0], charts[1], charts[2]
	b.Color = plotutil.Color(0)
	tp.Add(b)
	bm.Color, bm.Offset = plotutil.Color(0), -w/2
	bp.Color, bp.Offset = plotutil.Color(1), w/2
	rt.Add(bm, bp)
	rt.Legend.Add("mean", bm)
	rt.Legend.Add("p99", bp)
	rt.Legend.Top = true
	// Headroom for the legend, and room for the outer bars.
	if len(bars) > 0 {
		tp.Y.Min, tp.Y.Max = 0, 1.1*slices.Max(thr)
		rt.Y.Min, rt.Y.Max = 0, 1.25*max(slices.Max(mean), slices.Max(p99))
	}
	for _, p := range []*plot.Plot{tp, rt} {
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
		p.Add(plotter.NewGrid())
	}
	return saveAll(map[string]*plot.Plot{prefix + "-throughput": tp, prefix + "-response": rt})
}

// A SpreadLine is one named line of figures measured several times.
type SpreadLine struct {
	Name   string
	Points []SpreadPoint
}

// A SpreadPoint is one x with the spread of its figure.
type SpreadPoint struct {
	X float64
	Y loadtest.Spread
}

// WriteSpreadChart draws medians with min-max bars as BASE.svg/.png, if any.
func WriteSpreadChart(base, title, xLabel, yLabel string, lines []SpreadLine) ([]string, error) {
	p := newPlot(title, xLabel, yLabel, true)
	any := false
	for j, l := range lines {
		if len(l.Points) == 0 {
			continue
		}
		any = true
		var xys plotter.XYs
		var bars errorBars
		for _, pt := range l.Points {
			xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y.Median})
			bars.add(pt.X, pt.Y)
		}
		if err := addLine(p, l.Name, xys, plotutil.Color(j), nil, j); err != nil {
			return nil, err
		}
		if err := bars.draw(p, plotutil.Color(j)); err != nil {
			return nil, err
		}
	}
	if !any {
		return nil, nil
	}
	return saveAll(map[string]*plot.Plot{base: p})
}
