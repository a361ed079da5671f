package loadtest

import (
	"math"
	"strings"
	"testing"
)

func TestFitUSLRecoversTheLaw(t *testing.T) {
	law := USL{Lambda: 500, Sigma: 0.05, Kappa: 0.002}
	for _, tt := range []struct {
		name    string
		clients []int
	}{
		{"with 1 client", []int{1, 2, 5, 10, 15, 20, 30}},
		{"without 1 client: λ searched", []int{2, 5, 10, 15, 20, 30}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var x []float64
			for _, n := range tt.clients {
				x = append(x, law.Throughput(float64(n)))
			}
			u, err := FitUSL(tt.clients, x)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(u.Sigma-0.05) > 0.005 || math.Abs(u.Kappa-0.002) > 0.0002 || math.Abs(u.Lambda-500) > 5 || u.R2 < 0.999 {
				t.Errorf("FitUSL = %+v; want σ 0.05, κ 0.002, λ 500, R² ~1", u)
			}
			// N* = √((1−σ)/κ) = √(0.95/0.002) = 21.8
			if math.Abs(u.PeakClients-21.8) > 1 || math.Abs(u.PeakThroughput-law.Throughput(21.8)) > 20 {
				t.Errorf("peak %.1f clients, %.0f/s; want 21.8 and %.0f", u.PeakClients, u.PeakThroughput, law.Throughput(21.8))
			}
			if s := u.String(); !strings.Contains(s, "predicted peak") {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

func TestFitUSLNoCoherency(t *testing.T) {
	// Linear then flat: a contention-only curve has no peak.
	u, err := FitUSL([]int{1, 2, 4, 8}, []float64{100, 190, 340, 560})
	if err != nil {
		t.Fatal(err)
	}
	if u.Kappa < 0 || u.Sigma <= 0 || u.Sigma > 0.2 {
		t.Errorf("FitUSL = %+v; want σ in (0, 0.2], κ >= 0", u)
	}
	if u.Kappa == 0 && !math.IsInf(u.PeakClients, 1) {
		t.Errorf("κ 0 with a peak at %v clients", u.PeakClients)
	}
}

func TestFitUSLRefuses(t *testing.T) {
	for _, tt := range []struct {
		clients []int
		x       []float64
		want    string
	}{
		{[]int{1, 2}, []float64{1, 2}, "at least 3"},
		{[]int{1, 1, 2, 2}, []float64{1, 1, 2, 2}, "at least 3"},
		{[]int{1, 2, 3}, []float64{1, 0, 2}, "positive"},
		{[]int{1, 2, 3}, []float64{1, 2}, "as many"},
	} {
		if _, err := FitUSL(tt.clients, tt.x); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FitUSL(%v, %v) = %v; want an error saying %q", tt.clients, tt.x, err, tt.want)
		}
	}
}
