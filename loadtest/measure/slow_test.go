package measure

import (
	"math"
	"testing"
)

// TestSuspect checks how the slow kind is told: the measurement farthest
// from the others' median, beyond the tolerance, with two others at least.
func TestSuspect(t *testing.T) {
	if i, ref := Suspect([]float64{0.18, 0.19, 0.41}, 25); i != 2 || math.Abs(ref-0.185) > 1e-9 {
		t.Errorf("Suspect(0.18, 0.19, 0.41) = %d, %g; want 2 against 0.185", i, ref)
	}
	if i, _ := Suspect([]float64{0.18, 0.19, 0.20}, 25); i != -1 {
		t.Errorf("Suspect(0.18, 0.19, 0.20) = %d; want none: within 25 %%", i)
	}
	if i, _ := Suspect([]float64{0.18, 0.41}, 25); i != -1 {
		t.Errorf("Suspect of two = %d; want none: with one other, which is off cannot be told", i)
	}
	if i, _ := Suspect([]float64{0.18, math.NaN(), 0.41}, 25); i != -1 {
		t.Errorf("Suspect with one unread = %d; want none", i)
	}
}

// TestAgreeing: the others stand without the suspect only when they agree.
func TestAgreeing(t *testing.T) {
	if n := Agreeing([]float64{0.20, 0.21, 0.60}, 2, 25); n != 2 {
		t.Errorf("two agreeing others: %d; want 2", n)
	}
	if n := Agreeing([]float64{0.20, 0.40, 0.60}, 2, 25); n != 0 {
		t.Errorf("two disagreeing others: %d; want 0", n)
	}
	if !Agrees(0.21, 0.20, 25) || Agrees(0.30, 0.20, 25) {
		t.Errorf("Agrees: 0.21 vs 0.20 should, 0.30 vs 0.20 should not, at 25 %%")
	}
}

// TestToleranceFollowsTheNoise: the rule's tolerance until enough
// deviations are known, then NoiseTimes their median where larger.
func TestToleranceFollowsTheNoise(t *testing.T) {
	r := &Rules{CPUPerRequest: 25}
	if tol, noise := r.Tolerance([]float64{50, 50}); tol != 25 || noise {
		t.Errorf("two deviations: %g, %v; want the rule's 25", tol, noise)
	}
	quiet := Deviations([][]float64{{0.20, 0.21, 0.20}, {0.30, 0.31, 0.30}, {0.40, 0.40, 0.41}})
	if tol, noise := r.Tolerance(quiet); tol != 25 || noise || len(quiet) != 9 {
		t.Errorf("a quiet machine (%d deviations): %g, %v; want the rule's 25", len(quiet), tol, noise)
	}
	shared := Deviations([][]float64{{0.20, 0.26, 0.21}, {0.30, 0.22, 0.31}, {0.40, 0.52, 0.40}})
	if tol, noise := r.Tolerance(shared); tol <= 25 || !noise {
		t.Errorf("a machine shared steadily: %g, %v; want more than 25, from the noise", tol, noise)
	}
	if m := Median([]float64{3, 1, 2, 4}); m != 2.5 {
		t.Errorf("Median(3 1 2 4) = %g; want 2.5", m)
	}
}
