package tune

import (
	"fmt"
	"strings"

	"bbslab/loadtest"
)

// A SideVerdict says whether a tuning's winner is within the grid's best,
// decided on the rounds that measure both again side by side at the end
// (RunGrid). Each round measures the two within seconds of each other, so
// a slow spell of the machine that lowers a whole round cancels out of
// that round's ratio, the winner's throughput over the best's; the winner
// is within when the median of those ratios is at least the threshold
// (GridSpec.Within). Overlapping spreads are not the verdict: one slow
// round widens both spreads until a winner far below the best overlaps
// it.
type SideVerdict struct {
	// Rounds are the winner's throughput over the best's, one a round in
	// the order measured (a round in which the best served nothing left
	// out); Ratio is their median and range.
	Rounds []float64       `json:"rounds"`
	Ratio  loadtest.Spread `json:"ratio"`
	// Threshold is the least median ratio of a winner within the best
	// (GridSpec.Within).
	Threshold float64 `json:"threshold"`
	// Decided is false when no round could decide (none measured, or the
	// two measured in different numbers of rounds); Within is then false.
	// Why says why there is no verdict, or which rounds were left out.
	Decided bool   `json:"decided"`
	Within  bool   `json:"within"`
	Why     string `json:"why,omitempty"`
}

// judgeSide holds winner against best, both measured side by side in the
// same rounds (nil: not measured), by the median of their round-by-round
// throughput ratios against threshold.
func judgeSide(winner, best *Measurement, threshold float64) SideVerdict {
	v := SideVerdict{Threshold: threshold}
	switch {
	case winner == nil || best == nil || len(best.Throughputs) == 0:
		v.Why = "no rounds side by side: nothing to decide on"
		return v
	case len(winner.Throughputs) != len(best.Throughputs):
		v.Why = fmt.Sprintf("the winner was measured in %d rounds and the best in %d: the rounds do not pair up", len(winner.Throughputs), len(best.Throughputs))
		return v
	}
	left := 0
	for i, b := range best.Throughputs {
		if b <= 0 {
			left++
			continue
		}
		v.Rounds = append(v.Rounds, winner.Throughputs[i]/b)
	}
	if left > 0 {
		v.Why = fmt.Sprintf("%d of %d rounds left out: the best served nothing in them", left, len(best.Throughputs))
	}
	if len(v.Rounds) == 0 {
		return v
	}
	v.Ratio = loadtest.SpreadOf(v.Rounds)
	v.Decided, v.Within = true, v.Ratio.Median >= threshold
	return v
}

// judgeControl holds a setting against itself, measured twice in the
// same rounds: within when the median ratio lies between the threshold
// and its inverse, since of two equal settings either may read higher.
func judgeControl(again, best *Measurement, threshold float64) SideVerdict {
	v := judgeSide(again, best, threshold)
	if v.Decided && threshold > 0 && v.Ratio.Median > 1/threshold {
		v.Within = false
	}
	return v
}

// undecides returns v undecided when the control c, the best against
// itself, read outside the threshold: the rounds cannot tell a winner's
// shortfall from their own noise.
func (c SideVerdict) undecides(v SideVerdict) SideVerdict {
	if !c.Decided || c.Within || !v.Decided {
		return v
	}
	v.Decided, v.Within = false, false
	v.Why = "the grid's best against itself read " + c.String() + ": equal settings differ by more than the threshold in these rounds"
	return v
}

// String gives the verdict with its figures: "within: median ratio 0.976
// >= 0.95 over 5 rounds (0.961 0.990 0.976 0.970 0.981; 0.961-0.990)",
// "not within: ... < 0.95 ...", or "no verdict: " and why.
func (v SideVerdict) String() string {
	if !v.Decided {
		return "no verdict: " + v.Why
	}
	word, op, bound := "within", ">=", fmt.Sprintf("%g", v.Threshold)
	switch {
	case !v.Within && v.Ratio.Median >= v.Threshold:
		word, op, bound = "not within", ">", fmt.Sprintf("1/%g", v.Threshold) // a control above the inverse
	case !v.Within:
		word, op = "not within", "<"
	}
	rs := make([]string, len(v.Rounds))
	for i, r := range v.Rounds {
		rs[i] = fmt.Sprintf("%.3f", r)
	}
	s := fmt.Sprintf("%s: median ratio %.3f %s %s over %d rounds (%s; %.3f-%.3f)", word, v.Ratio.Median, op, bound,
		len(v.Rounds), strings.Join(rs, " "), v.Ratio.Min, v.Ratio.Max)
	if v.Why != "" {
		s += "; " + v.Why
	}
	return s
}
