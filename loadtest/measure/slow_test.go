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
	if _, ok := Noise([]float64{50, 50}); ok {
		t.Errorf("two deviations give a noise; want none before NoiseSamples")
	}
	quiet := Deviations([][]float64{{0.20, 0.21, 0.20}, {0.30, 0.31, 0.30}, {0.40, 0.40, 0.41}})
	n, ok := Noise(quiet)
	if tol, fromNoise := r.Tolerance(n); !ok || tol != 25 || fromNoise || len(quiet) != 9 {
		t.Errorf("a quiet machine (%d deviations, noise %g): %g, %v; want the rule's 25", len(quiet), n, tol, fromNoise)
	}
	shared := Deviations([][]float64{{0.20, 0.26, 0.21}, {0.30, 0.22, 0.31}, {0.40, 0.52, 0.40}})
	n, _ = Noise(shared)
	if tol, fromNoise := r.Tolerance(n); tol <= 25 || !fromNoise {
		t.Errorf("a machine shared steadily (noise %g): %g, %v; want more than 25, from the noise", n, tol, fromNoise)
	}
	// Two probes 18 % apart: each 8.3 % off their middle, 4 x that 33 %.
	if tol, _ := r.Tolerance(math.Abs(0.236-0.2) / (0.236 + 0.2) * 100); math.Abs(tol-4*0.036/0.436*100) > 1e-9 || tol <= 25 {
		t.Errorf("two probes 18 %% apart: tolerance %g; want 4 x their deviation from the middle", tol)
	}
	if m := Median([]float64{3, 1, 2, 4}); m != 2.5 {
		t.Errorf("Median(3 1 2 4) = %g; want 2.5", m)
	}
}
