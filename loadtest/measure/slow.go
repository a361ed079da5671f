package measure

import (
	"math"
	"slices"
)

// The slow rule: a measurement whose CPU per request is off the median of
// the setting's others by more than the tolerance is suspect; the
// tolerance is at least NoiseTimes the noise once NoiseSamples are known.
const (
	NoiseTimes   = 4
	NoiseSamples = 8
)

// Suspect returns the index of the CPU per request farthest from the
// median of at least two others, beyond tol %, with that median; or -1.
func Suspect(cpu []float64, tol float64) (int, float64) {
	best, bestOff, bestRef := -1, 0.0, 0.0
	for i, c := range cpu {
		if math.IsNaN(c) {
			continue
		}
		others := without(cpu, i)
		if len(others) < 2 {
			continue
		}
		ref := Median(others)
		if off := math.Abs(c-ref) / ref; ref > 0 && off > bestOff {
			best, bestOff, bestRef = i, off, ref
		}
	}
	if best < 0 || bestOff*100 <= tol {
		return -1, 0
	}
	return best, bestRef
}

// Agreeing returns how many values of cpu other than the one at skip are
// within tol % of their median, 0 when any is not.
func Agreeing(cpu []float64, skip int, tol float64) int {
	vs := without(cpu, skip)
	if len(vs) == 0 {
		return 0
	}
	mid := Median(vs)
	for _, v := range vs {
		if math.Abs(v-mid) > tol/100*mid {
			return 0
		}
	}
	return len(vs)
}

// Agrees reports whether a is within tol % of ref.
func Agrees(a, ref, tol float64) bool { return math.Abs(a-ref) <= tol/100*ref }

// Deviations returns each CPU per request's deviation in % from its setting's others.
func Deviations(settings [][]float64) []float64 {
	var devs []float64
	for _, cpu := range settings {
		for i, c := range cpu {
			if math.IsNaN(c) {
				continue
			}
			if others := without(cpu, i); len(others) > 0 {
				if ref := Median(others); ref > 0 {
					devs = append(devs, math.Abs(c-ref)/ref*100)
				}
			}
		}
	}
	return devs
}

// Noise is the median of the deviations once NoiseSamples are known.
func Noise(deviations []float64) (float64, bool) {
	if len(deviations) < NoiseSamples {
		return 0, false
	}
	return Median(deviations), true
}

// Tolerance is the slow rule's tolerance in %, fromNoise when NoiseTimes
// noise is above Rules.CPUPerRequest.
func (r *Rules) Tolerance(noise float64) (tol float64, fromNoise bool) {
	if n := NoiseTimes * noise; n > r.CPUPerRequest {
		return n, true
	}
	return r.CPUPerRequest, false
}

// without returns vs without the one at skip and NaN.
func without(vs []float64, skip int) []float64 {
	var out []float64
	for j, v := range vs {
		if j != skip && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// Median is the median of vs, the middle two's mean for an even count.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
