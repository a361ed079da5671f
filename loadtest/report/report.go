package report

import (
	"bytes"
	"cmp"
	"fmt"
	htmltemplate "html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// controlMarkdown prints a claim's control under it, with its figures.
func controlMarkdown(c outcome.Claim) string {
	if c.Control == nil {
		return "  - no control: nothing shows these checks fail where the effect is absent\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  - control (%s): **%s**", c.Control.Why, c.Control.Outcome)
	if c.Control.Reason != "" {
		fmt.Fprintf(&b, ": %s", c.Control.Reason)
	}
	b.WriteString("\n")
	for _, k := range c.Control.Checks {
		fmt.Fprintf(&b, "    - %s\n", k.Text)
	}
	return b.String()
}

// Options are what the report shows beyond the result.
type Options struct {
	Disk   *watch.DiskTable
	Charts chart.Server
	// Frames, when set, make index.html the dashboard with them inlined.
	Frames []live.Frame
	Lang   string // "ja" or English
}

// Write writes the report folder of an experiment.
func Write(dir string, res *outcome.Result, o Options) error {
	if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
		return err
	}
	if err := outcome.WriteJSON(filepath.Join(dir, "experiment.json"), res); err != nil {
		return err
	}
	charts, err := experimentCharts(filepath.Join(dir, "charts"), res, o.Charts)
	if err != nil {
		return err
	}
	md := sayMarkdown(o.Lang, experimentMarkdown(res, charts, o.Disk))
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md), 0o644); err != nil {
		return err
	}
	data, err := reportData(dir, res, charts, o.Disk)
	if err != nil {
		return err
	}
	data["Lang"], data["SideBySide"] = cmp.Or(o.Lang, "en"), sayMarkdown(o.Lang, data["SideBySide"].(string))
	page := htmltemplate.Must(reportPage.Clone()).Funcs(wordFuncs(o.Lang))
	name := "report"
	if o.Frames != nil {
		name = "sections" // below the dashboard's panels
	}
	var b bytes.Buffer
	if err := page.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	if o.Frames != nil {
		return writeDashboard(filepath.Join(dir, "index.html"), o.Frames, say(o.Lang, "Experiment: {0}", res.Name),
			live.Appendix(htmltemplate.HTML(b.String()), appendixCSS), live.Lang(o.Lang))
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), b.Bytes(), 0o644)
}

// chartFile is one chart of the report, by its path without extension.
type chartFile struct {
	Title string
	Base  string
}

