package loadtest

// An Observer is told of each second's row, then the end, on the run's clock: return quickly.
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
