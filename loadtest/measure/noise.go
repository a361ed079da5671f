package measure

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"

	"bbslab/loadtest"
)

// Band returns s widened to at least ±floor % of its median.
func Band(s loadtest.Spread, floor float64) loadtest.Spread {
	s.Min = min(s.Min, s.Median*(1-floor/100))
	s.Max = max(s.Max, s.Median*(1+floor/100))
	return s
}

// Interval is the distribution-free interval of vs's median at the
// confidence level c, as benchstat computes it (golang.org/x/perf's
// benchmath calls this go-moremath function: the order statistics around
// the median that hold it with probability at least c). Too few values for
// c give their whole range: 3 values hold their median between their least
// and greatest with probability 0.75, 6 between the 2nd and the 5th with
// 0.78.
func Interval(vs []float64, c float64) (lo, hi float64) {
	if len(vs) == 0 {
		return 0, 0
	}
	_, lo, hi = stats.QuantileCI(len(vs), 0.5, c).SampleCI(stats.Sample{Xs: vs})
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return slices.Min(vs), slices.Max(vs)
	}
	return lo, hi
}

// Beyond reports whether a lies wholly above b: more beyond the noise.
func Beyond(a, b loadtest.Spread) bool { return a.Min > b.Max }

// Differ is +1 when a is above b beyond the noise, -1 below, else 0.
func (r *Rules) Differ(a, b loadtest.Spread) int {
	a, b = Band(a, r.NoiseFloor), Band(b, r.NoiseFloor)
	switch {
	case Beyond(a, b):
		return 1
	case Beyond(b, a):
		return -1
	}
	return 0
}

// A RatioVerdict says whether setting A is as good as setting B by their median round ratio.
type RatioVerdict struct {
	// Rounds are A's figure over B's, a round where B read nothing left out.
	Rounds    []float64       `json:"rounds"`
	Ratio     loadtest.Spread `json:"ratio"`
	Threshold float64         `json:"threshold"`
	Decided   bool            `json:"decided"`
	Within    bool            `json:"within"`
	Why       string          `json:"why,omitempty"` // why there is no verdict, or which rounds were left out
}

// Ratios holds a against b, one figure a round each.
func Ratios(a, b []float64, threshold float64) RatioVerdict {
	v := RatioVerdict{Threshold: threshold}
	switch {
	case len(b) == 0:
		v.Why = "no rounds side by side: nothing to decide on"
		return v
	case len(a) != len(b):
		v.Why = fmt.Sprintf("one was measured in %d rounds and the other in %d: the rounds do not pair up", len(a), len(b))
		return v
	}
	left := 0
	for i, d := range b {
		if d <= 0 {
			left++
			continue
		}
		v.Rounds = append(v.Rounds, a[i]/d)
	}
	if left > 0 {
		v.Why = fmt.Sprintf("%d of %d rounds left out: the reference read nothing in them", left, len(b))
	}
	if len(v.Rounds) == 0 {
		return v
	}
	v.Ratio = loadtest.Spread{Median: Median(v.Rounds), Min: slices.Min(v.Rounds), Max: slices.Max(v.Rounds), N: len(v.Rounds)}
	v.Decided, v.Within = true, v.Ratio.Median >= threshold
	return v
}

// Control holds a setting against itself, within between the threshold and its inverse.
func Control(again, ref []float64, threshold float64) RatioVerdict {
	v := Ratios(again, ref, threshold)
	if v.Decided && threshold > 0 && v.Ratio.Median > 1/threshold {
		v.Within = false
	}
	return v
}

// Undecides returns v undecided when the control c read outside the
// threshold: the rounds cannot tell a shortfall from their own noise.
func (c RatioVerdict) Undecides(v RatioVerdict) RatioVerdict {
	if !c.Decided || c.Within || !v.Decided {
		return v
	}
	v.Decided, v.Within = false, false
	v.Why = "the reference against itself read " + c.String() + ": equal settings differ by more than the threshold in these rounds"
	return v
}

// String gives the verdict with its figures.
func (v RatioVerdict) String() string {
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
