package claim

import (
	"bbslab/loadtest"
	"bbslab/loadtest/experiment/outcome"
	"fmt"
	"slices"
)

// tuneSide measures an operand reading a tuning.
func tuneSide(o Operand, res *outcome.Result, f float64) side {
	s := side{Side: outcome.Side{Factor: f, What: fmt.Sprintf("%s tuned from %s: %s", o.Run, o.Tune, o.Metric), Format: "%.3g"}}
	i := slices.IndexFunc(res.Tunes, func(t *outcome.TuneRun) bool { return t.Run == o.Run && t.Start == o.Tune })
	if i < 0 || res.Tunes[i].Result == nil || len(res.Tunes[i].Result.Steps) == 0 {
		s.Missing = fmt.Sprintf("%s was not tuned from %s", o.Run, o.Tune)
		return s
	}
	r := res.Tunes[i].Result
	point := func(v float64) loadtest.Spread { return loadtest.Spread{Median: v, Min: v, Max: v, N: 1} }
	var raw loadtest.Spread
	tr := res.Tunes[i]
	switch o.Metric {
	case "winner_throughput":
		raw, s.Format, s.Unit = r.WinnerStep().Throughput, "%.0f", "/s"
		if tr.WinnerSide != nil {
			raw, s.What = tr.WinnerSide.Throughput, s.What+" (side by side)"
		}
	case "start_throughput":
		raw, s.Format, s.Unit = r.Steps[0].Throughput, "%.0f", "/s"
		if tr.StartSide != nil {
			raw, s.What = tr.StartSide.Throughput, s.What+" (side by side)"
		}
	case "winner_resources":
		raw = point(float64(r.Winner.Workers + r.Winner.Pool))
	case "winner_met":
		raw = point(b2f(r.WinnerMet))
	case "application":
		raw = point(b2f(r.Outcome == "application"))
	case "measurements":
		raw = point(float64(r.Measurements))
	}
	s.Raw, s.Value = raw, raw.Scaled(f)
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
