package loadtest

import (
	"fmt"
	"io"
	"time"
)

// A Progress is an Observer that rewrites a progress line in place with a
// carriage return every second: the time since the run started, the last
// second's rate and p99, the errors so far, and "(warm-up)" during the
// warm-up. It is meant for a terminal; leave it out otherwise so that logs
// stay clean. A Progress may observe runs one after the other (a sweep):
// each run's line counts its own errors.
type Progress struct {
	// W receives the line.
	W io.Writer
	// Step, when set, begins the line: where the run stands in a longer
	// job (an experiment's "step 2/6  run A  20 clients").
	Step string
	// Left, when set, gives the time left of the job, shown after the
	// errors to the second.
	Left func() time.Duration
	// Hold leaves the last line unterminated when the run ends, for the
	// caller's next line to overwrite; by default the run's end ends the
	// line.
	Hold bool

	errs int64 // the run's errors so far
}

// Second rewrites the line with row's figures.
func (p *Progress) Second(row SecondRow) {
	p.errs += row.Errors
	step := ""
	if p.Step != "" {
		step = p.Step + "  "
	}
	left := ""
	if p.Left != nil {
		left = "  left " + p.Left().Round(time.Second).String()
	}
	phase := ""
	if row.Warmup {
		phase = " (warm-up)"
	}
	fmt.Fprintf(p.W, "\r%s%6.0fs  %8.1f req/s  p99 %8.3f ms  errors %d%s%s   ", step, row.T, row.Throughput, row.P99Ms, p.errs, left, phase)
}

// End ends the line (unless Hold) and starts the next run's count of
// errors from zero.
func (p *Progress) End() {
	if !p.Hold {
		fmt.Fprintln(p.W)
	}
	p.errs = 0
}
