package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// pointRows returns the head and rows of a run's table; a point with a
// dropped measurement is marked "*".
func pointRows(r *outcome.Run, res *outcome.Result) ([]string, [][]string) {
	head := []string{"clients", "throughput/s", "mean ms", "p50 ms", "p95 ms", "p99 ms", "p99.9 ms", "errors", "generator CPU %"}
	cores := coreColumns(r, res)
	readings := tableReadings(res)
	for _, c := range cores {
		head = append(head, c.head)
	}
	for _, rd := range readings {
		h := rd.Name
		if rd.Unit != "" {
			h += " (" + rd.Unit + ")"
		}
		head = append(head, h)
	}
	var rows [][]string
	for _, p := range r.Points {
		row := []string{fmt.Sprint(p.Clients)}
		if len(p.Used()) < len(p.Repeats) {
			row[0] += " *"
		}
		if !p.Measured() {
			row = append(row, "not measured: the machine was busy")
			rows = append(rows, append(row, slices.Repeat([]string{"-"}, len(head)-2)...))
			continue
		}
		for _, m := range []struct{ metric, format string }{
			{"throughput", "%.1f"}, {"mean_ms", "%.3f"}, {"p50_ms", "%.3f"}, {"p95_ms", "%.3f"}, {"p99_ms", "%.3f"}, {"p99_9_ms", "%.3f"}, {"errors", "%.0f"},
		} {
			if sp, ok := p.Spread("", m.metric); ok {
				row = append(row, outcome.SpreadText(sp, m.format, ""))
			} else {
				row = append(row, "-")
			}
		}
		cpu := "-"
		if p.Result != nil {
			cpu = p.Result.Cost.CPUText("%.0f") // "–" where the OS gives none
		}
		row = append(row, cpu)
		for _, c := range cores {
			if sp, ok := c.value(p); ok {
				row = append(row, outcome.SpreadText(sp, "%.1f", ""))
			} else {
				row = append(row, absentCell)
			}
		}
		for _, rd := range readings {
			if sp, ok := p.ReadingSpread(rd.Name); ok {
				row = append(row, outcome.SpreadText(sp, "auto", ""))
			} else {
				row = append(row, absentCell)
			}
		}
		rows = append(rows, row)
	}
	return head, rows
}

// A coreColumn is a column of the time others took from the cores.
type coreColumn struct {
	head  string
	value func(p *outcome.Point) (loadtest.Spread, bool)
}

// coreColumns are the generator's interference column and the server's where read.
func coreColumns(r *outcome.Run, res *outcome.Result) []coreColumn {
	cols := []coreColumn{{"others on generator core %", (*outcome.Point).GeneratorInterference}}
	for _, c := range []struct{ name, head string }{{res.Interference, "others on server core %"}, {res.Steal, "server steal %"}} {
		name := c.name
		has := func(p *outcome.Point) bool { _, ok := p.ReadingSpread(name); return ok }
		if name != "" && slices.ContainsFunc(r.Points, has) {
			cols = append(cols, coreColumn{c.head, func(p *outcome.Point) (loadtest.Spread, bool) { return p.ReadingSpread(name) }})
		}
	}
	return cols
}

// tableReadings are the readings with a column of their own, not in coreColumns.
func tableReadings(res *outcome.Result) []watch.Stat {
	var out []watch.Stat
	for _, rd := range res.Stats {
		if rd.Name == "" || rd.Name != res.Interference && rd.Name != res.Steal {
			out = append(out, rd)
		}
	}
	return out
}

// absentCell stands in the table for a figure that was not measured.
const absentCell = "–"

// absentNote names the columns that show absentCell; "" when none does.
func absentNote(r *outcome.Run, res *outcome.Result) string {
	var cols []string
	add := func(col string, lacks func(p *outcome.Point) bool) {
		if slices.ContainsFunc(r.Points, lacks) {
			cols = append(cols, col)
		}
	}
	add("generator CPU %", func(p *outcome.Point) bool {
		return p.Result != nil && p.Result.Cost.CPUPercent == nil && p.Measured()
	})
	for _, c := range coreColumns(r, res) {
		add(c.head, func(p *outcome.Point) bool {
			_, ok := c.value(p)
			return !ok
		})
	}
	for _, rd := range tableReadings(res) {
		add(rd.Name, func(p *outcome.Point) bool {
			_, ok := p.ReadingSpread(rd.Name)
			return !ok && p.Measured()
		})
	}
	if len(cols) == 0 {
		return ""
	}
	return absentCell + ": not available on this OS (not reported where it ran): " + strings.Join(cols, ", ") + "."
}

