package loadtest

import (
	"slices"
	"sort"
)

// A Spread is one figure of a point over its repeats: the median, the
// point's value, and the range. The range is min-max rather than an
// interval estimate: with the three or so repeats a shared machine allows,
// a confidence interval would rest on a guessed distribution and mean
// little, while min-max is exactly what "is the difference larger than the
// spread?" tests. The charts draw it and the experiment's claims compare
// it, so it lives here, below both.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// N is the number of measurements.
	N int `json:"n"`
}

// SpreadOf summarises vs (at least one value).
func SpreadOf(vs []float64) Spread {
	return Spread{Median: Median(vs), Min: slices.Min(vs), Max: slices.Max(vs), N: len(vs)}
}

// Scaled multiplies every figure of s by f (f >= 0).
func (s Spread) Scaled(f float64) Spread {
	return Spread{Median: s.Median * f, Min: s.Min * f, Max: s.Max * f, N: s.N}
}

// Median returns the middle value of xs (at least one value), the lower of
// the two middle ones for an even count, so that it is always a measured
// value. xs is not changed.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
}
