package loadtest

import (
	"testing"
	"time"
)

func TestShareWithin(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	tests := []struct {
		d    time.Duration
		want float64
	}{
		{0, 0},
		{time.Millisecond, 0.001},
		{100 * time.Millisecond, 0.1},
		{500 * time.Millisecond, 0.5},
		{time.Second, 1},
		{time.Minute, 1},
	}
	for _, tt := range tests {
		if got := h.ShareWithin(tt.d); got < tt.want-0.002 || got > tt.want+0.002 {
			t.Errorf("ShareWithin(%v) = %.4f; want %.3f", tt.d, got, tt.want)
		}
	}
	// A histogram read back from JSON is decoded on first use.
	b, err := h.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Histogram
	if err := back.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if got := back.ShareWithin(500 * time.Millisecond); got < 0.498 || got > 0.502 {
		t.Errorf("ShareWithin(500ms) of a histogram read back = %.4f; want 0.500", got)
	}
	if got := NewHistogram().ShareWithin(time.Second); got != 0 {
		t.Errorf("empty ShareWithin = %v; want 0", got)
	}
}
