package experiment

import (
	"context"
	"fmt"
	"slices"
	"time"

	"bbslab/loadtest/claim"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
)

// inTurn measures each run in full before starting the next.
func (x *experimentRunner) inTurn(ctx context.Context) error {
	for _, run := range x.e.Runs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		lr, err := x.start(ctx, run)
		if err != nil {
			lr.stop(x)
			return lr.failed(err)
		}
		for _, clients := range x.e.Load.Clients {
			for rep := 1; rep <= x.e.Load.Repeats; rep++ {
				if err := x.measureRepeat(ctx, lr, clients, rep); err != nil {
					lr.stop(x)
					return lr.failed(err)
				}
			}
		}
		lr.stop(x)
	}
	return nil
}

// interleaved starts every run's server, then measures them in turns.
func (x *experimentRunner) interleaved(ctx context.Context) error {
	var live []*serverRun
	defer func() {
		for _, lr := range live {
			lr.stop(x)
		}
	}()
	for _, run := range x.e.Runs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		lr, err := x.start(ctx, run)
		live = append(live, lr)
		if err != nil {
			return lr.failed(err)
		}
	}
	// Each repeat is a whole sweep, so that a burst of other work lands on
	// one measurement of several points, which their medians leave out.
	clients := x.e.Load.Clients
	_, err := measure.Rounds(ctx, measure.Plan{Rounds: x.e.Load.Repeats, Settings: len(clients) * len(live),
		Between: func(ctx context.Context, round int) error { return x.recalibrate(ctx, live, round+1) }},
		func(ctx context.Context, round, setting int) (struct{}, error) {
			lr := live[setting%len(live)]
			if err := x.measureRepeat(ctx, lr, clients[setting/len(live)], round+1); err != nil {
				return struct{}{}, lr.failed(err)
			}
			return struct{}{}, nil
		})
	if err != nil {
		return err
	}
	return x.settleClaims(ctx, live)
}

// settleClaims measures the points of inconclusive claims again, in sweeps
// of those points alone, in steps of the planned repeats, up to
// disturbance.max_attempts times them, while any is inconclusive and
// max_extra holds the next step: a whole step is the least that narrows a
// median's interval (measure.Interval; at 0.75, 3 values give their range,
// 6 the 2nd to the 5th, 9 the 3rd to the 7th). A claim may turn either way.
func (x *experimentRunner) settleClaims(ctx context.Context, live []*serverRun) error {
	n, used, rep := x.e.Load.Repeats, x.res.SweepsUsed(), x.e.Load.Repeats
	for k := 2; k <= x.e.Disturbance.MaxAttempts && !x.e.Quick && n > 1; k++ {
		pts := claim.Unsettled(x.e.Claims, x.res)
		if len(pts) == 0 {
			return nil
		}
		more := k*n - used
		if need := time.Duration(more*len(pts)) * x.e.stepLength(); !x.fits(need) {
			x.note(fmt.Sprintf("inconclusive claims were not measured again: %d more sweeps of their %d points take %v, more than disturbance.max_extra leaves", more, len(pts), need))
			return nil
		}
		x.logf("claims inconclusive on %d sweeps: %d more sweeps of their %d points", used, more, len(pts))
		x.total += more * len(pts)
		for ; used < k*n; used++ {
			rep++
			for _, p := range pts { // a check's two sides back to back
				if i := slices.IndexFunc(live, func(lr *serverRun) bool { return lr.run.Name == p.Run }); i >= 0 {
					if err := x.measureRepeat(ctx, live[i], p.Clients, rep); err != nil {
						return live[i].failed(err)
					}
				}
			}
		}
	}
	return nil
}

// serverRun is one run's server while the experiment measures it.
type serverRun struct {
	run   runSpec
	dir   string
	x     func(string) string // expands the run's placeholders
	proc  *serverProc
	fleet *runFleet // instead of proc, for a run of several replicas
	rr    *outcome.Run
	steps int               // measurements taken of this server
	vars  map[string]string // the run's placeholders, which x expands
}

func (lr *serverRun) failed(err error) error {
	lr.rr.Error = err.Error()
	return fmt.Errorf("run %q: %w", lr.run.Name, err)
}

func (lr *serverRun) stop(x *experimentRunner) {
	if lr.fleet != nil {
		x.stopFleet(lr)
	}
	if lr.proc == nil {
		return
	}
	if err := lr.proc.Stop(time.Duration(x.e.Server.StopTimeout)); err != nil {
		x.logf("run %s: the server %v", lr.run.Name, err)
	}
	lr.proc.log.Close()
	lr.proc = nil
}

func (lr *serverRun) reset(ctx context.Context, e *Experiment) error {
	if e.Server.Reset == "" {
		return nil
	}
	if _, err := post(ctx, lr.x(e.Server.Reset), 5*time.Minute); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	return nil
}
