package loadtest

// An Observer is told of each second's row of a run, then its end. Run
// calls it from its clock's goroutine: it must return quickly.
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
