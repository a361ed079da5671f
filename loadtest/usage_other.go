//go:build !unix

package loadtest

// selfUsage cannot read the process's CPU time and peak resident set
// without getrusage: the cost reads zero and the run's warnings say the
// figures are unavailable.
func selfUsage() procUsage { return procUsage{} }
