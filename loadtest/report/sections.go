package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/text"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// experimentEnvironment describes on what an experiment ran, one line each.
func experimentEnvironment(res *outcome.Result) []string {
	var gen *machine.HostInfo
	var names []string
	var flat []map[string]string
	for _, run := range res.Runs {
		for _, p := range run.Points {
			if p.Result == nil || p.Result.Environment == nil {
				continue
			}
			e := p.Result.Environment
			if gen == nil {
				gen = e.Generator
			}
			if e.Server != nil {
				names, flat = append(names, run.Name), append(flat, text.FlatLeaves(e.Server))
			}
			break // one point per run: a run is one server process
		}
	}
	var out []string
	if gen != nil {
		out = append(out, "Generator: "+gen.String())
	}
	if len(flat) == 0 {
		return out
	}
	common := maps.Clone(flat[0])
	for _, f := range flat[1:] {
		maps.DeleteFunc(common, func(k, v string) bool { return f[k] != v })
	}
	if len(common) > 0 {
		label := "Server (every run)"
		if len(flat) == 1 {
			label = "Server"
		}
		out = append(out, label+": "+leavesText(common))
	}
	for i, f := range flat {
		own := maps.Clone(f)
		maps.DeleteFunc(own, func(k, _ string) bool {
			_, ok := common[k]
			return ok
		})
		if len(own) > 0 {
			out = append(out, fmt.Sprintf("Server of run %s: %s", names[i], leavesText(own)))
		}
	}
	return out
}

// leavesText lists flattened leaves as "path=value" in path order.
func leavesText(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// tuneMarkdown is the report's section of the tunings.
func tuneMarkdown(res *outcome.Result) string {
	if len(res.Tunes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Tuning\n\n")
	for _, tr := range res.Tunes {
		fmt.Fprintf(&b, "### %s from %s\n\n", tr.Run, tr.Start)
		if tr.Error != "" {
			fmt.Fprintf(&b, "**Failed:** %s\n\n", tr.Error)
		}
		r := tr.Result
		if r == nil {
			continue
		}
		b.WriteString("| step | workers/pool | throughput /s | p99 ms | limit | evidence | next |\n|---|---|---|---|---|---|---|\n")
		for _, st := range r.Steps {
			next := st.Decision
			if st.Next != nil {
				next = tuneKnobs(*st.Next) + ": " + st.Decision
			}
			fmt.Fprintf(&b, "| %d | %s | %.0f (%.0f-%.0f) | %.2f (%.2f-%.2f) | %s | %s | %s |\n", st.N, tuneKnobs(st.Knobs),
				st.Throughput.Median, st.Throughput.Min, st.Throughput.Max, st.Latency.Median, st.Latency.Min, st.Latency.Max,
				st.Diagnosis.Limit, mdCell(st.Diagnosis.Evidence), mdCell(next))
		}
		met := "misses"
		if r.WinnerMet {
			met = "meets"
		}
		fmt.Fprintf(&b, "\nWinner: **%s** (%s %s; %d settings measured, %.0f s). Its limit: %s: %s\n\n", tuneKnobs(r.Winner), met,
			strings.Join(r.Objectives, ","), r.Measurements, r.Seconds, r.Limit.Limit, r.Limit.Evidence)
		fmt.Fprintf(&b, "- stopped: %s\n", r.Stopped)
		fmt.Fprintf(&b, "- workers = pool + a few: %s\n- min = max: %s\n", r.Rules.WorkersPool, r.Rules.MinMax)
		if tr.StartSide != nil && tr.WinnerSide != nil {
			s, w := tr.StartSide, tr.WinnerSide
			fmt.Fprintf(&b, "- measured again side by side at the end (%d interleaved rounds; what the claims compare): start %s %.0f/s (%.0f-%.0f), winner %s %.0f/s (%.0f-%.0f)\n",
				w.Runs, tuneKnobs(s.Knobs), s.Throughput.Median, s.Throughput.Min, s.Throughput.Max, tuneKnobs(w.Knobs), w.Throughput.Median, w.Throughput.Min, w.Throughput.Max)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdCell keeps a table cell on its line.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// tuneKnobs is a setting as the tuner prints it, WORKERS/POOL.
func tuneKnobs(k watch.Knobs) string { return fmt.Sprintf("%d/%d", k.Workers, k.Pool) }

// calibrations are the experiment's first and redone calibrations.
func calibrations(res *outcome.Result) []*calibrate.Calibration {
	var out []*calibrate.Calibration
	for _, c := range []*calibrate.Calibration{res.Calibration, res.Recalibration} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// calibrationMarkdown renders a calibration's section.
func calibrationMarkdown(c *calibrate.Calibration) string {
	var b strings.Builder
	if c.Sweep > 0 {
		fmt.Fprintf(&b, "\n## Calibration redone before sweep %d\n\nWhy: %s. ", c.Sweep, c.Reason)
	} else {
		b.WriteString("\n## Calibration\n\n")
	}
	fmt.Fprintf(&b, "%s. %s.\n\n| %s | throughput/s | %s | CPU per request ms | used |\n| --- | --- | --- | --- | --- |\n",
		c.Summary(), c.Method(), c.Var, c.ReadingHead())
	for _, p := range c.Table() {
		fmt.Fprintf(&b, "| %.3f ms | %.1f | %.1f | %.3f | %s |\n", p.WaitMs, p.Throughput, p.Reading, p.CPUPerRequestMs, p.Used())
	}
	return b.String()
}
