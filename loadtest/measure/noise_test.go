package measure

import (
	"strings"
	"testing"

	"bbslab/loadtest"
)

func scaled(vs []float64, f float64, jitter ...float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		j := 0.0
		if i < len(jitter) {
			j = jitter[i]
		}
		out[i] = v * (f + j)
	}
	return out
}

// TestRatios decides made-up rounds: the reference moving round by round
// as a slow spell lowers whole rounds, a setting at 0.85 x (not within),
// at 0.97 x (within), one at 0.81 x whose spreads overlap the reference's
// (widened-range overlap would call it within), the threshold itself, and
// the cases with no verdict.
func TestRatios(t *testing.T) {
	best := []float64{7600, 4100, 7500, 7700, 7400} // round 2 in a slow spell
	rules := &Rules{NoiseFloor: 2}
	for _, tt := range []struct {
		name          string
		a, b          []float64
		threshold     float64
		decided, want bool
		text          string
	}{
		{"0.85 x", scaled(best, 0.85, 0, 0.02, -0.01, 0.01, -0.02), best, 0.95, true, false,
			"not within: median ratio 0.850 < 0.95 over 5 rounds (0.850 0.870 0.840 0.860 0.830; 0.830-0.870)"},
		{"0.97 x", scaled(best, 0.97, 0, 0.02, -0.01, 0.01, -0.02), best, 0.95, true, true, "within: median ratio 0.970 >= 0.95 over 5 rounds"},
		{"0.81 x, spreads overlapping", []float64{6200, 4150, 6100, 6300, 5900}, best, 0.95, true, false, "not within: median ratio 0.816 < 0.95"},
		{"itself", best, best, 0.95, true, true, "within: median ratio 1.000 >= 0.95"},
		{"at the threshold", []float64{95, 95, 95}, []float64{100, 100, 100}, 0.95, true, true, "within: median ratio 0.950 >= 0.95"},
		{"a round the reference read nothing", []float64{97, 50, 97}, []float64{100, 0, 100}, 0.95, true, true,
			"within: median ratio 0.970 >= 0.95 over 2 rounds (0.970 0.970; 0.970-0.970); 1 of 3 rounds left out"},
		{"no rounds", nil, nil, 0.95, false, false, "no verdict: no rounds side by side"},
		{"rounds that do not pair up", []float64{97, 97}, []float64{100, 100, 100}, 0.95, false, false, "no verdict: one was measured in 2 rounds and the other in 3"},
		{"the reference read nothing", []float64{97, 97}, []float64{0, 0}, 0.95, false, false, "no verdict: 2 of 2 rounds left out"},
	} {
		if tt.name == "0.81 x, spreads overlapping" && rules.Differ(loadtest.SpreadOf(tt.b), loadtest.SpreadOf(tt.a)) != 0 {
			t.Errorf("%s: the bands do not overlap; the case wants one the overlap calls within the noise", tt.name)
		}
		v := Ratios(tt.a, tt.b, tt.threshold)
		if v.Decided != tt.decided || v.Within != tt.want || !strings.HasPrefix(v.String(), tt.text) {
			t.Errorf("%s: %q (decided %v, within %v); want %q..., decided %v, within %v", tt.name, v, v.Decided, v.Within, tt.text, tt.decided, tt.want)
		}
	}
}

// TestControl: a setting against itself is within only between the
// threshold and its inverse, and a control outside undecides a verdict.
func TestControl(t *testing.T) {
	ref := []float64{7600, 7500, 7700, 7400, 7550}
	for _, tt := range []struct {
		name   string
		again  []float64
		within bool
		text   string
	}{
		{"equal within the noise", []float64{7650, 7450, 7600, 7500, 7500}, true, "within: median ratio 0.993 >= 0.95"},
		{"8 % low", scaled(ref, 0.92), false, "not within: median ratio 0.920 < 0.95"},
		{"8 % high", scaled(ref, 1.08), false, "not within: median ratio 1.080 > 1/0.95"},
	} {
		c := Control(tt.again, ref, 0.95)
		if !c.Decided || c.Within != tt.within || !strings.HasPrefix(c.String(), tt.text) {
			t.Errorf("%s: %q; want %q..., within %v", tt.name, c, tt.text, tt.within)
		}
		w := c.Undecides(Ratios(scaled(ref, 0.97), ref, 0.95))
		if w.Decided != tt.within || (!tt.within && !strings.Contains(w.Why, "the reference against itself read")) {
			t.Errorf("%s: the verdict under this control %q; want decided %v", tt.name, w, tt.within)
		}
	}
}

// TestDiffer: bands widened to the floor; a difference only beyond them.
func TestDiffer(t *testing.T) {
	r := &Rules{NoiseFloor: 2}
	a := loadtest.Spread{Median: 100, Min: 100, Max: 100, N: 3}
	for _, tt := range []struct {
		b    loadtest.Spread
		want int
	}{
		{loadtest.Spread{Median: 103, Min: 103, Max: 103, N: 3}, 0},  // 3 % apart: the bands of ±2 % touch
		{loadtest.Spread{Median: 106, Min: 106, Max: 106, N: 3}, -1}, // 6 %: beyond
		{loadtest.Spread{Median: 94, Min: 94, Max: 94, N: 3}, 1},
		{loadtest.Spread{Median: 110, Min: 95, Max: 125, N: 3}, 0}, // a wide spread
	} {
		if got := r.Differ(a, tt.b); got != tt.want {
			t.Errorf("Differ(100, %+v) = %d; want %d", tt.b, got, tt.want)
		}
	}
	if b := Band(loadtest.Spread{Median: 100, Min: 90, Max: 101}, 2); b.Min != 90 || b.Max != 102 {
		t.Errorf("Band = %+v; want 90..102", b)
	}
}

// TestInterval: the median's interval at 0.75 is the whole range of 2 to
// 5 values (fewer than 6 hold it no tighter at that level), then narrows
// to the order statistics around the median as values are added; an
// outlier among 6 falls outside it. A higher level widens it.
func TestInterval(t *testing.T) {
	for _, tt := range []struct {
		vs     []float64
		c      float64
		lo, hi float64
	}{
		{nil, 0.75, 0, 0},
		{[]float64{1.2, 0.8}, 0.75, 0.8, 1.2},
		{[]float64{1.117, 0.761, 0.998}, 0.75, 0.761, 1.117},
		{[]float64{1.2, 0.99, 1.0, 1.0, 1.01, 1.02}, 0.75, 1.0, 1.02},
		{[]float64{9, 1, 8, 2, 7, 3, 6, 4, 5}, 0.75, 3, 7},
		{[]float64{9, 1, 8, 2, 7, 3, 6, 4, 5}, 0.95, 2, 8},
		{[]float64{1.2, 0.99, 1.0, 1.0, 1.01, 1.02}, 0.99, 0.99, 1.2},
	} {
		if lo, hi := Interval(tt.vs, tt.c); lo != tt.lo || hi != tt.hi {
			t.Errorf("Interval(%v, %g) = %g-%g; want %g-%g", tt.vs, tt.c, lo, hi, tt.lo, tt.hi)
		}
	}
}
