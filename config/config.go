// Package config holds the board's knobs:
//
//	cfg, err := config.Parse(flag.NewFlagSet("bbs", flag.ContinueOnError), os.Args[1:], os.Getenv)
//
// Parse starts from Default, reads the -config TOML file strictly (an
// unknown key is an error naming it and its line), then the environment,
// then the flags, and validates the result with messages that name the key,
// the bad value and what is allowed. The knobs are a plain struct with TOML
// tags; config/bbs.example.toml shows every one.
package config

import (
	"bbslab/internal/cli"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"bbslab/knob"
)

// Config is every knob of the board server. The TOML key of each field is the
// name of the command-line flag that overrides it, with "_" spelled "-".
type Config struct {
	Addr       string `toml:"addr"`        // public listener
	AdminAddr  string `toml:"admin_addr"`  // admin and debug listener
	AdminToken string `toml:"admin_token"` // required on admin paths when set

	DB        string `toml:"db"`         // "sqlite" or "postgres"
	DSN       string `toml:"dsn"`        // SQLite file or PostgreSQL URL
	PageSize  int    `toml:"page_size"`  // posts a view shows by default
	SeedPosts int    `toml:"seed_posts"` // posts seeded into an empty database

	DBWait Duration `toml:"db_wait"` // how long start-up retries an unreachable database; 0 = fail at once

	Workers      int      `toml:"workers"`       // requests running a command at once; 0 = unlimited
	Queue        int      `toml:"queue"`         // requests that may wait for a worker
	QueueTimeout Duration `toml:"queue_timeout"` // how long one may wait

	Pool     int    `toml:"pool"`      // database connections (maximum)
	PoolMin  int    `toml:"pool_min"`  // connections opened at start; 0 = pool (min = max)
	PoolMode string `toml:"pool_mode"` // "fixed" or "none"
	// PoolValidate is what every acquire does to a pooled connection
	// before handing it out: "off", "ping" or "query" (SELECT 1), a round
	// trip that waits db_latency like a statement.
	PoolValidate string `toml:"pool_validate"`
	// PGExecMode is how pgx sends each statement to PostgreSQL (pgx's
	// QueryExecMode): "cache_statement" (its default: prepared statements
	// named and cached per connection), "cache_describe", "describe_exec",
	// "exec" (the extended protocol, unnamed, one round trip: what PgBouncer
	// in transaction mode needs) or "simple_protocol". PostgreSQL only.
	PGExecMode string `toml:"pg_exec_mode"`

	ReadHeaderTimeout Duration `toml:"read_header_timeout"`
	ReadTimeout       Duration `toml:"read_timeout"`
	WriteTimeout      Duration `toml:"write_timeout"`
	IdleTimeout       Duration `toml:"idle_timeout"`
	RequestTimeout    Duration `toml:"request_timeout"` // deadline of one command, SQL included
	ShutdownTimeout   Duration `toml:"shutdown_timeout"`

	Latency                 // tcp_nodelay, write_chunks, gogc, gomemlimit, warmup (latency.go)
	Distance                // db_latency, db_latency_jitter, connect_latency (distance.go)
	Behaviour               // stall_every, stall_for, delay, error_status, error_share, size, truth_log, truth_dir, truth_file (behaviour.go)
	AccessLog string        `toml:"access_log"` // JSON-lines access log (alp): a file, "-" for stdout, "" off
	SQLTrace  string        `toml:"sql_trace"`  // JSON line per SQL statement: a file, "-" for stderr, "" off
	Profile   ProfileConfig `toml:"profile"`    // extra runtime profiles
}

// ProfileConfig switches on the runtime profiles that cost something while
// on: the block and mutex profiles served at /debug/pprof/block and /mutex.
type ProfileConfig struct {
	BlockRate     int `toml:"block_rate"`     // runtime.SetBlockProfileRate: 0 off, 1 every blocking event, N one per N ns blocked
	MutexFraction int `toml:"mutex_fraction"` // runtime.SetMutexProfileFraction: 0 off, N one in N contention events
}

