package loadtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds, in microseconds.
const (
	histMinMicros = 1
	histMaxMicros = 60_000_000
	histDigits    = 3
)

// A Histogram is an HdrHistogram of latencies that merges exactly and
// serialises to JSON as the base64 of its V2 compressed encoding.
type Histogram struct {
	h   *hdr.Histogram
	enc []byte // the compressed encoding while h is nil (Compact)
}

// Compact holds the counts compressed until the histogram's next use.
func (h *Histogram) Compact() {
	if h.h == nil {
		return
	}
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return // keep the counts
	}
	h.enc, h.h = b, nil
}

func (h *Histogram) load() *hdr.Histogram {
	if h.h == nil {
		h.h = hdr.New(histMinMicros, histMaxMicros, histDigits)
		if h.enc != nil {
			if d, err := hdr.Decode(h.enc); err == nil {
				h.h.Merge(d)
			}
			h.enc = nil
		}
	}
	return h.h
}

// NewHistogram returns an empty Histogram covering 1 µs to 60 s.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(histMinMicros, histMaxMicros, histDigits)}
}

// Record adds one latency, clamped to 1 µs to 60 s.
func (h *Histogram) Record(d time.Duration) { h.RecordN(d, 1) }

// RecordN adds n samples of the same latency.
func (h *Histogram) RecordN(d time.Duration, n int64) {
	us := min(max(d.Microseconds(), histMinMicros), histMaxMicros)
	_ = h.load().RecordValues(us, n) // cannot fail: the value is within range
}

// Merge adds every sample of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || (o.h == nil && o.enc == nil) {
		return
	}
	h.load().Merge(o.load())
}

// Reset empties the histogram.
func (h *Histogram) Reset() { h.load().Reset() }

// Count returns the number of samples.
func (h *Histogram) Count() int64 { return h.load().TotalCount() }

// Quantile returns the latency at quantile q (0..1); 0 when empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	return time.Duration(h.load().ValueAtQuantile(q*100)) * time.Microsecond
}

// Mean returns the mean latency; 0 when the histogram is empty.
func (h *Histogram) Mean() time.Duration {
	return time.Duration(h.load().Mean() * float64(time.Microsecond))
}

// Max returns the largest latency; 0 when the histogram is empty.
func (h *Histogram) Max() time.Duration { return time.Duration(h.load().Max()) * time.Microsecond }

// Min returns the smallest latency (to the histogram's precision).
func (h *Histogram) Min() time.Duration { return time.Duration(h.load().Min()) * time.Microsecond }

// Clone returns an independent copy of h.
func (h *Histogram) Clone() *Histogram { return &Histogram{h: h.load().Clone()} }

// MarshalJSON encodes the histogram as a base64 string.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	b := h.enc
	if h.h != nil {
		var err error
		if b, err = h.h.Encode(hdr.V2CompressedEncodingCookieBase); err != nil {
			return nil, fmt.Errorf("encode histogram: %w", err)
		}
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(b))
}

// UnmarshalJSON decodes a histogram written by MarshalJSON.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("histogram base64: %w", err)
	}
	if _, err := hdr.Decode(b); err != nil {
		return fmt.Errorf("histogram decode: %w", err)
	}
	h.h, h.enc = nil, b // load re-homes the samples into the standard geometry
	return nil
}

// ms converts a duration to float milliseconds, rounded to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