// profileView is a profile group as the report shows it.
type profileView struct {
	Kind, Where string
	Files       []string
	Top         []watch.FuncShare
	Focused     string
	Buckets     []struct{ Share, Name string }
}

func profileViews(r *outcome.Run) []profileView {
	var out []profileView
	for _, g := range outcome.ProfileGroups(r.Profiles) {
		v := profileView{Kind: g.Kind, Where: g.Where(), Top: g.Profiles[0].Top}
		var focused []float64
		for _, p := range g.Profiles {
			v.Files = append(v.Files, p.File)
			focused = append(focused, p.Focused)
		}
		v.Focused = outcome.SpreadText(loadtest.SpreadOf(focused).Scaled(100), "%.0f", " %")
		for _, b := range g.Buckets {
			v.Buckets = append(v.Buckets, struct{ Share, Name string }{outcome.SpreadText(b.Share.Scaled(100), "%5.1f", " %"), b.Name})
		}
		out = append(out, v)
	}
	return out
}

func mdLinks(files []string) string {
	var parts []string
	for _, f := range files {
		parts = append(parts, fmt.Sprintf("[%s](%s)", filepath.Base(f), f))
	}
	return strings.Join(parts, ", ")
}

// outcomeClasses and controlClasses are the CSS classes of a claim's and
// a control's outcomes ("maybe" for the others): a control is meant to fail.
var (
	outcomeClasses = map[live.Outcome]string{
		live.Reproduced: "ok", live.NotReproduced: "err", live.DoesNotDiscriminate: "err",
	}
	controlClasses = map[live.Outcome]string{live.NotReproduced: "ok", live.Reproduced: "err"}
)

// repeatsText says how the points were measured.
func repeatsText(res *outcome.Result) string {
	n := max(res.Repeats, 1)
	order := "each run measured in full before the next"
	switch {
	case res.Interleave && res.Sweeps:
		order = "the runs interleaved: each repeat a whole sweep, every run measured in turn at each client count"
	case res.Interleave:
		order = "the runs interleaved: at each client count and repeat every run was measured in turn"
	}
	if n == 1 {
		return fmt.Sprintf("Each point was measured once (%s).", order)
	}
	return fmt.Sprintf("Each point was measured %d times (%s); figures are the median with the min-max range in parentheses.", n, order)
}

// curveSpread returns the chart ranges of a run's points.
func curveSpread(ps []*outcome.Point) map[int]chart.CurveSpread {
	m := map[int]chart.CurveSpread{}
	for _, p := range ps {
		var c chart.CurveSpread
		c.Throughput, _ = p.Spread("", "throughput")
		c.MeanMs, _ = p.Spread("", "mean_ms")
		c.P99Ms, _ = p.Spread("", "p99_ms")
		m[p.Clients] = c
	}
	return m
}

// remeasuredPoint is a point re-measured; Busy says why it has no used measurement.
type remeasuredPoint struct {
	Run      string
	Clients  int
	Attempts []*outcome.Repeat
	Busy     string
}

// remeasured lists the points with a disturbed, suspect or re-measured measurement.
func remeasured(res *outcome.Result) []remeasuredPoint {
	var out []remeasuredPoint
	flagged := func(rp *outcome.Repeat) bool {
		return rp.Disturbed || rp.Suspect || rp.Dropped && !rp.Recalibrated || rp.Attempt > 1
	}
	for _, r := range res.Runs {
		for _, p := range r.Points {
			if slices.ContainsFunc(p.Repeats, flagged) {
				out = append(out, remeasuredPoint{Run: r.Name, Clients: p.Clients, Attempts: p.Repeats, Busy: p.BusyText(r.Name)})
			}
		}
	}
	return out
}

