package loadtest

import (
	"fmt"
	"io"
	"time"
)

// A Progress is an Observer that rewrites a progress line every second.
type Progress struct {
	W io.Writer
	// Step, when set, begins the line (an experiment's "step 2/6").
	Step string
	// Left, when set, gives the time left of the job.
	Left func() time.Duration
	// Hold leaves the last line unterminated for the caller to overwrite.
	Hold bool

	errs int64
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

// End ends the line (unless Hold) and resets the count of errors.
func (p *Progress) End() {
	if !p.Hold {
		fmt.Fprintln(p.W)
	}
	p.errs = 0
}
