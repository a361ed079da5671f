package tune

import (
	"fmt"
	"strings"
	"testing"

	"bbslab/loadtest"
)

// sideBy is a setting measured side by side, one throughput a round, its
// spread widened to the tuner's default noise as summarise does.
func sideBy(tputs ...float64) *Measurement {
	m := &Measurement{Knobs: kn(10, 10), Throughputs: tputs, Runs: len(tputs)}
	if len(tputs) > 0 {
		m.Throughput = loadtest.SpreadOf(tputs)
		m.Band = widen(m.Throughput, 0.02)
	}
	return m
}

// scaled is the best's rounds times f, each round wobbling by the
// wobble given (a share), as a setting a little off the best reads round
// by round: the median ratio stays f.
func scaled(best []float64, f float64, wobble ...float64) []float64 {
	out := make([]float64, len(best))
	for i, b := range best {
		out[i] = b * f * (1 + wobble[i%len(wobble)])
	}
	return out
}

// TestJudgeSide decides made-up rounds: the best's throughput moving
// round by round as a slow spell lowers whole rounds, a winner at 0.85 x
// the best (not within), at 0.97 x (within), one at 0.81 x whose spreads
// overlap the best's (the widened-range overlap once called it within),
// the threshold itself, and the cases with no verdict.
func TestJudgeSide(t *testing.T) {
	best := []float64{7600, 4100, 7500, 7700, 7400} // round 2 in a slow spell
	for _, tt := range []struct {
		name          string
		winner, best  *Measurement
		threshold     float64
		decided, want bool
		text          string
	}{
		{"0.85 x the best", sideBy(scaled(best, 0.85, 0, 0.02, -0.01, 0.01, -0.02)...), sideBy(best...), 0.95, true, false,
			"not within: median ratio 0.850 < 0.95 over 5 rounds (0.850 0.867 0.842 0.858 0.833; 0.833-0.867)"},
		{"0.97 x the best", sideBy(scaled(best, 0.97, 0, 0.02, -0.01, 0.01, -0.02)...), sideBy(best...), 0.95, true, true,
			"within: median ratio 0.970 >= 0.95 over 5 rounds (0.970 0.989 0.960 0.980 0.951; 0.951-0.989)"},
		// T7's case: the winner's rounds range 0.55-1.47 of the best's
		// median, the best's too; their medians 0.81 apart.
		{"0.81 x, spreads overlapping", sideBy(6200, 4150, 6100, 6300, 5900), sideBy(best...), 0.95, true, false,
			"not within: median ratio 0.816 < 0.95"},
		{"the best itself", sideBy(best...), sideBy(best...), 0.95, true, true, "within: median ratio 1.000 >= 0.95 over 5 rounds (1.000 1.000 1.000 1.000 1.000; 1.000-1.000)"},
		{"at the threshold", sideBy(95, 95, 95), sideBy(100, 100, 100), 0.95, true, true, "within: median ratio 0.950 >= 0.95"},
		{"a stricter threshold", sideBy(scaled(best, 0.97, 0)...), sideBy(best...), 0.98, true, false, "not within: median ratio 0.970 < 0.98"},
		{"a round the best served nothing", sideBy(97, 50, 97), sideBy(100, 0, 100), 0.95, true, true,
			"within: median ratio 0.970 >= 0.95 over 2 rounds (0.970 0.970; 0.970-0.970); 1 of 3 rounds left out: the best served nothing in them"},
		{"no rounds", nil, nil, 0.95, false, false, "no verdict: no rounds side by side: nothing to decide on"},
		{"no rounds measured", sideBy(), sideBy(), 0.95, false, false, "no verdict: no rounds side by side"},
		{"rounds that do not pair up", sideBy(97, 97), sideBy(100, 100, 100), 0.95, false, false,
			"no verdict: the winner was measured in 2 rounds and the best in 3: the rounds do not pair up"},
		{"the best served nothing", sideBy(97, 97), sideBy(0, 0), 0.95, false, false, "no verdict: 2 of 2 rounds left out"},
	} {
		if tt.name == "0.81 x, spreads overlapping" && more(tt.best, tt.winner) {
			t.Errorf("%s: the spreads widened to ±2 %% do not overlap; the case wants a winner the overlap calls within", tt.name)
		}
		v := judgeSide(tt.winner, tt.best, tt.threshold)
		if v.Decided != tt.decided || v.Within != tt.want || !strings.HasPrefix(v.String(), tt.text) || v.Threshold != tt.threshold {
			t.Errorf("%s: judgeSide = %q (decided %v, within %v, threshold %g); want %q..., decided %v, within %v",
				tt.name, v, v.Decided, v.Within, v.Threshold, tt.text, tt.decided, tt.want)
		}
	}
}

