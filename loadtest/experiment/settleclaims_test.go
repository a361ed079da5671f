package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/loadtest/live"
)

// perRequestClaim holds run "all"'s CPU per request at 2 clients, which its
// control file sets, to at most 1 ms, with a control on run "each", whose
// control file keeps it at 3 ms.
const perRequestClaim = `
[[stats.reading]]
name = "cpu per request"
path = "cpu_seconds_total"
kind = "counter"
per_request = true
scale = 1000
unit = "ms/request"
[[claim]]
id = "light"
source = "this test"
text = "all takes at most 1 ms of CPU a request"
[[claim.check]]
left  = { run = "all", clients = 2, reading = "cpu per request" }
op    = "<="
right = { value = 1 }
[claim.control]
why = "each takes more"
runs = { "all" = "each" }
[disturbance]
max_extra = "%s"
cpu_per_request = 60
`

// TestInconclusiveClaimMeasuredAgain: a claim whose three repeats straddle
// its threshold (0.9, 1.1 and 0.9 ms against 1 ms, or 1.1, 0.9, 1.1) is
// inconclusive after the planned sweeps; the point of its inconclusive
// check is measured in three more sweeps, and on six repeats the median's
// interval (the 2nd to the 5th) decides it: reproduced when they read 0.9,
// not reproduced when they read 1.1. Six that still straddle it get three
// more (max_attempts 3: nine, the 3rd to the 7th). Its control, decided on
// three, is not measured again. Without the time for three more sweeps
// the claim stays inconclusive on three, and says why.
func TestInconclusiveClaimMeasuredAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs experiments of up to 15 steps")
	}
	t.Parallel() // beside the other tests judged on control files alone
	for _, tt := range []struct {
		name, extra string
		all         []string // "all"'s CPU per request, repeat by repeat
		want        live.Outcome
	}{
		{"settles reproduced", "60s", []string{"0.9", "1.1", "0.9", "0.9", "0.9", "0.9"}, live.Reproduced},
		{"settles not reproduced", "60s", []string{"1.1", "0.9", "1.1", "1.1", "1.1", "1.1"}, live.NotReproduced},
		{"settles on nine", "60s", []string{"0.9", "1.1", "0.9", "0.9", "1.1", "0.9", "0.9", "0.9", "0.9"}, live.Reproduced},
		{"no time", "4s", []string{"0.9", "1.1", "0.9"}, live.Inconclusive},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // the readings the claims read are the control files', whatever the timing
			dir := t.TempDir()
			setControl(t, filepath.Join(dir, "control-each"), "cpu_ms=3")
			setControl(t, filepath.Join(dir, "control-all"), "cpu_ms="+tt.all[0])
			e := disturbExperiment(t, filepath.Join(dir, "control-{{run}}"), []string{"all", "each"}, "[2]", 3, fmt.Sprintf(perRequestClaim, tt.extra))
			// Each step's line comes before the next step.
			log := &controlLog{on: func(line string) {
				for r := 1; r < len(tt.all); r++ {
					if strings.HasPrefix(line, fmt.Sprintf("run all: repeat %d/3,", r)) {
						setControl(t, filepath.Join(dir, "control-all"), "cpu_ms="+tt.all[r])
					}
				}
			}}
			res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: t.TempDir(), Log: log, serverCoresOnly: true})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, log)
			}
			if p := attemptsAt(t, res, "all", 2); len(p.Used()) != len(tt.all) {
				t.Errorf("all: %d repeats used %s; want %d", len(p.Used()), attemptsJSON(p), len(tt.all))
			}
			// The control was decided on three: its point is not measured again.
			if p := attemptsAt(t, res, "each", 2); len(p.Used()) != 3 {
				t.Errorf("each: %d repeats used %s; want 3", len(p.Used()), attemptsJSON(p))
			}
			c := res.Claims[0]
			if c.Outcome != tt.want || c.Control == nil || c.Control.Outcome != live.NotReproduced {
				t.Errorf("claim %s (%s), control %v; want %s with its control not reproduced\n%s", c.Outcome, c.Checks[0].Text, c.Control, tt.want, log)
			}
			if len(tt.all) == 3 && !strings.Contains(log.String(), "inconclusive claims were not measured again") {
				t.Errorf("no note of the claims left inconclusive for want of time\n%s", log)
			}
		})
	}
}