// experimentCharts draws the report's charts of the points with a used measurement.
func experimentCharts(dir string, res *outcome.Result, srv chart.Server) ([]chartFile, error) {
	res = res.MeasuredOnly()
	var curves []chart.Curve
	for _, r := range res.Runs {
		if len(r.Points) > 0 {
			curves = append(curves, chart.Curve{Name: r.Name, Runs: outcome.Results(r.Points), Spread: curveSpread(r.Points)})
		}
	}
	if len(curves) == 0 {
		return nil, nil
	}
	if _, err := chart.WriteSweepCharts(filepath.Join(dir, "sweep"), curves, srv); err != nil {
		return nil, err
	}
	out := []chartFile{
		{"Throughput against clients", "charts/sweep-throughput"},
		{"Response time against clients (mean solid, p99 dashed)", "charts/sweep-response"},
	}
	notOne := func(r *outcome.Run) bool { return len(r.Points) != 1 }
	if len(res.Runs) > 1 && !slices.ContainsFunc(res.Runs, notOne) {
		first := func(r *outcome.Run) int { return r.Points[0].Clients }
		at := "at " + outcome.ClientsText(first(res.Runs[0]))
		if slices.ContainsFunc(res.Runs, func(r *outcome.Run) bool { return first(r) != first(res.Runs[0]) }) {
			at = "by run"
		}
		bars := make([]chart.Bar, len(res.Runs))
		for i, r := range res.Runs {
			bars[i] = chart.Bar{Name: r.Name, Result: r.Points[0].Result}
			if at == "by run" {
				bars[i].Name += ", " + outcome.ClientsText(first(r))
			}
		}
		if _, err := chart.WriteBarCharts(filepath.Join(dir, "runs"), at, bars); err != nil {
			return nil, err
		}
		out = append(out, chartFile{"Throughput by run", "charts/runs-throughput"}, chartFile{"Response time by run (mean and p99)", "charts/runs-response"})
	}
	if res.Distribution {
		if _, err := chart.WriteDistributionChart(filepath.Join(dir, "distribution"), lastSteps(res)); err != nil {
			return nil, err
		}
		out = append(out, chartFile{"Latency by percentile (each run's last step)", "charts/distribution"})
	}
	var cold []chart.Curve
	for _, r := range res.Runs {
		if n := len(r.Points); n > 0 && r.Points[0].Result.Timeline != nil {
			cold = append(cold, chart.Curve{Name: fmt.Sprintf("%s, %s", r.Name, outcome.ClientsText(r.Points[0].Clients)), Runs: []*loadtest.Result{r.Points[0].Result}})
		}
	}
	if len(cold) > 0 {
		if _, err := chart.WriteColdStartChart(filepath.Join(dir, "sweep"), cold); err != nil {
			return nil, err
		}
		out = append(out, chartFile{"The first requests one by one (first step of each run)", "charts/sweep-coldstart"},
			chartFile{"p50 and p99 per 100 ms from the first request", "charts/sweep-coldstart-intervals"})
	}
	if res.Timeline {
		if _, err := chart.WriteTimelineCharts(filepath.Join(dir, "sweep"), lastSteps(res)); err != nil {
			return nil, err
		}
		out = append(out, chartFile{"Throughput per second, warm-up included", "charts/sweep-timeline-throughput"}, chartFile{"p99 per second, warm-up included", "charts/sweep-timeline-p99"})
	}
	for i, rd := range res.Stats {
		var lines []chart.SpreadLine
		for _, r := range res.Runs {
			l := chart.SpreadLine{Name: r.Name}
			for _, pt := range r.Points {
				if sp, ok := pt.ReadingSpread(rd.Name); ok {
					l.Points = append(l.Points, chart.SpreadPoint{X: float64(pt.Clients), Y: sp})
				}
			}
			lines = append(lines, l)
		}
		base := fmt.Sprintf("reading-%d-%s", i+1, outcome.FileName(rd.Name))
		files, err := chart.WriteSpreadChart(filepath.Join(dir, base), "Server: "+rd.Name, "clients", rd.Unit, lines)
		if err != nil {
			return nil, err
		}
		if len(files) > 0 {
			out = append(out, chartFile{"Server: " + rd.Name, "charts/" + base})
		}
	}
	return out, nil
}

// lastSteps are each run's last point, one curve each.
func lastSteps(res *outcome.Result) []chart.Curve {
	var last []chart.Curve
	for _, r := range res.Runs {
		if n := len(r.Points); n > 0 {
			last = append(last, chart.Curve{Name: r.Name + ", " + outcome.ClientsText(r.Points[n-1].Clients), Runs: []*loadtest.Result{r.Points[n-1].Result}})
		}
	}
	return last
}

