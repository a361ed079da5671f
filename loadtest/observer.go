package loadtest

// An Observer is told of a run as it goes: each second's row, warm-up and
// the final partial second included, then the end. Run calls observers
// from its own goroutine: an observer must return quickly, or the run's
// clock waits with it.
type Observer interface {
	Second(row SecondRow)
	End()
}

// ObserverFunc adapts a function to an Observer of each second's row.
type ObserverFunc func(SecondRow)

// Second calls f(row).
func (f ObserverFunc) Second(row SecondRow) { f(row) }

// End does nothing.
func (ObserverFunc) End() {}
