package entity

import "time"

// Distance puts the database at a distance: each statement waits off the
// CPU while its connection is held. The wait stands for the off-CPU time of
// the article's requests: its database was embedded (Cloudscape, through the
// embedded driver in WebLogic's own JVM), yet its statements kept the
// execute threads off the CPU about 7 x as long as on it (graph 1: 5
// threads busy at ~60 % CPU: disk and lock waits, the JVM), where an
// in-process SQLite on a fast disk keeps them on it.
//
// Both stores apply it the same way (entity/internal/driverkit's Network
// says how, and why in the store rather than under the driver).
//
// A statement waits before it runs, holding its connection but none of the
// database's own locks; the wait selects on the context, so a request past
// its deadline stops waiting.
type Distance struct {
	// Latency is added to every statement run on a Conn.
	Latency time.Duration
	// Jitter spreads each wait uniformly over Latency ± Jitter, never below
	// 0 (toxiproxy's latency toxic).
	Jitter time.Duration
	// Connect is added to opening each physical connection.
	Connect time.Duration
	// Seed seeds the jitter's draws; 0 seeds them from the clock.
	Seed uint64
	// Adjustable keeps a Network even when the distance adds nothing, so
	// that its statements' wait can be set while the store runs
	// (Network.SetLatency: the admin listener's /admin/distance, which a
	// calibration turns until the board lands on its operating point).
	Adjustable bool
}

// A Network is a store's database at a distance as the board sees it: the
// wait of each statement, which the admin listener reads and sets while
// the store runs.
type Network interface {
	// Latency returns the statements' wait in force and its jitter.
	Latency() (latency, jitter time.Duration)
	// SetLatency sets the wait of the statements that start from now on:
	// latency ± jitter, each at least 0 (negative values count as 0).
	SetLatency(latency, jitter time.Duration)
}

// A Distant store puts its database at a distance through a Network, which
// it returns (nil when it adds nothing and is not Distance.Adjustable).
type Distant interface {
	Network() Network
}
