package chart

import (
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

var dashed = []vg.Length{vg.Points(5), vg.Points(3)}

// Server says which server charts a sweep has: each draws the Stats on it.
type Server struct {
	Charts []watch.Chart
	Stats  []watch.Stat
}

// serverCharts returns the server charts with a stat, by file name.
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
		p := newPlot(ch.Title, "clients", ch.YLabel, true)
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
		any := false
		for i, c := range curves {
			for _, l := range lines {
				xys, err := serverXYs(c.Runs, l.Name, l.Complement)
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

// serverXYs returns one point per run with the reading name.
func serverXYs(runs []*loadtest.Result, name string, complement bool) (plotter.XYs, error) {
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
		if complement {
			v = 100 - v
		}
		xys = append(xys, plotter.XY{X: float64(r.Total.Clients), Y: v})
	}
	return xys, nil
}
