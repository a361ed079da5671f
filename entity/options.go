package entity

import (
	"fmt"
	"regexp"

	"bbslab/knob"
)

// Pool modes accepted in Options.PoolMode.
const (
	// PoolFixed keeps a pool of PoolMin..Pool connections open.
	PoolFixed = "fixed"
	// PoolNone opens a physical connection on every Acquire and closes it
	// on Release, with at most Pool open at once.
	PoolNone = "none"
)

// Validation on borrow, accepted in Options.PoolValidate: what a pool does
// to a connection before handing it out (WebLogic's
// TestConnectionsOnReserve, HikariCP's connectionTestQuery, DBCP's
// testOnBorrow, pgxpool's ping of an idle connection).
const (
	// ValidateOff hands a pooled connection out as it is.
	ValidateOff = "off"
	// ValidatePing checks the connection with the driver's ping first.
	ValidatePing = "ping"
	// ValidateQuery runs SELECT 1 on the connection first.
	ValidateQuery = "query"
)

// Query exec modes of PostgreSQL's driver, accepted in Options.ExecMode
// (pgx's names; the others are "cache_describe", "describe_exec" and
// "simple_protocol").
const (
	// ExecCacheStatement prepares each statement once per connection
	// under a name and reuses it: pgx's default.
	ExecCacheStatement = "cache_statement"
	// ExecExec sends each statement unnamed with its parameters in one
	// round trip: no state left on the server connection, as PgBouncer's
	// transaction mode needs.
	ExecExec = "exec"
)

var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// Normalize checks o and fills in its defaults: PoolMin 0 means Pool, an
// empty PoolMode means fixed and an empty PoolValidate means off. Every driver's Open calls it first.
func (o Options) Normalize() (Options, error) {
	switch o.Driver {
	case "sqlite", "postgres":
	default:
		return o, fmt.Errorf("open store: driver %q: want \"sqlite\" or \"postgres\"", o.Driver)
	}
	if o.DSN == "" {
		return o, fmt.Errorf("open %s: empty DSN", o.Driver)
	}
	if err := knob.Board.Validate(map[string]int64{"pool": int64(o.Pool), "pool_min": int64(o.PoolMin)}); err != nil {
		return o, fmt.Errorf("open %s: pool size %d, pool min %d: %w", o.Driver, o.Pool, o.PoolMin, err)
	}
	if o.PoolMin == 0 {
		o.PoolMin = o.Pool
	}
	switch o.PoolMode {
	case "":
		o.PoolMode = PoolFixed
	case PoolFixed, PoolNone:
	default:
		return o, fmt.Errorf("open %s: pool mode %q: want %q or %q", o.Driver, o.PoolMode, PoolFixed, PoolNone)
	}
	switch o.PoolValidate {
	case "":
		o.PoolValidate = ValidateOff
	case ValidateOff, ValidatePing, ValidateQuery:
	default:
		return o, fmt.Errorf("open %s: pool validate %q: want %q, %q or %q", o.Driver, o.PoolValidate, ValidateOff, ValidatePing, ValidateQuery)
	}
	switch o.ExecMode {
	case "":
	case ExecCacheStatement, "cache_describe", "describe_exec", ExecExec, "simple_protocol":
		if o.Driver != "postgres" && o.ExecMode != ExecCacheStatement {
			return o, fmt.Errorf("open %s: exec mode %q: only PostgreSQL has query exec modes", o.Driver, o.ExecMode)
		}
	default:
		return o, fmt.Errorf("open %s: exec mode %q: want \"cache_statement\", \"cache_describe\", \"describe_exec\", \"exec\" or \"simple_protocol\"", o.Driver, o.ExecMode)
	}
	if o.SeedPosts < 0 {
		return o, fmt.Errorf("open %s: seed posts %d: want 0 or more", o.Driver, o.SeedPosts)
	}
	if o.Schema != "" {
		if o.Driver != "postgres" {
			return o, fmt.Errorf("open %s: schema %q: only PostgreSQL has schemas", o.Driver, o.Schema)
		}
		if !schemaName.MatchString(o.Schema) {
			return o, fmt.Errorf("open postgres: schema %q: want letters, digits and underscores, not starting with a digit, at most 63", o.Schema)
		}
	}
	return o, nil
}

// ModeName is the PoolStats.Mode of normalized options: "fixed", "grow" or
// "none".
func (o Options) ModeName() string {
	switch {
	case o.PoolMode == PoolNone:
		return "none"
	case o.PoolMin < o.Pool:
		return "grow"
	default:
		return "fixed"
	}
}
