package measure

import "time"

// A Budget is the extra measuring time re-measures may take beyond the
// planned measurements (Rules.MaxExtra): every planner re-measures within
// one. Its second half is kept for settings with no undisturbed
// measurement at all: a setting with none has no figures, where one that
// lost one repeat of three still has its figures.
type Budget struct {
	Max time.Duration
	// Used is the extra time spent so far, Remeasured the re-measures.
	Used       time.Duration
	Remeasured int
}

// Fits reports whether d more stays within the budget.
func (b *Budget) Fits(d time.Duration) bool { return b.Used+d <= b.Max }

// Spend adds d to the time used.
func (b *Budget) Spend(d time.Duration) { b.Used += d }

// Reserved reports whether the time used has reached half the budget: the
// rest is for settings with no undisturbed measurement.
func (b *Budget) Reserved() bool { return b.Used >= b.Max/2 }

// Again says whether a disturbed measurement (the attempt-th of its
// repeat) may be taken again under r, and why not: the attempts are
// spent, no room is left for another measurement of length step, or the
// setting already has used repeats (has) and the reserved half is
// reached. Why is "" when it may.
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
