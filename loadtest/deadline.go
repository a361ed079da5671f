package loadtest

import "time"

// ShareWithin returns the fraction of latencies in buckets starting at or below d.
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
