package driverkit

import "time"

// PostTime returns the time stamp of a post written now: UTC, truncated to
// microseconds so that it round-trips unchanged through both databases.
func PostTime() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}