// RemeasuredText is the report's headline on other work on the machine; "" when none.
func RemeasuredText(res *outcome.Result) string {
	d := res.Disturbance
	ps := remeasured(res)
	if d == nil || len(ps) == 0 {
		return ""
	}
	disturbed, suspect, busy := 0, 0, 0
	for _, p := range ps {
		for _, rp := range p.Attempts {
			if rp.Disturbed {
				disturbed++
			}
			if rp.Suspect {
				suspect++
			}
		}
		if p.Busy != "" {
			busy++
		}
	}
	s := fmt.Sprintf("Other work on the machine: %s had a measurement disturbed or suspect and %s taken "+
		"(%s disturbed: other work took the server's or the generator's cores beyond the baseline by more than %g points; "+
		"%s: the server's CPU per request off the point's other repeats by more than %g %%), in %.0f s of the %.0f s allowed",
		count(len(ps), "point"), count(d.Remeasured, "re-measure"), count(disturbed, "measurement"), d.Threshold,
		count(suspect, "suspect"), d.CPUPerRequest, d.ExtraSeconds, d.MaxExtraSeconds)
	if busy > 0 {
		s += fmt.Sprintf("; %s could not be measured undisturbed and the claims on them are not measured", count(busy, "point"))
	}
	return s + "."
}

// count says "1 point" or "N points".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// attemptText describes one measurement and what became of it.
func attemptText(rp *outcome.Repeat) string {
	s := fmt.Sprintf("repeat %d, attempt %d (%s UTC): %.0f/s, interference %s", max(rp.Repeat, 1), max(rp.Attempt, 1),
		rp.Start.UTC().Format("15:04:05"), rp.Total.Throughput, rp.Interference.Text())
	switch {
	case rp.Dropped:
		s += ": dropped"
	case rp.Suspect:
		s += ": used (suspect)"
	default:
		s += ": used"
	}
	if rp.Reason != "" {
		s += " (" + rp.Reason + ")"
	}
	return s
}

// profilesSideBySide renders the runs' profiles of a kind and client count in
// columns, where more than one run has them; "" when none does.
func profilesSideBySide(res *outcome.Result, top int) string {
	type column struct {
		run string
		g   outcome.ProfileGroup
	}
	byKind := map[string][]column{}
	var kinds []string
	for _, r := range res.Runs {
		for _, g := range outcome.ProfileGroups(r.MeasuredOnly().Profiles) {
			key := fmt.Sprintf("%s profile%s", g.Kind, clientsSuffix(g.Clients))
			if !slices.Contains(kinds, key) {
				kinds = append(kinds, key)
			}
			byKind[key] = append(byKind[key], column{r.Name, g})
		}
	}
	var b strings.Builder
	for _, key := range kinds {
		cols := byKind[key]
		if len(cols) < 2 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s, side by side\n\n| |", key)
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", c.run)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
		var buckets []string
		for _, c := range cols {
			for _, bs := range c.g.Buckets {
				if !slices.Contains(buckets, bs.Name) {
					buckets = append(buckets, bs.Name)
				}
			}
		}
		for _, name := range buckets {
			fmt.Fprintf(&b, "| %s |", name)
			for _, c := range cols {
				cell := "-"
				if i := slices.IndexFunc(c.g.Buckets, func(bs outcome.BucketShare) bool { return bs.Name == name }); i >= 0 {
					cell = outcome.SpreadText(c.g.Buckets[i].Share.Scaled(100), "%.0f", " %")
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			b.WriteString("\n")
		}
		for i := range top {
			fmt.Fprintf(&b, "| top %d |", i+1)
			for _, c := range cols {
				cell := "-"
				if t := c.g.Profiles[0].Top; i < len(t) {
					cell = fmt.Sprintf("%.1f %% %s", 100*t[i].Share, t[i].Name)
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n## Profiles side by side\n\nBucket shares are of the samples in focus (profile.focus), the median over the repeats with the range; the top functions are by own samples, of each run's first profile.\n" + b.String()
}

func clientsSuffix(clients int) string {
	if clients == 0 {
		return ""
	}
	return " at " + outcome.ClientsText(clients)
}
