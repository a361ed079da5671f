package loadtest

// An Observer is told of a run as it goes: each second's row, then the
// end. Run calls its observers (Settings.Observers) in order from the
// goroutine that called Run, the one that also keeps the per-second series
// and checks the stop conditions: an observer must return quickly (hand
// the row on, never wait), or the run's clock waits with it.
type Observer interface {
	// Second is called with each second's row: warm-up included, and
	// last the partial row with the drain once the requests in flight
	// are done. The row's Histogram is compacted; read its figures.
	Second(row SecondRow)
	// End is called once, after the last row, when the run has stopped
	// (also when it was interrupted).
	End()
}

// ObserverFunc adapts a function to an Observer that is called with each
// second's row and does nothing at the end.
type ObserverFunc func(SecondRow)

// Second calls f(row).
func (f ObserverFunc) Second(row SecondRow) { f(row) }

// End does nothing.
func (ObserverFunc) End() {}
