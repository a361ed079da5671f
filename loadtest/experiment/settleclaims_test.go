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
// not reproduced when they read 1.1. Its control, decided on three, is not
// measured again. Without the time for three more sweeps the claim stays
// inconclusive on three, and says why.
func TestInconclusiveClaimMeasuredAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs experiments of up to 12 steps")
	}
	for _, tt := range []struct {
		name, extra, then string
		want              live.Outcome
		repeats           int
	}{
		{"settles reproduced", "60s", "0.9", live.Reproduced, 6},
		{"settles not reproduced", "60s", "1.1", live.NotReproduced, 6},
		{"no time", "4s", "0.9", live.Inconclusive, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			other := map[string]string{"0.9": "1.1", "1.1": "0.9"}[tt.then]
			setControl(t, filepath.Join(dir, "control-each"), "cpu_ms=3")
			setControl(t, filepath.Join(dir, "control-all"), "cpu_ms="+tt.then)
			e := disturbExperiment(t, filepath.Join(dir, "control-{{run}}"), []string{"all", "each"}, "[2]", 3, fmt.Sprintf(perRequestClaim, tt.extra))
			// Each step's line comes before the next step: "all" reads
			// tt.then, the other, tt.then, and tt.then in any more sweeps.
			log := &controlLog{on: func(line string) {
				switch {
				case strings.HasPrefix(line, "run all: repeat 1/3,"):
					setControl(t, filepath.Join(dir, "control-all"), "cpu_ms="+other)
				case strings.HasPrefix(line, "run all: repeat 2/3,"):
					setControl(t, filepath.Join(dir, "control-all"), "cpu_ms="+tt.then)
				}
			}}
			res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: t.TempDir(), Log: log, serverCoresOnly: true})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, log)
			}
			if p := attemptsAt(t, res, "all", 2); len(p.Used()) != tt.repeats {
				t.Errorf("all: %d repeats used %s; want %d", len(p.Used()), attemptsJSON(p), tt.repeats)
			}
			// The control was decided on three: its point is not measured again.
			if p := attemptsAt(t, res, "each", 2); len(p.Used()) != 3 {
				t.Errorf("each: %d repeats used %s; want 3", len(p.Used()), attemptsJSON(p))
			}
			c := res.Claims[0]
			if c.Outcome != tt.want || c.Control == nil || c.Control.Outcome != live.NotReproduced {
				t.Errorf("claim %s (%s), control %v; want %s with its control not reproduced\n%s", c.Outcome, c.Checks[0].Text, c.Control, tt.want, log)
			}
			if tt.repeats == 3 && !strings.Contains(log.String(), "inconclusive claims were not measured again") {
				t.Errorf("no note of the claims left inconclusive for want of time\n%s", log)
			}
		})
	}
}
