package loadtest

import (
	"slices"
)

// A Spread is one figure of a point over its N repeats: median and range.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// SpreadOf summarises vs (at least one value).
func SpreadOf(vs []float64) Spread {
	return Spread{Median: Median(vs), Min: slices.Min(vs), Max: slices.Max(vs), N: len(vs)}
}

// Scaled multiplies every figure of s by f (f >= 0).
func (s Spread) Scaled(f float64) Spread {
	return Spread{Median: s.Median * f, Min: s.Min * f, Max: s.Max * f, N: s.N}
}

// Median returns the middle value of xs (at least one), the lower of two.
func Median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[(len(s)-1)/2]
}
