package loadtest

import "time"

// ShareWithin returns the fraction (0..1) of recorded latencies at or below
// d, to the histogram's precision (3 significant digits: a bucket that
// starts at or below d counts as within it). "99.9 % within 5 ms" is
// ShareWithin(5*time.Millisecond) >= 0.999.
func (h *Histogram) ShareWithin(d time.Duration) float64 {
	hh := h.load()
	total := hh.TotalCount()
	if total == 0 {
		return 0
	}
	limit := d.Microseconds()
	var n int64
	for _, bar := range hh.Distribution() {
		if bar.From > limit {
			break
		}
		n += bar.Count
	}
	return float64(n) / float64(total)
}