// experimentMarkdown renders report.md. It opens with the claims.
func experimentMarkdown(res *outcome.Result, charts []chartFile, disk *watch.DiskTable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Experiment: %s\n\n", res.Name)
	if res.Quick {
		fmt.Fprintf(&b, "**%s**\n\n", outcome.QuickNote)
	}
	if t := RemeasuredText(res); t != "" {
		fmt.Fprintf(&b, "**%s** (Below: \"Re-measured points\".)\n\n", t)
	}
	if len(res.Claims) > 0 {
		fmt.Fprintf(&b, "## Claims\n\n%s. Each claim's control is its checks where the effect is absent: a claim is reproduced only when its control is not.\n\n", res.ClaimCounts())
		for _, c := range res.Claims {
			fmt.Fprintf(&b, "- **%s: %s**%s. %s (source: %s)\n", c.ID, c.Outcome, c.QuickMark(), c.Text, c.Source)
			if c.Reason != "" {
				fmt.Fprintf(&b, "  - why: %s\n", c.Reason)
			}
			for _, x := range c.Explained {
				fmt.Fprintf(&b, "  - what the readings say: %s\n", x)
			}
			for _, k := range c.Checks {
				fmt.Fprintf(&b, "  - %s\n", k.Text)
			}
			b.WriteString(controlMarkdown(c))
		}
		b.WriteString("\n")
	}
	b.WriteString(remeasuredMarkdown(res))
	if res.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(res.Description))
	}
	fmt.Fprintf(&b, "Ran %s to %s. %s\n\n", res.Start.Format("2006-01-02 15:04:05 MST"), res.End.Format("15:04:05 MST"), repeatsText(res))
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if res.Error != "" {
		fmt.Fprintf(&b, "\n**The experiment stopped early:** %s\n", res.Error)
	}
	for _, c := range calibrations(res) {
		b.WriteString(calibrationMarkdown(c))
	}
	if op := claim.OperatingPoint(res); op != "" {
		fmt.Fprintf(&b, "\n%s\n", op)
	}
	b.WriteString(tuneMarkdown(res))
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
	if d := disk; d != nil && len(d.Head) > 0 {
		fmt.Fprintf(&b, "\n## Disk under the database\n\n%s:\n\n| %s |\n|%s\n", d.Caption, strings.Join(d.Head, " | "), strings.Repeat(" --- |", len(d.Head)))
		for _, row := range d.Rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	b.WriteString(profilesSideBySide(res, 8))
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
		for _, g := range profileViews(r.MeasuredOnly()) {
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

// remeasuredMarkdown lists the points measured again with every attempt.
func remeasuredMarkdown(res *outcome.Result) string {
	ps := remeasured(res)
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Re-measured points\n\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "- **%s at %s**", p.Run, outcome.ClientsText(p.Clients))
		if p.Busy != "" {
			fmt.Fprintf(&b, ": not measured: %s", p.Busy)
		}
		b.WriteString("\n")
		for _, rp := range p.Attempts {
			fmt.Fprintf(&b, "  - %s\n", attemptText(rp))
		}
	}
	return b.String() + "\n"
}

