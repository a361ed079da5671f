package tune

// Report says what the grid found, one line at a time to logf.
func (g *GridResult) Report(logf func(format string, a ...any), repeats int) {
	b := g.Best
	logf("grid's best: %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s the objectives", short(b.Knobs), b.Throughput.Median, b.Throughput.Min, b.Throughput.Max,
		b.LatencyName, b.Latency.Median, metText(b.Met))
	if len(g.Disturbed) > 0 {
		logf("grid: %d attempts disturbed and measured again; %d settings never undisturbed (left out of the best)", len(g.Disturbed), len(g.Unmeasured))
	}
	if g.Control != nil {
		logf("control, the grid's best against itself round by round: %s", g.Control)
	}
	for _, t := range g.Tunes {
		w := t.Tune.WinnerStep()
		logf("tuner from %s: winner %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s the objectives", short(t.Tune.Start), short(t.Tune.Winner), w.Throughput.Median, w.Throughput.Min, w.Throughput.Max,
			w.LatencyName, w.Latency.Median, metText(t.Tune.WinnerMet))
		logf("  throughput ratio tuner/grid, figures minutes apart (information): %.3f (%.3f-%.3f)", t.Ratio.Median, t.Ratio.Min, t.Ratio.Max)
		if t.RatioInGrid != nil {
			logf("  the same with the winner as the grid measured it: %.3f (%.3f-%.3f)", t.RatioInGrid.Median, t.RatioInGrid.Min, t.RatioInGrid.Max)
		}
		if t.SideRatio != nil {
			logf("  side by side at the end, the medians' ratio (information): %.3f (%.3f-%.3f)", t.SideRatio.Median, t.SideRatio.Min, t.SideRatio.Max)
		}
		logf("  verdict, the winner over the grid's best round by round: %s", t.Verdict)
		logf("  measurements: tuner %d settings (%d runs), grid %d settings (%d runs): the tuner took %.0f%% of the grid's", t.TunerMeasurements, t.Tune.Runs,
			g.GridMeasurements, g.GridMeasurements*max(repeats, 1), 100*float64(t.TunerMeasurements)/float64(g.GridMeasurements))
	}
}

// NotWithin counts the tunings whose winner was decided not within the grid's best.
func (g *GridResult) NotWithin() int {
	n := 0
	for _, t := range g.Tunes {
		if t.Verdict.Decided && !t.Verdict.Within {
			n++
		}
	}
	return n
}
