package measure

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRounds: every setting once a round, in round order, each round
// starting one setting further on; an error stops it with its place.
func TestRounds(t *testing.T) {
	var order []int
	var between []int
	out, err := Rounds(context.Background(), Plan{Rounds: 3, Settings: 2, Rotate: true, Between: func(_ context.Context, r int) error {
		between = append(between, r)
		return nil
	}}, func(_ context.Context, round, setting int) (int, error) {
		order = append(order, setting)
		return 10*round + setting, nil
	})
	if err != nil || !slices.Equal(order, []int{0, 1, 1, 0, 0, 1}) || !slices.Equal(between, []int{0, 1}) {
		t.Fatalf("order %v, between %v, %v; want 0 1, 1 0, 0 1 with a pause after rounds 1 and 2", order, between, err)
	}
	if !slices.Equal(out[0], []int{0, 10, 20}) || !slices.Equal(out[1], []int{1, 11, 21}) {
		t.Errorf("out = %v; want each setting's figures in round order", out)
	}
	order = nil
	if _, err := Rounds(context.Background(), Plan{Rounds: 2, Settings: 3}, func(_ context.Context, _, setting int) (int, error) {
		order = append(order, setting)
		return 0, nil
	}); err != nil || !slices.Equal(order, []int{0, 1, 2, 0, 1, 2}) {
		t.Errorf("without rotation: %v, %v; want the settings' order every round", order, err)
	}
	_, err = Rounds(context.Background(), Plan{Rounds: 2, Settings: 2}, func(_ context.Context, round, _ int) (int, error) {
		if round == 1 {
			return 0, errors.New("boom")
		}
		return 0, nil
	})
	if err == nil || err.Error() != "boom" {
		t.Errorf("err = %v; want the measurement's error as it is", err)
	}
	if _, err := Rounds(context.Background(), Plan{Settings: 2}, func(context.Context, int, int) (int, error) { return 0, nil }); err == nil {
		t.Errorf("0 rounds: no error")
	}
}

// TestBudget: the time and attempts a re-measure may take.
func TestBudget(t *testing.T) {
	r := &Rules{MaxAttempts: 3}
	b := &Budget{Max: 40 * time.Second}
	if why := b.Again(r, 1, 5*time.Second, true); why != "" {
		t.Errorf("fresh budget: %q", why)
	}
	if why := b.Again(r, 3, 5*time.Second, false); why != "max_attempts" {
		t.Errorf("third attempt: %q; want max_attempts", why)
	}
	b.Spend(20 * time.Second)
	if why := b.Again(r, 1, 5*time.Second, true); why != "reserved" {
		t.Errorf("half spent, the setting has repeats: %q; want reserved", why)
	}
	if why := b.Again(r, 1, 5*time.Second, false); why != "" {
		t.Errorf("half spent, the setting has none: %q; want allowed", why)
	}
	b.Spend(18 * time.Second)
	if why := b.Again(r, 1, 5*time.Second, false); why != "max_extra" {
		t.Errorf("38 of 40 s spent: %q; want max_extra", why)
	}
}

// TestRulesCheck: defaults filled, bad values named with their section.
func TestRulesCheck(t *testing.T) {
	r := &Rules{}
	if errs := r.Check("disturbance"); len(errs) != 0 || r.Threshold != DefaultThreshold || r.MaxAttempts != DefaultMaxAttempts ||
		r.CPUPerRequest != DefaultCPUPerRequest || r.NoiseFloor != DefaultNoiseFloor || r.Within != DefaultWithin || r.Confidence != DefaultConfidence || time.Duration(r.Settle) != DefaultSettle {
		t.Errorf("defaults: %+v, %v", r, errs)
	}
	bad := &Rules{Threshold: 200, MaxAttempts: 11, CPUPerRequest: -1, Within: 1.5, NoiseFloor: 101, Confidence: 1}
	errs := bad.Check("disturbance")
	var text []string
	for _, e := range errs {
		text = append(text, e.Error())
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"disturbance.threshold = 200", "disturbance.max_attempts = 11", "disturbance.cpu_per_request = -1", "disturbance.within = 1.5", "disturbance.noise_floor = 101", "disturbance.confidence = 1"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q lack %q", all, want)
		}
	}
}