// TestGridSpecValidate: the rounds and the threshold out of bounds are
// errors naming them; the defaults' values pass.
func TestGridSpecValidate(t *testing.T) {
	for _, tt := range []struct {
		spec GridSpec
		want string
	}{
		{GridSpec{Seed: 1, Rounds: 5, Within: 0.95}, ""},
		{GridSpec{Rounds: 0, Within: 1}, ""},
		{GridSpec{Rounds: 21, Within: 0.95}, "side-by-side 21"},
		{GridSpec{Rounds: -1, Within: 0.95}, "side-by-side -1"},
		{GridSpec{Rounds: 5}, "within 0"},
		{GridSpec{Rounds: 5, Within: 1.2}, "within 1.2"},
	} {
		err := tt.spec.Validate()
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v.Validate() = %v; want %q", tt.spec, err, tt.want)
		}
	}
}

// TestGridReport prints two tunings judged on made-up rounds, one not
// within and one within, and one with no rounds: each verdict's line, and
// NotWithin counts the one decided against.
func TestGridReport(t *testing.T) {
	best := sideBy(7600, 4100, 7500)
	g := &GridResult{Best: best, GridMeasurements: 196}
	for _, w := range []*Measurement{sideBy(6460, 3485, 6375), sideBy(7372, 3977, 7275), nil} {
		g.Tunes = append(g.Tunes, &GridTune{Tune: &Result{Start: kn(5, 5), Winner: kn(10, 10)}, TunerMeasurements: 12, Verdict: judgeSide(w, best, 0.95)})
	}
	var lines []string
	g.Report(func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }, 3)
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"grid's best: 10/10: 7500/s (4100-7600)",
		"verdict, the winner over the grid's best round by round: not within: median ratio 0.850 < 0.95 over 3 rounds",
		"verdict, the winner over the grid's best round by round: within: median ratio 0.970 >= 0.95 over 3 rounds",
		"verdict, the winner over the grid's best round by round: no verdict: no rounds side by side",
		"measurements: tuner 12 settings (0 runs), grid 196 settings (588 runs)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Report lacks %q:\n%s", want, text)
		}
	}
	if n := g.NotWithin(); n != 1 {
		t.Errorf("NotWithin = %d; want 1 (one not within, one within, one undecided)", n)
	}
}

// TestJudgeControl: the grid's best against itself is within when its
// median ratio lies between the threshold and its inverse, either side.
func TestJudgeControl(t *testing.T) {
	best := sideBy(7600, 7500, 7700, 7400, 7550)
	for _, tt := range []struct {
		name   string
		again  *Measurement
		within bool
		text   string
	}{
		{"equal within the noise", sideBy(7650, 7450, 7600, 7500, 7500), true, "within: median ratio 0.993 >= 0.95"},
		{"the second reading 8 % low", sideBy(scaled([]float64{7600, 7500, 7700, 7400, 7550}, 0.92, 0)...), false, "not within: median ratio 0.920 < 0.95"},
		{"the second reading 8 % high", sideBy(scaled([]float64{7600, 7500, 7700, 7400, 7550}, 1.08, 0)...), false, "not within: median ratio 1.080 > 1/0.95"},
	} {
		v := judgeControl(tt.again, best, 0.95)
		if !v.Decided || v.Within != tt.within || !strings.HasPrefix(v.String(), tt.text) {
			t.Errorf("%s: %q (within %v); want %q..., within %v", tt.name, v, v.Within, tt.text, tt.within)
		}
		// A winner at 0.97 x is decided only when the control is within.
		w := v.undecides(judgeSide(sideBy(scaled([]float64{7600, 7500, 7700, 7400, 7550}, 0.97, 0)...), best, 0.95))
		if w.Decided != tt.within || (!tt.within && !strings.Contains(w.Why, "the grid's best against itself read")) {
			t.Errorf("%s: the winner's verdict %q (decided %v); want decided %v, undecided saying why", tt.name, w, w.Decided, tt.within)
		}
	}
}
