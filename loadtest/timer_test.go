package loadtest

import (
	"math"
	"testing"
	"time"
)

func TestTimerDistributions(t *testing.T) {
	const n = 10000
	ms := float64(time.Millisecond)
	tests := []struct {
		kind          TimerKind
		think, dev    time.Duration
		mean, sd, tol float64 // in ms; tol is relative
	}{
		{TimerConstant, 100 * time.Millisecond, 30 * time.Millisecond, 100, 0, 0},
		// JMeter Uniform Random Timer: offset + uniform[0, range).
		{TimerUniform, 100 * time.Millisecond, 50 * time.Millisecond, 125, 50 / math.Sqrt(12), 0.03},
		// Gaussian Random Timer: |N(0,1) × deviation + offset|.
		{TimerGaussian, 100 * time.Millisecond, 20 * time.Millisecond, 100, 20, 0.03},
		// Poisson Random Timer with offset 0: mean lambda, sd sqrt(lambda).
		{TimerPoisson, 100 * time.Millisecond, 0, 100, 10, 0.03},
		// Poisson above 500 ms uses the normal approximation.
		{TimerPoisson, 1000 * time.Millisecond, 0, 1000, math.Sqrt(1000), 0.04},
	}
	for _, tt := range tests {
		tm := NewTimer(tt.kind, tt.think, tt.dev, 42)
		var sum, sq float64
		for i := 0; i < n; i++ {
			d := tm.Next()
			if d < 0 {
				t.Fatalf("%s: negative think time %v", tt.kind, d)
			}
			v := float64(d) / ms
			sum += v
			sq += v * v
		}
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-tt.mean) > tt.mean*tt.tol+1e-9 {
			t.Errorf("%s(think %v, dev %v): mean %.3f ms; want %.3f ± %.0f%%", tt.kind, tt.think, tt.dev, mean, tt.mean, tt.tol*100)
		}
		if math.Abs(sd-tt.sd) > tt.sd*tt.tol*2+1e-6 {
			t.Errorf("%s(think %v, dev %v): sd %.3f ms; want %.3f ± %.0f%%", tt.kind, tt.think, tt.dev, sd, tt.sd, tt.tol*200)
		}
	}
}

func TestGaussianTimerIsAbsolute(t *testing.T) {
	// With the offset near zero, |N × dev + offset| folds negatives over.
	tm := NewTimer(TimerGaussian, 0, 10*time.Millisecond, 7)
	var sum float64
	for i := 0; i < 10000; i++ {
		d := tm.Next()
		if d < 0 {
			t.Fatalf("Next() = %v; want >= 0", d)
		}
		sum += float64(d)
	}
	// E|N(0, σ)| = σ √(2/π) ≈ 7.98 ms.
	mean := sum / 10000 / float64(time.Millisecond)
	if math.Abs(mean-7.979) > 0.25 {
		t.Errorf("mean of |N(0,10ms)| = %.3f ms; want 7.98 ± 0.25", mean)
	}
}

func TestParseTimerAndModel(t *testing.T) {
	for _, s := range []string{"constant", "uniform", "gaussian", "poisson"} {
		if k, err := ParseTimer(s); err != nil || string(k) != s {
			t.Errorf("ParseTimer(%q) = %q, %v", s, k, err)
		}
	}
	if _, err := ParseTimer("normal"); err == nil {
		t.Errorf("ParseTimer(normal) succeeded; want an error")
	}
	for _, s := range []string{"delay", "rate", "open"} {
		if m, err := ParseModel(s); err != nil || string(m) != s {
			t.Errorf("ParseModel(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseModel("closed"); err == nil {
		t.Errorf("ParseModel(closed) succeeded; want an error")
	}
}
