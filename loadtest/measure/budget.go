package measure

import "time"

// A Budget is the extra measuring time re-measures may take, its second
// half kept for settings with no undisturbed measurement.
type Budget struct {
	Max        time.Duration
	Used       time.Duration
	Remeasured int
}

// Fits reports whether d more stays within the budget.
func (b *Budget) Fits(d time.Duration) bool { return b.Used+d <= b.Max }

// Spend adds d to the time used.
func (b *Budget) Spend(d time.Duration) { b.Used += d }

// Reserved reports whether the time used has reached half the budget.
func (b *Budget) Reserved() bool { return b.Used >= b.Max/2 }

// Again says why a disturbed measurement may not be taken again, "" when it may.
func (b *Budget) Again(r *Rules, attempt int, step time.Duration, has bool) string {
	switch {
	case attempt >= r.MaxAttempts:
		return "max_attempts"
	case !b.Fits(step):
		return "max_extra"
	case has && b.Reserved():
		return "reserved"
	}
	return ""
}
