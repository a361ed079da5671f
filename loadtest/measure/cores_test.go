package measure

import (
	"strings"
	"testing"
)

func base(spans ...Span) *Baseline {
	b := &Baseline{Source: FromCalibration}
	for i := range spans {
		b.Add(&spans[i], nil)
	}
	return b
}

// TestBaselineExpect holds the baseline's model to the cases it is for: a
// CPU-bound process on the server's core for the whole run is part of the
// machine at every load, a burst of one on a quiet machine is not, and the
// hypervisor's steady steal is part of it too.
func TestBaselineExpect(t *testing.T) {
	rules := &Rules{}
	rules.Check("disturbance")
	// A hog on the core: the board, CPU-bound with no wait, gets half the
	// core; at the operating point it takes 30 % and the hog the rest.
	hog := base(Span{Own: 50, Interference: 50, Capacity: 100}, Span{Own: 30, Interference: 70, Capacity: 100}, Span{Own: 31, Interference: 69, Capacity: 100})
	quiet := base(Span{Own: 99, Interference: 1, Capacity: 100}, Span{Own: 62, Interference: 1, Capacity: 100}, Span{Own: 60, Interference: 2, Capacity: 100})
	steal := base(Span{Own: 80, Interference: 18, Capacity: 100}, Span{Own: 60, Interference: 15, Capacity: 100}, Span{Own: 58, Interference: 16, Capacity: 100})
	for _, tt := range []struct {
		name string
		base *Baseline
		s    Span
		want bool
	}{
		{"the hog stays, 1 client: it takes what the board leaves", hog, Span{Own: 12, Interference: 88, Capacity: 100}, false},
		{"the hog stays, the board CPU-bound", hog, Span{Own: 50, Interference: 50, Capacity: 100}, false},
		{"quiet, 1 client", quiet, Span{Own: 20, Interference: 2, Capacity: 100}, false},
		{"quiet, a 3 s burst in a 4 s step", quiet, Span{Own: 62, Interference: 37, Capacity: 100}, true},
		{"quiet, a burst of 1.2 s in a 4 s step", quiet, Span{Own: 77, Interference: 15, Capacity: 100}, true},
		{"quiet, a burst of 1.2 s at 1 client", quiet, Span{Own: 19, Interference: 24, Capacity: 100}, true},
		{"steady steal, the board CPU-bound", steal, Span{Own: 75, Interference: 21, Capacity: 100}, false},
		{"steady steal, 1 client", steal, Span{Own: 20, Interference: 5, Capacity: 100}, false},
		{"steal doubled", steal, Span{Own: 55, Interference: 40, Capacity: 100}, true},
	} {
		j := &Judge{Rules: rules, Baseline: tt.base}
		s := tt.s
		if v := j.Judge(&s, nil); v.Disturbed() != tt.want || v.Expected == nil {
			t.Errorf("%s: %+v: %+v; want disturbed %v", tt.name, tt.s, v, tt.want)
		}
	}
	var none *Cores
	if _, ok := none.Expect(Span{Capacity: 100}); ok {
		t.Errorf("no baseline expects something; want nothing to judge by")
	}
	j := &Judge{Rules: rules}
	if v := j.Judge(&Span{Interference: 90, Capacity: 100}, nil); v.Disturbed() {
		t.Errorf("no baseline yet: %q; want nothing judged", v.Why)
	}
	j = &Judge{Rules: &Rules{Off: true, Threshold: 10}, Baseline: quiet}
	if v := j.Judge(&Span{Own: 50, Interference: 90, Capacity: 100}, nil); v.Disturbed() {
		t.Errorf("rules off: %q; want nothing disturbed", v.Why)
	}
}

// TestStealBehindAHog: a CPU-bound process hides steal in interference
// (the total stays); steal is judged on its own, against the baseline's
// or the lowest the run has read, whichever is lower.
func TestStealBehindAHog(t *testing.T) {
	rules := &Rules{Threshold: 10}
	j := &Judge{Rules: rules, Baseline: base(
		Span{Own: 30, Interference: 70, Capacity: 100, Steal: 1, HasSteal: true},
		Span{Own: 32, Interference: 68, Capacity: 100, Steal: 0, HasSteal: true})}
	if v := j.Judge(&Span{Own: 31, Interference: 69, Capacity: 100, Steal: 2, HasSteal: true}, nil); v.Disturbed() {
		t.Errorf("the hog as at the baseline: %q", v.Why)
	}
	v := j.Judge(&Span{Own: 30, Interference: 70, Capacity: 100, Steal: 32, HasSteal: true}, nil)
	if !strings.Contains(v.Why, "the hypervisor took 32.0 % of a core from the server's cores (steal)") || v.StealBaseline == nil {
		t.Errorf("32 %% steal behind the hog: %q; want disturbed by steal", v.Why)
	}
	// A baseline taken in a burst of steal: once the run reads less, the
	// floor is the level.
	burst := &Judge{Rules: rules, Baseline: base(Span{Own: 40, Interference: 40, Capacity: 100, Steal: 38, HasSteal: true})}
	if v := burst.Judge(&Span{Own: 40, Interference: 40, Capacity: 100, Steal: 38, HasSteal: true}, nil); v.Disturbed() {
		t.Errorf("steal as at the baseline: %q", v.Why)
	}
	burst.Judge(&Span{Own: 70, Interference: 2, Capacity: 100, Steal: 1, HasSteal: true}, nil)
	if f, ok := burst.Floor(true); !ok || f != 1 {
		t.Errorf("floor = %g, %v; want 1", f, ok)
	}
	if v := burst.Judge(&Span{Own: 40, Interference: 40, Capacity: 100, Steal: 38, HasSteal: true}, nil); !strings.Contains(v.Why, "(steal)") {
		t.Errorf("the burst's steal again after the run read 1 %%: %q; want disturbed by steal", v.Why)
	}
}

// TestBusy: idle cores before a re-measure, against the baseline.
func TestBusy(t *testing.T) {
	j := &Judge{Rules: &Rules{Threshold: 10}, Baseline: base(Span{Own: 60, Interference: 2, Capacity: 100})}
	if why := j.Busy(j.Baseline, &Span{Interference: 3, Capacity: 100}, nil); why != "" {
		t.Errorf("quiet idle cores: %q", why)
	}
	if why := j.Busy(j.Baseline, &Span{Interference: 60, Capacity: 100}, nil); !strings.Contains(why, "others took 60 % of a core on the server's cores") {
		t.Errorf("a hog while idle: %q", why)
	}
	// No baseline: steal held to a floor given as the baseline's level.
	zero := 0.0
	j = &Judge{Rules: &Rules{Threshold: 10}, Baseline: &Baseline{Server: &Cores{Level: 100, Steal: &zero}}}
	if why := j.Busy(j.Baseline, &Span{Interference: 30, Capacity: 100, Steal: 30, HasSteal: true}, nil); !strings.Contains(why, "hypervisor took 30 %") {
		t.Errorf("steal before a calibration: %q", why)
	}
}
