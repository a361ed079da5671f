package tune

import (
	"fmt"
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
)

// sideBy is a setting measured side by side, one throughput a round, its
// spread widened to the default noise floor as summarise does.
func sideBy(tputs ...float64) *Measurement {
	m := &Measurement{Knobs: kn(10, 10), Throughputs: tputs, Runs: len(tputs)}
	if len(tputs) > 0 {
		m.Throughput = loadtest.SpreadOf(tputs)
		m.Band = measure.Band(m.Throughput, measure.DefaultNoiseFloor)
	}
	return m
}

// verdict holds w against best round by round, as RunGrid does.
func verdict(w, best *Measurement, threshold float64) measure.RatioVerdict {
	if w == nil {
		return measure.Ratios(nil, nil, threshold) // not measured side by side, as RunGrid leaves it
	}
	return measure.Ratios(w.Throughputs, best.Throughputs, threshold)
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
		g.Tunes = append(g.Tunes, &GridTune{Tune: &Result{Start: kn(5, 5), Winner: kn(10, 10)}, TunerMeasurements: 12, Verdict: verdict(w, best, 0.95)})
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
