package loadtest

import (
	"errors"
	"fmt"
	"math"
)

// USL is the Universal Scalability Law X(N) = Lambda·N / (1 + Sigma·(N−1) + Kappa·N·(N−1))
// fitted to a sweep over clients (Sigma: contention, Kappa: coherency). PeakClients is
// where the fit peaks (+Inf when κ is 0); R2 is its coefficient of determination.
type USL struct {
	Lambda         float64 `json:"lambda"`
	Sigma          float64 `json:"sigma"`
	Kappa          float64 `json:"kappa"`
	PeakClients    float64 `json:"peak_clients"`
	PeakThroughput float64 `json:"peak_throughput"`
	R2             float64 `json:"r2"`
}

// Throughput is the fitted throughput at n clients.
func (u USL) Throughput(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// String is the fit in one line.
func (u USL) String() string {
	peak := "no peak (κ = 0)"
	if !math.IsInf(u.PeakClients, 1) {
		peak = fmt.Sprintf("predicted peak %.0f/s at %.1f clients", u.PeakThroughput, u.PeakClients)
	}
	return fmt.Sprintf("USL: σ = %.4f (contention), κ = %.5f (coherency), λ = %.1f/s per client; %s; R² %.3f", u.Sigma, u.Kappa, u.Lambda, peak, u.R2)
}

// FitUSL fits the USL to throughputs at 3 or more distinct client counts by least squares
// on Gunther's linearisation, λ the throughput at 1 client or else searched for; σ, κ ≥ 0.
func FitUSL(clients []int, throughput []float64) (USL, error) {
	if len(clients) != len(throughput) {
		return USL{}, errors.New("usl: as many throughputs as client counts are needed")
	}
	distinct := map[int]bool{}
	for i, n := range clients {
		if n < 1 || throughput[i] <= 0 || math.IsNaN(throughput[i]) {
			return USL{}, fmt.Errorf("usl: %d clients at %g/s: want positive counts and throughputs", n, throughput[i])
		}
		distinct[n] = true
	}
	if len(distinct) < 3 {
		return USL{}, fmt.Errorf("usl: %d distinct client counts: want at least 3", len(distinct))
	}
	var u USL
	if l, ok := lambdaAtOne(clients, throughput); ok {
		u = fitGiven(clients, throughput, l)
	} else {
		u = searchLambda(clients, throughput)
	}
	u.R2 = r2(u, clients, throughput)
	u.PeakClients = math.Inf(1)
	if u.Kappa > 0 {
		u.PeakClients = math.Sqrt((1 - u.Sigma) / u.Kappa)
		u.PeakThroughput = u.Throughput(u.PeakClients)
	}
	return u, nil
}

func lambdaAtOne(clients []int, x []float64) (float64, bool) {
	sum, n := 0.0, 0
	for i, c := range clients {
		if c == 1 {
			sum += x[i]
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// fitGiven fits σ and κ by least squares with λ given.
func fitGiven(clients []int, x []float64, lambda float64) USL {
	var s11, s12, s22, s1y, s2y float64
	for i, c := range clients {
		n := float64(c)
		a, b, y := n-1, n*(n-1), n*lambda/x[i]-1
		s11, s12, s22, s1y, s2y = s11+a*a, s12+a*b, s22+b*b, s1y+a*y, s2y+b*y
	}
	det := s11*s22 - s12*s12
	var sigma, kappa float64
	if det != 0 {
		sigma, kappa = (s1y*s22-s2y*s12)/det, (s2y*s11-s1y*s12)/det
	}
	switch {
	case kappa < 0 && s11 > 0:
		sigma, kappa = s1y/s11, 0
	case sigma < 0 && s22 > 0:
		sigma, kappa = 0, s2y/s22
	}
	return USL{Lambda: lambda, Sigma: math.Max(sigma, 0), Kappa: math.Max(kappa, 0)}
}

// searchLambda finds λ by golden-section search of the squared error.
func searchLambda(clients []int, x []float64) USL {
	best := 0.0
	for i, c := range clients {
		best = math.Max(best, x[i]/float64(c))
	}
	miss := func(l float64) float64 { return sse(fitGiven(clients, x, l), clients, x) }
	lo, hi := best*0.5, best*4
	g := (math.Sqrt(5) - 1) / 2
	for range 100 {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if miss(a) < miss(b) {
			hi = b
		} else {
			lo = a
		}
	}
	return fitGiven(clients, x, (lo+hi)/2)
}

func sse(u USL, clients []int, x []float64) float64 {
	s := 0.0
	for i, c := range clients {
		d := x[i] - u.Throughput(float64(c))
		s += d * d
	}
	return s
}

func r2(u USL, clients []int, x []float64) float64 {
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	tot := 0.0
	for _, v := range x {
		tot += (v - mean) * (v - mean)
	}
	if tot == 0 {
		return 1
	}
	return 1 - sse(u, clients, x)/tot
}
