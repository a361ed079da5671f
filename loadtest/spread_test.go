package loadtest

import "testing"

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2}, // the lower middle: always a measured value
		{[]float64{2, 2, 9, 9}, 2},
	} {
		in := append([]float64(nil), tt.xs...)
		if got := Median(tt.xs); got != tt.want {
			t.Errorf("Median(%v) = %v; want %v", in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.xs[i] {
				t.Fatalf("Median changed its input: %v; was %v", tt.xs, in)
			}
		}
	}
}

func TestSpreadOf(t *testing.T) {
	s := SpreadOf([]float64{30, 10, 20, 40})
	if want := (Spread{Median: 20, Min: 10, Max: 40, N: 4}); s != want {
		t.Errorf("SpreadOf = %+v; want %+v", s, want)
	}
	if got, want := s.Scaled(0.5), (Spread{Median: 10, Min: 5, Max: 20, N: 4}); got != want {
		t.Errorf("Scaled(0.5) = %+v; want %+v", got, want)
	}
}
