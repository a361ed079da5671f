package experiment

import "bbslab/loadtest/experiment/outcome"

// addRepeat adds one measurement to p and refreshes its figures.
func addRepeat(p *outcome.Point, rp *outcome.Repeat, l loadSpec) {
	p.Repeats = append(p.Repeats, rp)
	refresh(p, l)
}

// refresh makes the used repeat of median throughput the point's Result,
// readings, deadline shares and SLO outcomes, so that readers of the
// single-measurement form keep working, and summarises the used repeats.
// A point with none (every measurement disturbed) has no Result.
func refresh(p *outcome.Point, l loadSpec) {
	p.Result, p.Server, p.Within, p.SLO, p.Summary = nil, nil, nil, nil, nil
	used := p.Used()
	if len(used) == 0 {
		return
	}
	med := outcome.MedianRepeat(used)
	p.Result = med.Full
	p.Server = med.Server
	if p.Result != nil {
		judge(p, l)
	}
	p.Summary = p.Summarize()
}
