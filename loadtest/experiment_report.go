package loadtest

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WriteExperimentReport writes the report folder of an experiment:
// experiment.json (everything measured), charts/ (SVG and PNG), report.md
// and index.html, which opens offline with its charts inline. Each run's
// folder already holds its sweep.json, server.log and profiles.
func WriteExperimentReport(dir string, res *ExperimentResult) error {
	if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
		return err
	}
	if err := WriteExperimentJSON(filepath.Join(dir, "experiment.json"), res); err != nil {
		return err
	}
	charts, err := experimentCharts(filepath.Join(dir, "charts"), res)
	if err != nil {
		return err
	}
	md := experimentMarkdown(res, charts)
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md), 0o644); err != nil {
		return err
	}
	html, err := experimentHTML(dir, res, charts)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), html, 0o644)
}

// chartFile is one chart of the report, by its base path without extension
// (relative to the report folder).
type chartFile struct {
	Title string
	Base  string
}

// experimentCharts draws throughput and response time against clients with
// one curve per run, and one chart per server reading.
func experimentCharts(dir string, res *ExperimentResult) ([]chartFile, error) {
	var curves []Curve
	for _, r := range res.Runs {
		if len(r.Points) > 0 {
			curves = append(curves, Curve{Name: r.Name, Runs: pointResults(r.Points), Spread: curveSpread(r.Points)})
		}
	}
	if len(curves) == 0 {
		return nil, nil
	}
	if _, err := WriteSweepCharts(filepath.Join(dir, "sweep"), curves); err != nil {
		return nil, err
	}
	out := []chartFile{
		{"Throughput against clients", "charts/sweep-throughput"},
		{"Response time against clients (mean solid, p99 dashed)", "charts/sweep-response"},
	}
	plots := map[string]*plot.Plot{}
	if len(res.Runs) > 1 && samePoints(res.Runs, 1) {
		// One client count: compare the runs side by side.
		tp, rt, err := runBars(res.Runs)
		if err != nil {
			return nil, err
		}
		plots[filepath.Join(dir, "runs-throughput")] = tp
		plots[filepath.Join(dir, "runs-response")] = rt
		out = append(out, chartFile{"Throughput by run", "charts/runs-throughput"}, chartFile{"Response time by run (mean and p99)", "charts/runs-response"})
	}
	if res.Distribution {
		p, err := distributionPlot(res.Runs)
		if err != nil {
			return nil, err
		}
		plots[filepath.Join(dir, "distribution")] = p
		out = append(out, chartFile{"Latency by percentile (each run's last step)", "charts/distribution"})
	}
	var cold []Curve
	for _, r := range res.Runs {
		if n := len(r.Points); n > 0 && r.Points[0].Result.Timeline != nil {
			cold = append(cold, Curve{Name: fmt.Sprintf("%s, %s", r.Name, clientsText(r.Points[0].Clients)), Runs: []*Result{r.Points[0].Result}})
		}
	}
	if len(cold) > 0 {
		if _, err := WriteColdStartChart(filepath.Join(dir, "sweep"), cold); err != nil {
			return nil, err
		}
		out = append(out, chartFile{"The first requests one by one (first step of each run)", "charts/sweep-coldstart"},
			chartFile{"p50 and p99 per 100 ms from the first request", "charts/sweep-coldstart-intervals"})
	}
	if res.Timeline {
		var last []Curve
		for _, r := range res.Runs {
			if n := len(r.Points); n > 0 {
				last = append(last, Curve{Name: r.Name + ", " + clientsText(r.Points[n-1].Clients), Runs: []*Result{r.Points[n-1].Result}})
			}
		}
		if _, err := WriteTimelineCharts(filepath.Join(dir, "sweep"), last); err != nil {
			return nil, err
		}
		out = append(out, chartFile{"Throughput per second, warm-up included", "charts/sweep-timeline-throughput"}, chartFile{"p99 per second, warm-up included", "charts/sweep-timeline-p99"})
	}
	for i, rd := range res.Readings {
		p := plot.New()
		p.Title.Text = "Server: " + rd.Name
		p.X.Label.Text = "clients"
		p.Y.Label.Text = rd.Unit
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
		any := false
		for j, r := range res.Runs {
			var xys plotter.XYs
			var bars errorBars
			for _, pt := range r.Points {
				if sp, ok := pt.readingSpread(rd.Name); ok {
					xys = append(xys, plotter.XY{X: float64(pt.Clients), Y: sp.Median})
					bars.add(float64(pt.Clients), sp)
				}
			}
			if len(xys) > 0 {
				any = true
				if err := addLine(p, r.Name, xys, plotutil.Color(j), nil, j); err != nil {
					return nil, err
				}
				if err := bars.draw(p, plotutil.Color(j)); err != nil {
					return nil, err
				}
			}
		}
		if any {
			base := fmt.Sprintf("reading-%d-%s", i+1, fileName(rd.Name))
			plots[filepath.Join(dir, base)] = p
			out = append(out, chartFile{"Server: " + rd.Name, "charts/" + base})
		}
	}
	if _, err := saveAll(plots); err != nil {
		return nil, err
	}
	return out, nil
}