// pointTable renders a run's points as a table, with deadline shares and SLO outcomes.
func pointTable(r *outcome.Run, res *outcome.Result, sep string) string {
	var b strings.Builder
	row := func(cells []string) { b.WriteString(sep + " " + strings.Join(cells, " "+sep+" ") + " " + sep + "\n") }
	table := func(head []string, rows [][]string) {
		row(head)
		b.WriteString(sep + strings.Repeat(" ---: "+sep, len(head)) + "\n")
		for _, cells := range rows {
			row(cells)
		}
	}
	table(pointRows(r, res))
	if note := absentNote(r, res); note != "" {
		b.WriteString("\n" + note + "\n")
	}
	if len(res.Deadlines) > 0 {
		head := []string{"clients"}
		for _, d := range res.Deadlines {
			head = append(head, "within "+time.Duration(d).String())
		}
		b.WriteString("\nShare of successful requests within each deadline (median repeat):\n\n")
		var rows [][]string
		for _, p := range r.Points {
			row := []string{fmt.Sprint(p.Clients)}
			for _, w := range p.Within {
				row = append(row, fmt.Sprintf("%.3f %%", 100*w))
			}
			rows = append(rows, row)
		}
		table(head, rows)
	}
	if res.SLO != "" {
		fmt.Fprintf(&b, "\nSLO `%s`:\n\n", res.SLO)
		for _, p := range r.Points {
			for _, o := range p.SLO {
				word := "PASS"
				if !o.Pass {
					word = "FAIL"
				}
				fmt.Fprintf(&b, "- %s: %s %s (measured %.4g)", outcome.ClientsText(p.Clients), word, o.Objective, o.Value)
				if o.Warning != "" {
					fmt.Fprintf(&b, "; warning: %s", o.Warning)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

var reportPage = htmltemplate.Must(htmltemplate.New("report").Funcs(htmltemplate.FuncMap{
	"pct":     func(f float64) string { return fmt.Sprintf("%.1f", 100*f) },
	"join":    strings.Join,
	"dur":     func(d cli.Duration) string { return time.Duration(d).String() },
	"pct3":    func(f float64) string { return fmt.Sprintf("%.3f", 100*f) },
	"g4":      func(f float64) string { return fmt.Sprintf("%.4g", f) },
	"base":    filepath.Base,
	"clients": outcome.ClientsText,
	"rows": func(r *outcome.Run, res *outcome.Result) map[string]any {
		head, rows := pointRows(r, res)
		return map[string]any{"Head": head, "Rows": rows, "Note": absentNote(r, res)}
	},
	"profiles":     func(r *outcome.Run) []profileView { return profileViews(r.MeasuredOnly()) },
	"quickMark":    outcome.Claim.QuickMark,
	"outcomeClass": func(o live.Outcome) string { return cmp.Or(outcomeClasses[o], "maybe") },
	"controlClass": func(o live.Outcome) string { return cmp.Or(controlClasses[o], "maybe") },
	"attempt":      attemptText,
}).Funcs(wordFuncs("")).Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{say "Experiment: {0}" .Res.Name}}</title>
<style>
body{font-family:sans-serif;max-width:64em;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f3f3f3}.err{color:#a00}.ok{color:#070}.maybe{color:#a60}.chart svg{max-width:100%;height:auto}code{background:#f6f6f6}
</style></head><body>
<h1>{{say "Experiment: {0}" .Res.Name}}</h1>
{{template "sections" .}}
</body></html>
{{define "sections"}}{{if .Res.Quick}}<p class="err"><b>{{.Quick}}</b></p>{{end}}
{{with .Remeasured}}<p class="maybe"><b>{{.}}</b> (Below: "Re-measured points".)</p>{{end}}
{{with .Res.Claims}}<h2>{{say "Claims"}}</h2><p>{{claimCounts .}}{{say ". "}}{{say "Each claim's control is its checks where the effect is absent: a claim is reproduced only when its control is not."}}</p><ul>{{range .}}<li><b class="{{outcomeClass .Outcome}}">{{.ID}}: {{say .Outcome}}</b>{{quickMark .}}. {{.Text}} <small>(source: {{.Source}})</small>
<ul>{{with .Reason}}<li>why: {{.}}</li>{{end}}{{range .Explained}}<li>what the readings say: {{.}}</li>{{end}}{{range .Checks}}<li>{{.Text}}</li>{{end}}{{with .Control}}<li>{{say "control"}} ({{.Why}}): <b class="{{controlClass .Outcome}}">{{say .Outcome}}</b>{{with .Reason}}: {{.}}{{end}}<ul>{{range .Checks}}<li>{{.Text}}</li>{{end}}</ul></li>{{else}}<li>no control: nothing shows these checks fail where the effect is absent</li>{{end}}</ul></li>{{end}}</ul>{{end}}
{{with .Points}}<h2>{{say "Re-measured points"}}</h2><ul>{{range .}}<li><b>{{.Run}} at {{clients .Clients}}</b>{{with .Busy}}: not measured: {{.}}{{end}}
<ul>{{range .Attempts}}<li>{{attempt .}}</li>{{end}}</ul></li>{{end}}</ul>{{end}}
{{with .Res.Description}}<p style="white-space:pre-wrap">{{.}}</p>{{end}}
<p>Ran {{.Res.Start.Format "2006-01-02 15:04:05"}} to {{.Res.End.Format "15:04:05"}}. {{.Repeats}}</p>
<ul>{{range .Res.Notes}}<li>{{.}}</li>{{end}}</ul>
{{with .Res.Error}}<p class="err"><b>The experiment stopped early:</b> {{.}}</p>{{end}}
{{range .Calibrations}}<h2>{{if .Sweep}}{{say "Calibration redone before sweep {0}" .Sweep}}{{else}}{{say "Calibration"}}{{end}}</h2><p>{{with .Reason}}Why: {{.}}. {{end}}{{.Summary}}. {{.Method}}.</p>
<table><tr><th>{{.Var}}</th><th>throughput/s</th><th>{{.ReadingHead}}</th><th>CPU per request ms</th><th>used</th></tr>
{{range .Table}}<tr><td>{{printf "%.3f" .WaitMs}} ms</td><td>{{printf "%.1f" .Throughput}}</td><td>{{printf "%.1f" .Reading}}</td><td>{{printf "%.3f" .CPUPerRequestMs}}</td><td>{{.Used}}</td></tr>{{end}}</table>{{end}}
{{with .OperatingPoint}}<p>{{.}}</p>{{end}}
{{with .Environment}}<h2>{{say "Environment"}}</h2><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>{{say "Verdict"}}</h2><ul>{{range .Res.Verdicts}}<li>{{.}}</li>{{end}}</ul>
{{with .Disk}}<h2>{{say "Disk under the database"}}</h2><p>{{.Caption}}:</p>
<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{with .SideBySide}}<pre>{{.}}</pre>{{end}}
<h2>{{say "Charts"}}</h2>
{{range .Charts}}<figure class="chart">{{.SVG}}<figcaption>{{sayAgain .Title}} (<a href="{{.Base}}.png">PNG</a>, <a href="{{.Base}}.svg">SVG</a>)</figcaption></figure>{{end}}
{{$res := .Res}}
{{range .Res.Runs}}<h2>{{say "Run {0}" .Name}}</h2>
<p><code>{{join .Command " "}}</code></p>
{{with .Error}}<p class="err">{{.}}</p>{{end}}
{{with rows . $res}}<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{with .Note}}<p>{{.}}</p>{{end}}{{end}}
{{if $.Res.Deadlines}}<p>Share of successful requests within each deadline:</p>
<table><tr><th>clients</th>{{range $.Res.Deadlines}}<th>within {{dur .}}</th>{{end}}</tr>
{{range .Points}}<tr><td>{{.Clients}}</td>{{range .Within}}<td>{{pct3 .}} %</td>{{end}}</tr>{{end}}</table>{{end}}
{{if $.Res.SLO}}<p>SLO <code>{{$.Res.SLO}}</code>:</p><ul>
{{range $p := .Points}}{{range .SLO}}<li>{{clients $p.Clients}}: {{if .Pass}}{{say "PASS"}}{{else}}<b class="err">{{say "FAIL"}}</b>{{end}} {{.Objective}} (measured {{g4 .Value}}){{with .Warning}}; warning: {{.}}{{end}}</li>{{end}}{{end}}</ul>{{end}}
{{range profiles .}}<h3>{{say "{0} profile{1}" .Kind .Where}}: {{range $i, $f := .Files}}{{if $i}}, {{end}}<a href="{{$f}}">{{base $f}}</a>{{end}}</h3>
<p>Top functions by own samples of the first:</p>
<table><tr><th>own samples %</th><th style="text-align:left">function</th></tr>{{range .Top}}<tr><td>{{pct .Share}}</td><td style="text-align:left"><code>{{.Name}}</code></td></tr>{{end}}</table>
{{if .Buckets}}<p>Where the time in focus went (profile.focus; {{.Focused}} of all samples were in it):</p>
<table>{{range .Buckets}}<tr><td>{{.Share}}</td><td style="text-align:left">{{.Name}}</td></tr>{{end}}</table>{{end}}
{{end}}{{end}}
<p>Raw data: <a href="experiment.json">experiment.json</a>; each run's folder holds sweep.json (readable by <code>loadtest report</code>), server.log and profiles (<code>go tool pprof -top FILE</code>).</p>
{{end}}`))

// appendixCSS styles the report's sections below the dashboard's panels:
// the standalone page's rules, scoped under #appendix, on a light sheet.
const appendixCSS = `#appendix{background:#fff;color:#222;font:16px/1.4 sans-serif;max-width:64em;margin:18px auto;padding:.5em 1.5em;border-radius:6px;overflow-x:auto}
#appendix h1,#appendix h2,#appendix h3{color:#222}#appendix a{color:#0645ad}
#appendix table{border-collapse:collapse;margin:.5em 0}#appendix td,#appendix th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
#appendix th{background:#f3f3f3}#appendix .err{color:#a00}#appendix .ok{color:#070}#appendix .maybe{color:#a60}
#appendix .chart svg{max-width:100%;height:auto}#appendix code{background:#f6f6f6}`

// reportData is what index.html shows, the SVG charts read to be inlined.
func reportData(dir string, res *outcome.Result, charts []chartFile, disk *watch.DiskTable) (map[string]any, error) {
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
		s := string(svg)
		if i := strings.Index(s, "<svg"); i > 0 {
			s = s[i:]
		}
		cs = append(cs, inline{c, htmltemplate.HTML(s)})
	}
	return map[string]any{"Res": res, "Charts": cs, "Disk": disk, "Quick": outcome.QuickNote, "Repeats": repeatsText(res), "Environment": experimentEnvironment(res),
		"Remeasured": RemeasuredText(res), "Points": remeasured(res), "Calibrations": calibrations(res),
		"OperatingPoint": claim.OperatingPoint(res), "SideBySide": profilesSideBySide(res, 8)}, nil
}

// writeDashboard writes the dashboard page with frames inlined to path.
func writeDashboard(path string, frames []live.Frame, title string, opts ...live.ReportOption) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	if err := live.WriteReport(f, frames, title, opts...); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}
