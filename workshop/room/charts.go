package room

import (
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"bbslab/loadtest"
	"bbslab/loadtest/chart"
)

// A group is one chart: a run of an experiment, or a sweep or runs of
// one name, with a line per laptop.
type group struct {
	id, source, run string
	lines           []*line
	// sig names the uploads drawn, so that a chart is drawn again only
	// when they change.
	sig string
}

// line is one laptop's points of a group, by client count: its latest
// experiment or sweep, or every run it posted (a later run of a client
// count replacing the earlier).
type line struct {
	laptop string
	seq    int // the last upload drawn on it
	runs   map[int]*loadtest.Result
	spread map[int]chart.CurveSpread
}

// groups sorts the uploads' load results into charts, in the order the
// charts first got a result.
func groups(ups []*upload) []*group {
	var out []*group
	by := map[string]*group{}
	for _, u := range ups {
		for _, res := range u.Runs {
			source := u.title()
			if u.Kind == KindRun {
				source = "loadtest run"
			}
			key := source + "\x00" + res.Name
			g := by[key]
			if g == nil {
				h := fnv.New64a()
				h.Write([]byte(key))
				g = &group{id: fmt.Sprintf("%016x", h.Sum64()), source: source, run: res.Name}
				by[key] = g
				out = append(out, g)
			}
			g.add(u, res)
		}
	}
	return out
}

// add draws res, one of u's results, on the laptop's line.
func (g *group) add(u *upload, res *loadtest.Result) {
	var l *line
	for _, have := range g.lines {
		if have.laptop == u.Laptop {
			l = have
		}
	}
	if l == nil {
		l = &line{laptop: u.Laptop}
		g.lines = append(g.lines, l)
	}
	if l.seq != u.Seq { // u's first result on the line
		if u.Kind != KindRun {
			l.runs, l.spread = nil, nil // a newer experiment or sweep replaces the line
		}
		l.seq = u.Seq
		g.sig += fmt.Sprintf("%d,", u.Seq)
	}
	if l.runs == nil {
		l.runs = map[int]*loadtest.Result{}
	}
	n := res.Total.Clients
	l.runs[n] = res
	if u.Experiment == nil {
		return
	}
	for _, run := range u.Experiment.Runs {
		for _, p := range run.Points {
			if run.Name != res.Name || p.Clients != n || p.Summary == nil {
				continue
			}
			if l.spread == nil {
				l.spread = map[int]chart.CurveSpread{}
			}
			t := p.Summary.Total
			l.spread[n] = chart.CurveSpread{Throughput: t["throughput"], MeanMs: t["mean_ms"], P99Ms: t["p99_ms"]}
		}
	}
}

// curves returns the view of the groups.
func curves(ups []*upload) ([]Curves, []*group) {
	gs := groups(ups)
	out := make([]Curves, 0, len(gs))
	for _, g := range gs {
		c := Curves{ID: g.id, Sig: g.sig, Source: g.source, Run: g.run}
		for _, l := range g.lines {
			cv := Curve{Laptop: l.laptop}
			for _, n := range slices.Sorted(maps.Keys(l.runs)) {
				tp := l.runs[n].Total.Throughput
				p := Point{Clients: n, Throughput: loadtest.Spread{Median: tp, Min: tp, Max: tp, N: 1}}
				if sp, ok := l.spread[n]; ok && sp.Throughput.N > 0 {
					p.Throughput = sp.Throughput
				}
				cv.Points = append(cv.Points, p)
			}
			c.Lines = append(c.Lines, cv)
		}
		out = append(out, c)
	}
	return out, gs
}

// chartCache holds each group's throughput chart (SVG) as last drawn.
type chartCache struct {
	mu    sync.Mutex
	drawn map[string]drawnChart
}

type drawnChart struct {
	sig string
	svg []byte
}

// svg returns g's throughput chart, drawing it with loadtest/chart when
// its uploads changed since it was last drawn.
func (c *chartCache) svg(g *group) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.drawn[g.id]; ok && d.sig == g.sig {
		return d.svg, nil
	}
	var cs []chart.Curve
	for _, l := range g.lines {
		runs := make([]*loadtest.Result, 0, len(l.runs))
		for _, n := range slices.Sorted(maps.Keys(l.runs)) {
			runs = append(runs, l.runs[n])
		}
		cs = append(cs, chart.Curve{Name: l.laptop, Runs: runs, Spread: l.spread})
	}
	dir, err := os.MkdirTemp("", "room-chart-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	prefix := filepath.Join(dir, "c")
	if _, err := chart.WriteSweepCharts(prefix, cs, chart.Server{}); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(prefix + "-throughput.svg")
	if err != nil {
		return nil, err
	}
	if c.drawn == nil {
		c.drawn = map[string]drawnChart{}
	}
	c.drawn[g.id] = drawnChart{sig: g.sig, svg: b}
	return b, nil
}
