package driverkit

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"bbslab/entity"
)

// A Network applies an entity.Distance for one store and counts its waits.
// A nil *Network adds nothing and counts nothing, so a store without one
// pays a nil check. Both drivers use it, so that the wait means the same on
// both. It is the entity.Network a store returns as entity.Distant.
//
// The wait is added here, in the store, rather than by a delaying net.Conn
// under the driver (toxiproxy's latency toxic) for three reasons. SQLite has
// no socket, and the lab needs the same semantics on both databases. The
// wait is exactly once per statement, where a delayed socket would add it
// per packet read, so pgx's extended protocol (parse, bind, execute in one
// flight, or more after a cache miss) would make it vary with the driver's
// internals. And it is a frame of its own (networkWait, connectWait), which
// goroutine dumps and fgprof name, with counters the stats read.
//
// The wait wakes like a reply arriving on a socket (sleep_linux.go): Go's
// own timers wake an idle processor only at millisecond steps, which makes
// a sub-millisecond wait take a whole step or more and leaves a one-core
// server idle with its requests overdue.
type Network struct {
	entity.Distance
	mu  sync.Mutex
	rng *rand.Rand

	latency atomic.Int64 // Latency, settable while the store runs
	jitter  atomic.Int64 // Jitter, likewise

	waitNs    atomic.Int64 // statements' network waits, completed
	waits     atomic.Int64
	connectNs atomic.Int64 // connection opens' waits, completed
}

// NewNetwork returns the Network d describes, or nil when it adds nothing.
func NewNetwork(d entity.Distance) *Network {
	if d.Latency <= 0 && d.Jitter <= 0 && d.Connect <= 0 && !d.Adjustable {
		return nil
	}
	seed := d.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	n := &Network{Distance: d, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	n.SetLatency(d.Latency, d.Jitter)
	return n
}

// SetLatency sets the wait of the statements that start from now on:
// latency ± jitter, each at least 0 (negative values count as 0).
func (d *Network) SetLatency(latency, jitter time.Duration) {
	d.latency.Store(int64(max(latency, 0)))
	d.jitter.Store(int64(max(jitter, 0)))
}

// Latency returns the statements' wait in force and its jitter; a nil
// Network has none.
func (d *Network) Latency() (latency, jitter time.Duration) {
	if d == nil {
		return 0, 0
	}
	return time.Duration(d.latency.Load()), time.Duration(d.jitter.Load())
}

// draw returns one statement's wait: Latency ± Jitter, uniform, at least 0.
func (d *Network) draw() time.Duration {
	w, j := d.Latency()
	if j > 0 {
		d.mu.Lock()
		off := d.rng.Int64N(2*int64(j)+1) - int64(j)
		d.mu.Unlock()
		w += time.Duration(off)
	}
	return max(w, 0)
}

// Statement waits one statement's round trip and returns how long it
// waited. A nil Network returns at once.
func (d *Network) Statement(ctx context.Context) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	w := d.draw()
	if w <= 0 {
		return 0, nil
	}
	waited, err := networkWait(ctx, w)
	d.waitNs.Add(int64(waited))
	d.waits.Add(1)
	return waited, err
}

// Validation waits the round trip of one validation on borrow
// (entity.Options.PoolValidate) and returns how long it waited. It counts among
// the statements' network waits, but waits in a frame of its own
// (validateWait), so that a profile puts it under the acquire it belongs
// to rather than under a query's time on the network. A nil Network
// returns at once.
func (d *Network) Validation(ctx context.Context) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	w := d.draw()
	if w <= 0 {
		return 0, nil
	}
	waited, err := validateWait(ctx, w)
	d.waitNs.Add(int64(waited))
	d.waits.Add(1)
	return waited, err
}

// Dial waits the opening of one physical connection (Distance.Connect).
func (d *Network) Dial(ctx context.Context) error {
	if d == nil || d.Connect <= 0 {
		return nil
	}
	waited, err := connectWait(ctx, d.Connect)
	d.connectNs.Add(int64(waited))
	return err
}

// networkWait is a statement's wait off the CPU at a distance (what a
// network and a remote server, or an embedded database's disk and locks,
// would take). In a goroutine dump and in fgprof, a request waiting on the
// database at a distance shows this frame; it is kept out of line so that
// the frame is always its own.
//
//go:noinline
func networkWait(ctx context.Context, d time.Duration) (time.Duration, error) {
	return sleep(ctx, d)
}

// validateWait is a validation's time on the network and in the remote
// server: the round trip a pool pays before it hands out a connection.
// A frame of its own, like networkWait.
//
//go:noinline
func validateWait(ctx context.Context, d time.Duration) (time.Duration, error) {
	return sleep(ctx, d)
}

// connectWait is the time to open one physical connection to the database
// at a distance (handshake, authentication, backend start-up); a frame of
// its own, like networkWait.
//
//go:noinline
func connectWait(ctx context.Context, d time.Duration) (time.Duration, error) {
	return sleep(ctx, d)
}

// Fill copies the Network's counters into s.
func (d *Network) Fill(s *entity.PoolStats) {
	if d == nil {
		return
	}
	s.Latency, s.Jitter = d.Latency()
	s.NetworkWait = time.Duration(d.waitNs.Load())
	s.NetworkWaits = d.waits.Load()
	s.ConnectWait = time.Duration(d.connectNs.Load())
}
