package knob

import "time"

const (
	sec  = int64(time.Second)
	hour = int64(time.Hour)
)

// Board is every numeric knob of the board server. A knob added here gets
// its default, bounds and flag in config (which needs its field with the
// same TOML key); a Live one is taken by /admin/knobs, which bbs applies.
var Board = Table{
	{Key: "page_size", Min: 1, Max: 500, Default: 30, Unit: "posts",
		Help: "posts a view shows when n is not given"},
	{Key: "seed_posts", Max: 10_000_000, Default: 1000, Unit: "posts",
		Help: "posts seeded into an empty database"},
	{Key: "db_wait", Dur: true, Max: hour, Note: "fail at once",
		Help: "how long start-up retries a database that cannot be reached"},

	{Key: "workers", Max: 100_000, Default: 10, Unit: "workers", Note: "unlimited", Live: true, LiveMin: 1, Metric: "bbs_workers_limit",
		Help: "requests that may run a command at once"},
	{Key: "queue", Max: 1_000_000, Default: 100, Unit: "requests", Live: true, Metric: "bbs_worker_queue_limit",
		Help: "requests that may wait for a worker"},
	{Key: "queue_timeout", Dur: true, Open: true, Max: hour, Default: 5 * sec, Live: true, Metric: "bbs_worker_queue_timeout_seconds",
		Help: "how long a request may wait for a worker"},
	{Key: "pool", Min: 1, Max: 10_000, Default: 10, Unit: "connections", Live: true, Metric: "bbs_db_pool_size",
		Help: "database connections at most, opened at start and kept (min = max) unless pool_min is lower"},
	{Key: "pool_min", Max: 10_000, Unit: "connections", Note: "same as pool", Live: true, LiveMin: 1, Metric: "bbs_db_pool_min",
		Help: "database connections opened at start and kept; below pool the pool grows on demand"},

	{Key: "read_header_timeout", Dur: true, Open: true, Max: hour, Default: 5 * sec, Help: "time to read request headers"},
	{Key: "read_timeout", Dur: true, Open: true, Max: hour, Default: 10 * sec, Help: "time to read a whole request"},
	{Key: "write_timeout", Dur: true, Open: true, Max: hour, Default: 30 * sec, Help: "time to write a response"},
	{Key: "idle_timeout", Dur: true, Open: true, Max: 24 * hour, Default: 120 * sec, Help: "keep-alive idle time"},
	{Key: "request_timeout", Dur: true, Open: true, Max: hour, Default: 20 * sec, Help: "deadline of one command, SQL included"},
	{Key: "shutdown_timeout", Dur: true, Open: true, Max: hour, Default: 15 * sec, Help: "time in-flight requests get to finish at shutdown"},

	{Key: "write_chunks", Max: 1000, Unit: "pieces", Note: "one write",
		Help: "write each HTML page in N separately flushed pieces"},
	{Key: "gogc", Min: -1, Max: 1_000_000, Unit: "percent", Note: "off",
		Help: "GC percent set at start (0: the runtime's default or $GOGC)"},
	{Key: "db_latency", Dur: true, Max: 10 * sec, Note: "none",
		Help: "time added to every SQL statement's round trip while its connection is held (the database at a distance)"},
	{Key: "db_latency_jitter", Dur: true, Max: 10 * sec, Note: "none",
		Help: "spread of -db-latency: each wait is drawn uniformly from latency ± jitter"},
	{Key: "connect_latency", Dur: true, Max: 10 * sec, Note: "none",
		Help: "time added to opening each physical database connection"},

	{Key: "profile.block_rate", Max: 1_000_000_000, Unit: "ns", Note: "off",
		Help: "[profile] block_rate: block profile rate, one sample per N ns blocked (1: every event)"},
	{Key: "profile.mutex_fraction", Max: 1_000_000, Unit: "contentions", Note: "off",
		Help: "[profile] mutex_fraction: sample 1 in N mutex contentions"},
}
