package loadtest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestBottleneckFromTimerLag(t *testing.T) {
	tests := []struct {
		think, lag time.Duration
		want       bool
	}{
		{10 * time.Millisecond, 5 * time.Millisecond, true},    // 50 % of think
		{10 * time.Millisecond, 800 * time.Microsecond, false}, // timer slack
		{10 * time.Millisecond, 1500 * time.Microsecond, true}, // 15 % of think, beyond the slack
		{time.Second, 50 * time.Millisecond, false},            // 5 % of think
		{time.Second, 200 * time.Millisecond, true},            // 20 % of think
		{0, 200 * time.Millisecond, false},                     // no think time
	}
	for _, tt := range tests {
		lag := lagAcc{timer: NewHistogram()}
		lag.timer.RecordN(tt.lag, 1000)
		c := startCost().finish(lag, tt.think)
		got := false
		for _, r := range c.Reasons {
			if strings.Contains(r, "woke up late") {
				got = true
			}
		}
		if got != tt.want {
			t.Errorf("think %v, p99 timer lag %v: bottleneck warning %v (%q); want %v", tt.think, tt.lag, got, c.Reasons, tt.want)
		}
	}
}

// TestCostAbsentCPU checks that a cost without process times (an OS that
// gives none) leaves the CPU figures out of the JSON and the texts rather
// than reading 0, and that merging it with a generator that had them
// leaves the merged figures out too.
func TestCostAbsentCPU(t *testing.T) {
	var c Cost
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"cpu_percent"`, `"cpu_seconds"`, `"peak_rss_bytes"`} {
		if strings.Contains(string(b), k) {
			t.Errorf("JSON of a cost without process times has %s: %s", k, b)
		}
	}
	if got := c.CPUText("%.0f"); got != "–" {
		t.Errorf("CPUText = %q; want –", got)
	}
}