// Default returns the configuration used when no file or flag says otherwise.
func Default() Config {
	c := Config{
		Addr:         "127.0.0.1:8080",
		AdminAddr:    "127.0.0.1:6060",
		DB:           "sqlite",
		DSN:          "bbs.db",
		PoolMode:     "fixed",
		PoolValidate: "off",
		PGExecMode:   "cache_statement",
		Latency:      defaultLatency(),
	}
	setDefaults(knob.Board, &c) // the numeric knobs
	return c
}

// Load decodes the TOML file at path over c. A key the Config does not have is
// an error that names the key and its line (cli.DecodeTOML).
func (c *Config) Load(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return cli.DecodeTOML("config", path, data, c)
}

// Validate checks every knob and returns all problems, each naming the key,
// the bad value and what is allowed: the numeric knobs as knob.Board
// declares them.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, v any, allowed string) {
		errs = append(errs, fmt.Errorf("%s = %v: %s", key, v, allowed))
	}
	addr := func(key, v string, optional bool) {
		if v == "" && optional {
			return
		}
		if _, _, err := net.SplitHostPort(v); err != nil {
			bad(key, fmt.Sprintf("%q", v), "must be host:port, such as 127.0.0.1:8080")
		}
	}
	addr("addr", c.Addr, false)
	addr("admin_addr", c.AdminAddr, true)
	if c.AdminAddr != "" && c.AdminToken == "" && !loopback(c.AdminAddr) {
		bad("admin_addr", fmt.Sprintf("%q", c.AdminAddr), "must be a loopback address unless admin_token is set")
	}
	switch c.DB {
	case "sqlite", "postgres":
	default:
		bad("db", fmt.Sprintf("%q", c.DB), `must be "sqlite" or "postgres"`)
	}
	if strings.TrimSpace(c.DSN) == "" {
		bad("dsn", `""`, "must name the SQLite file or the PostgreSQL URL")
	}
	if c.DB == "postgres" && !strings.HasPrefix(c.DSN, "postgres://") && !strings.HasPrefix(c.DSN, "postgresql://") && !strings.Contains(c.DSN, "=") {
		bad("dsn", fmt.Sprintf("%q", c.DSN), "must be a PostgreSQL URL (postgres://user@host:port/db) or key=value string when db = \"postgres\"")
	}
	if err := validateKnobs(knob.Board, &c); err != nil {
		errs = append(errs, err)
	}
	switch c.PoolMode {
	case "fixed", "none":
	default:
		bad("pool_mode", fmt.Sprintf("%q", c.PoolMode), `must be "fixed" or "none"`)
	}
	switch c.PoolValidate {
	case "off", "ping", "query":
	default:
		bad("pool_validate", fmt.Sprintf("%q", c.PoolValidate), `must be "off" (hand a connection out as it is), "ping" (the driver's ping first) or "query" (SELECT 1 first)`)
	}
	switch c.PGExecMode {
	case "cache_statement":
	case "cache_describe", "describe_exec", "exec", "simple_protocol":
		if c.DB != "postgres" {
			bad("pg_exec_mode", fmt.Sprintf("%q", c.PGExecMode), `is PostgreSQL's (pgx's query exec mode): with db = "sqlite" leave it "cache_statement"`)
		}
	default:
		bad("pg_exec_mode", fmt.Sprintf("%q", c.PGExecMode), `must be "cache_statement", "cache_describe", "describe_exec", "exec" or "simple_protocol" (pgx's query exec modes)`)
	}
	errs = append(errs, c.Latency.validate()...)
	errs = append(errs, c.Behaviour.validate()...)
	return errors.Join(errs...)
}

// loopback reports whether a host:port address binds only to loopback.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Duration is a time.Duration written as a string such as "5s" or "250ms"
// in TOML and on the command line (cli.Duration, shared with loadtest).
type Duration = cli.Duration