// distributionQuantiles are the points of a latency distribution chart.
var distributionQuantiles = []float64{0, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999}

// distributionPlot draws latency against percentile, with the percentile
// axis spread as -log10(1-q) so the tail gets room (HdrHistogram's plot).
func distributionPlot(runs []*RunResult) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Latency by percentile"
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "ms"
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	var ticks []plot.Tick
	for _, q := range distributionQuantiles {
		ticks = append(ticks, plot.Tick{Value: nines(q), Label: strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", 100*q), "0"), ".")})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, r := range runs {
		if len(r.Points) == 0 {
			continue
		}
		last := r.Points[len(r.Points)-1]
		h := last.Result.Total.Histogram
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
		if err := addLine(p, fmt.Sprintf("%s, %s", r.Name, clientsText(last.Clients)), xys, plotutil.Color(i), nil, i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// nines maps a quantile to -log10(1-q): 0.9 -> 1, 0.99 -> 2.
func nines(q float64) float64 {
	if q >= 1 {
		return 6
	}
	return -math.Log10(1 - q)
}

// samePoints reports whether every run has n points.
func samePoints(runs []*RunResult, n int) bool {
	for _, r := range runs {
		if len(r.Points) != n {
			return false
		}
	}
	return true
}

// runBars draws throughput and response time (mean, p99) per run as bars.
func runBars(runs []*RunResult) (*plot.Plot, *plot.Plot, error) {
	names := make([]string, len(runs))
	thr, mean, p99 := make(plotter.Values, len(runs)), make(plotter.Values, len(runs)), make(plotter.Values, len(runs))
	for i, r := range runs {
		t := r.Points[0].Result.Total
		names[i], thr[i], mean[i], p99[i] = r.Name, t.Throughput, t.MeanMs, t.P99Ms
	}
	tp := plot.New()
	tp.Title.Text = "Throughput at " + clientsText(runs[0].Points[0].Clients)
	tp.Y.Label.Text = "successful responses / s"
	rt := plot.New()
	rt.Title.Text = "Response time at " + clientsText(runs[0].Points[0].Clients)
	rt.Y.Label.Text = "ms"
	w := vg.Points(14)
	b, err := plotter.NewBarChart(thr, w)
	if err != nil {
		return nil, nil, err
	}
	b.Color = plotutil.Color(0)
	tp.Add(b)
	bm, err := plotter.NewBarChart(mean, w)
	if err != nil {
		return nil, nil, err
	}
	bm.Color, bm.Offset = plotutil.Color(0), -w/2
	bp, err := plotter.NewBarChart(p99, w)
	if err != nil {
		return nil, nil, err
	}
	bp.Color, bp.Offset = plotutil.Color(1), w/2
	rt.Add(bm, bp)
	rt.Legend.Add("mean", bm)
	rt.Legend.Add("p99", bp)
	rt.Legend.Top = true
	for _, p := range []*plot.Plot{tp, rt} {
		p.NominalX(names...)
		p.Add(plotter.NewGrid())
	}
	return tp, rt, nil
}

// experimentMarkdown renders report.md. It opens with the claims.
func experimentMarkdown(res *ExperimentResult, charts []chartFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Experiment: %s\n\n", res.Name)
	if res.Quick {
		fmt.Fprintf(&b, "**%s**\n\n", quickNote)
	}
	if len(res.Claims) > 0 {
		b.WriteString("## Claims\n\n")
		for _, c := range res.Claims {
			fmt.Fprintf(&b, "- **%s: %s**%s. %s (source: %s)\n", c.ID, c.Outcome, quickMark(c), c.Text, c.Source)
			if c.Reason != "" {
				fmt.Fprintf(&b, "  - not measured: %s\n", c.Reason)
			}
			for _, k := range c.Checks {
				fmt.Fprintf(&b, "  - %s\n", k.Text)
			}
		}
		b.WriteString("\n")
	}
	if res.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(res.Description))
	}
	fmt.Fprintf(&b, "Ran %s to %s. %s\n\n", res.Start.Format("2006-01-02 15:04:05"), res.End.Format("15:04:05"), repeatsText(res))
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if res.Error != "" {
		fmt.Fprintf(&b, "\n**The experiment stopped early:** %s\n", res.Error)
	}
	if env := experimentEnvironment(res); len(env) > 0 {
		b.WriteString("\n## Environment\n\n")
		for _, l := range env {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	b.WriteString("\n## Verdict\n\n")
	for _, v := range res.Verdicts {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	if d := diskReport(res.Disk); d != nil {
		fmt.Fprintf(&b, "\n## Disk under the database\n\n%s, %d rounds, grade %s (times in ns):\n\n| op | avg | median | min | max |\n| --- | ---: | ---: | ---: | ---: |\n", d.Dir, d.N, d.Grade.Name)
		for _, st := range d.Stats {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", st.Op, st.AvgNs, st.MedianNs, st.MinNs, st.MaxNs)
		}
	}
	b.WriteString("\n## Charts\n\n")
	for _, c := range charts {
		fmt.Fprintf(&b, "![%s](%s.png)\n\n", c.Title, c.Base)
	}
	for _, r := range res.Runs {
		fmt.Fprintf(&b, "## Run %s\n\n`%s`\n\n", r.Name, strings.Join(r.Command, " "))
		if r.Error != "" {
			fmt.Fprintf(&b, "**Error:** %s\n\n", r.Error)
		}
		b.WriteString(pointTable(r, res, "|"))
		for _, g := range profileViews(r) {
			fmt.Fprintf(&b, "\n%s profile%s (%s), top functions by own samples of the first:\n\n", g.Kind, g.Where, mdLinks(g.Files))
			for _, f := range g.Top {
				fmt.Fprintf(&b, "- %5.1f %% %s\n", 100*f.Share, f.Name)
			}
			if len(g.Buckets) > 0 {
				fmt.Fprintf(&b, "\nWhere the time in focus went (profile.focus; %s of all samples were in it):\n\n", g.Focused)
				for _, f := range g.Buckets {
					fmt.Fprintf(&b, "- %s %s\n", f.Share, f.Name)
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// pointTable renders a run's points as a Markdown table, with the deadline
// shares and SLO outcomes below it.
func pointTable(r *RunResult, res *ExperimentResult, sep string) string {
	var b strings.Builder
	head, rows := pointRows(r, res.Readings)
	b.WriteString(sep + " " + strings.Join(head, " "+sep+" ") + " " + sep + "\n")
	b.WriteString(sep + strings.Repeat(" ---: "+sep, len(head)) + "\n")
	for _, row := range rows {
		b.WriteString(sep + " " + strings.Join(row, " "+sep+" ") + " " + sep + "\n")
	}
	if len(res.Deadlines) > 0 {
		head := []string{"clients"}
		for _, d := range res.Deadlines {
			head = append(head, "within "+time.Duration(d).String())
		}
		b.WriteString("\nShare of successful requests within each deadline (median repeat):\n\n")
		b.WriteString(sep + " " + strings.Join(head, " "+sep+" ") + " " + sep + "\n")
		b.WriteString(sep + strings.Repeat(" ---: "+sep, len(head)) + "\n")
		for _, p := range r.Points {
			row := []string{fmt.Sprint(p.Clients)}
			for _, w := range p.Within {
				row = append(row, fmt.Sprintf("%.3f %%", 100*w))
			}
			b.WriteString(sep + " " + strings.Join(row, " "+sep+" ") + " " + sep + "\n")
		}
	}
	if res.SLO != "" {
		fmt.Fprintf(&b, "\nSLO `%s`:\n\n", res.SLO)
		for _, p := range r.Points {
			for _, o := range p.SLO {
				word := "PASS"
				if !o.Pass {
					word = "FAIL"
				}
				fmt.Fprintf(&b, "- %s: %s %s (measured %.4g)", clientsText(p.Clients), word, o.Objective, o.Value)
				if o.Warning != "" {
					fmt.Fprintf(&b, "; warning: %s", o.Warning)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func unitParen(u string) string {
	if u == "" {
		return ""
	}
	return " (" + u + ")"
}

var reportPage = htmltemplate.Must(htmltemplate.New("report").Funcs(htmltemplate.FuncMap{
	"pct":     func(f float64) string { return fmt.Sprintf("%.1f", 100*f) },
	"join":    strings.Join,
	"dur":     func(d Duration) string { return time.Duration(d).String() },
	"pct3":    func(f float64) string { return fmt.Sprintf("%.3f", 100*f) },
	"g4":      func(f float64) string { return fmt.Sprintf("%.4g", f) },
	"base":    filepath.Base,
	"clients": clientsText,
	"rows": func(r *RunResult, readings []Reading) map[string]any {
		head, rows := pointRows(r, readings)
		return map[string]any{"Head": head, "Rows": rows}
	},
	"profiles":     profileViews,
	"quickMark":    quickMark,
	"outcomeClass": outcomeClass,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Experiment: {{.Res.Name}}</title>
<style>
body{font-family:sans-serif;max-width:64em;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f3f3f3}.err{color:#a00}.ok{color:#070}.maybe{color:#a60}.chart svg{max-width:100%;height:auto}code{background:#f6f6f6}
</style></head><body>
<h1>Experiment: {{.Res.Name}}</h1>
{{if .Res.Quick}}<p class="err"><b>{{.Quick}}</b></p>{{end}}
{{with .Res.Claims}}<h2>Claims</h2><ul>{{range .}}<li><b class="{{outcomeClass .Outcome}}">{{.ID}}: {{.Outcome}}</b>{{quickMark .}}. {{.Text}} <small>(source: {{.Source}})</small>
<ul>{{with .Reason}}<li>not measured: {{.}}</li>{{end}}{{range .Checks}}<li>{{.Text}}</li>{{end}}</ul></li>{{end}}</ul>{{end}}
{{with .Res.Description}}<p style="white-space:pre-wrap">{{.}}</p>{{end}}
<p>Ran {{.Res.Start.Format "2006-01-02 15:04:05"}} to {{.Res.End.Format "15:04:05"}}. {{.Repeats}}</p>
<ul>{{range .Res.Notes}}<li>{{.}}</li>{{end}}</ul>
{{with .Res.Error}}<p class="err"><b>The experiment stopped early:</b> {{.}}</p>{{end}}
{{with .Environment}}<h2>Environment</h2><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Verdict</h2><ul>{{range .Res.Verdicts}}<li>{{.}}</li>{{end}}</ul>
{{with .Disk}}<h2>Disk under the database</h2><p>{{.Dir}}, {{.N}} rounds, grade {{.Grade.Name}} (times in ns):</p>
<table><tr><th>op</th><th>avg</th><th>median</th><th>min</th><th>max</th></tr>{{range .Stats}}<tr><td>{{.Op}}</td><td>{{.AvgNs}}</td><td>{{.MedianNs}}</td><td>{{.MinNs}}</td><td>{{.MaxNs}}</td></tr>{{end}}</table>{{end}}
<h2>Charts</h2>
{{range .Charts}}<figure class="chart">{{.SVG}}<figcaption>{{.Title}} (<a href="{{.Base}}.png">PNG</a>, <a href="{{.Base}}.svg">SVG</a>)</figcaption></figure>{{end}}
{{$readings := .Res.Readings}}
{{range .Res.Runs}}<h2>Run {{.Name}}</h2>
<p><code>{{join .Command " "}}</code></p>
{{with .Error}}<p class="err">{{.}}</p>{{end}}
{{with rows . $readings}}<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if $.Res.Deadlines}}<p>Share of successful requests within each deadline:</p>
<table><tr><th>clients</th>{{range $.Res.Deadlines}}<th>within {{dur .}}</th>{{end}}</tr>
{{range .Points}}<tr><td>{{.Clients}}</td>{{range .Within}}<td>{{pct3 .}} %</td>{{end}}</tr>{{end}}</table>{{end}}
{{if $.Res.SLO}}<p>SLO <code>{{$.Res.SLO}}</code>:</p><ul>
{{range $p := .Points}}{{range .SLO}}<li>{{clients $p.Clients}}: {{if .Pass}}PASS{{else}}<b class="err">FAIL</b>{{end}} {{.Objective}} (measured {{g4 .Value}}){{with .Warning}}; warning: {{.}}{{end}}</li>{{end}}{{end}}</ul>{{end}}
{{range profiles .}}<h3>{{.Kind}} profile{{.Where}}: {{range $i, $f := .Files}}{{if $i}}, {{end}}<a href="{{$f}}">{{base $f}}</a>{{end}}</h3>
<p>Top functions by own samples of the first:</p>
<table><tr><th>own samples %</th><th style="text-align:left">function</th></tr>{{range .Top}}<tr><td>{{pct .Share}}</td><td style="text-align:left"><code>{{.Name}}</code></td></tr>{{end}}</table>
{{if .Buckets}}<p>Where the time in focus went (profile.focus; {{.Focused}} of all samples were in it):</p>
<table>{{range .Buckets}}<tr><td>{{.Share}}</td><td style="text-align:left">{{.Name}}</td></tr>{{end}}</table>{{end}}
{{end}}{{end}}
<p>Raw data: <a href="experiment.json">experiment.json</a>; each run's folder holds sweep.json (readable by <code>loadtest report</code>), server.log and profiles (<code>go tool pprof -top FILE</code>).</p>
</body></html>
`))

// experimentHTML renders index.html with the SVG charts inline.
func experimentHTML(dir string, res *ExperimentResult, charts []chartFile) ([]byte, error) {
	type inline struct {
		chartFile
		SVG htmltemplate.HTML
	}
	var cs []inline
	for _, c := range charts {
		svg, err := os.ReadFile(filepath.Join(dir, c.Base+".svg"))
		if err != nil {
			return nil, err
		}
		// Drop the XML prolog; the <svg> element is inlined as is.
		s := string(svg)
		if i := strings.Index(s, "<svg"); i > 0 {
			s = s[i:]
		}
		cs = append(cs, inline{c, htmltemplate.HTML(s)})
	}
	var b bytes.Buffer
	if err := reportPage.Execute(&b, map[string]any{"Res": res, "Charts": cs, "Disk": diskReport(res.Disk), "Quick": quickNote, "Repeats": repeatsText(res), "Environment": experimentEnvironment(res)}); err != nil {
		return nil, fmt.Errorf("render report: %w", err)
	}
	return b.Bytes(), nil
}
