package tune

import (
	"context"
	"fmt"
	"testing"
	"time"

	"bbslab/loadtest/watch"
)

// trueThroughput is the model's throughput at k without noise.
func (f *model) trueThroughput(k watch.Knobs) float64 {
	return f.result(k, 1).Total.Throughput
}

// gridBest is the model's most throughput over the grid of the spec's
// bounds (1 to 40 of each knob), without noise.
func (f *model) gridBest() (watch.Knobs, float64) {
	best, bk := 0.0, watch.Knobs{}
	for w := 1; w <= 40; w++ {
		for p := 1; p <= 40; p++ {
			if x := f.trueThroughput(kn(w, p)); x > best*1.0001 {
				best, bk = x, kn(w, p)
			}
		}
	}
	return bk, best
}

// TestRunThroughASlowSpell tunes a model whose requests cost more CPU with
// more busy workers (so that one setting is best, not a plateau), while a
// slow spell of the machine (every request's CPU 1.6 times) covers one to
// five steps after the first, second or third: the winner must carry at
// least 95 % of the grid's best throughput, as it does without a spell.
func TestRunThroughASlowSpell(t *testing.T) {
	// The grid's best is the same model's for every start and spell.
	grid := newModel(kn(1, 1), 1, 4*time.Millisecond, time.Millisecond)
	grid.contention = 0.01
	_, best := grid.gridBest()
	for _, start := range []watch.Knobs{kn(40, 40), kn(5, 5), kn(2, 2)} {
		for from := 0; from <= 3; from++ {
			for n := 1; n <= 5; n++ {
				if from == 0 && n > 1 {
					continue // no spell
				}
				t.Run(fmt.Sprintf("%s/%d+%d", short(start), from, n), func(t *testing.T) {
					f := newModel(start, 1, 4*time.Millisecond, time.Millisecond)
					f.contention = 0.01
					res, err := Run(context.Background(), f.spec(start, 12, "p99<60ms"), fakeTarget(), f.opt(Options{OnStep: func(st Step) {
						switch {
						case from == 0:
						case st.N == from:
							f.setCPU(1600 * time.Microsecond)
						case st.N == from+n:
							f.setCPU(time.Millisecond)
						}
					}}))
					if err != nil {
						t.Fatal(err)
					}
					f.setCPU(time.Millisecond)
					if got := f.trueThroughput(res.Winner); got < 0.95*best {
						for _, st := range res.Steps {
							t.Logf("step %d %s: %.0f/s %s %s: %s", st.N, short(st.Knobs), st.Throughput.Median, metText(st.Met), st.Diagnosis.Limit, st.Decision)
						}
						t.Errorf("winner %s: %.0f/s, %.3f of the grid's best %.0f/s", short(res.Winner), got, got/best, best)
					}
				})
			}
		}
	}
}
