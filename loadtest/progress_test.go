package loadtest

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine checks the progress line's text for a run (elapsed,
// rate, p99, errors so far) and for a step of a longer job (its step and
// the time left), and that a second run counts its own errors.
func TestProgressLine(t *testing.T) {
	rows := []SecondRow{
		{T: 1, Warmup: true, Throughput: 99.5, P99Ms: 2.25, Errors: 2},
		{T: 2, Throughput: 120, P99Ms: 3.5, Errors: 1},
	}
	for _, tc := range []struct {
		name string
		p    *Progress
		want string
	}{
		{"run", &Progress{},
			"\r     1s      99.5 req/s  p99    2.250 ms  errors 2 (warm-up)   " +
				"\r     2s     120.0 req/s  p99    3.500 ms  errors 3   \n"},
		{"step", &Progress{Step: "step 2/6  run A  20 clients", Hold: true, Left: func() time.Duration { return 90*time.Second + 400*time.Millisecond }},
			"\rstep 2/6  run A  20 clients       1s      99.5 req/s  p99    2.250 ms  errors 2  left 1m30s (warm-up)   " +
				"\rstep 2/6  run A  20 clients       2s     120.0 req/s  p99    3.500 ms  errors 3  left 1m30s   "},
	} {
		var b strings.Builder
		tc.p.W = &b
		for range 2 { // two runs: the second counts its own errors
			b.Reset()
			for _, r := range rows {
				tc.p.Second(r)
			}
			tc.p.End()
			if b.String() != tc.want {
				t.Errorf("%s: progress line %q; want %q", tc.name, b.String(), tc.want)
			}
		}
	}
}
