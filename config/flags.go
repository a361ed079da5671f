package config

import (
	"flag"
	"strings"

	"bbslab/knob"
)

// The environment variables that carry the secrets, so that they stay out
// of the process's arguments (ps, /proc/PID/cmdline, /debug/pprof/cmdline).
const (
	EnvDSN        = "BBS_DSN"         // dsn: the database URL, which may hold a password
	EnvAdminToken = "BBS_ADMIN_TOKEN" // admin_token
)

// Parse builds the configuration from defaults, then the file named by
// -config (if any), then the environment (BBS_DSN and BBS_ADMIN_TOKEN,
// read with getenv; empty means unset), then the flags given in args, in
// that order of precedence, and validates it. Each knob has a flag named
// like its key. A nil getenv reads no environment. Errors from Parse are
// usage errors (exit code 2).
func Parse(fs *flag.FlagSet, args []string, getenv func(string) string) (Config, error) {
	c := Default()
	var path string
	fs.StringVar(&path, "config", "", "TOML `file` with the knobs (see config/bbs.example.toml)")
	bind(fs, &c)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if path != "" {
		fromFile := Default()
		if err := fromFile.Load(path); err != nil {
			return Config{}, err
		}
		// Re-apply the flags that were given over the file's values.
		over := flag.NewFlagSet("", flag.ContinueOnError)
		bind(over, &fromFile)
		var err error
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "config" && err == nil {
				err = over.Set(f.Name, f.Value.String())
			}
		})
		if err != nil {
			return Config{}, err
		}
		c = fromFile
	}
	if getenv != nil {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if v := getenv(EnvDSN); v != "" && !given["dsn"] {
			c.DSN = v
		}
		if v := getenv(EnvAdminToken); v != "" && !given["admin-token"] {
			c.AdminToken = v
		}
	}
	if fs.NArg() > 0 {
		return Config{}, &UsageError{"unexpected argument " + quote(fs.Arg(0))}
	}
	if err := c.Validate(); err != nil {
		return Config{}, &UsageError{"invalid configuration:\n  " + strings.ReplaceAll(err.Error(), "\n", "\n  ")}
	}
	return c, nil
}

// A UsageError is a bad flag, file or value.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func quote(s string) string { return `"` + s + `"` }

// bind registers one flag per knob, bound to c's fields.
func bind(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Addr, "addr", c.Addr, "public `host:port` of the board")
	fs.StringVar(&c.AdminAddr, "admin-addr", c.AdminAddr, "admin and debug `host:port` (loopback unless -admin-token is set; empty: off)")
	fs.StringVar(&c.AdminToken, "admin-token", c.AdminToken, "bearer `token` required on every admin path when set (prefer BBS_ADMIN_TOKEN: arguments are visible to every local user)")
	fs.StringVar(&c.DB, "db", c.DB, `database: "sqlite" or "postgres"`)
	fs.StringVar(&c.DSN, "dsn", c.DSN, "SQLite `file` or PostgreSQL URL (or set BBS_DSN, which keeps a password out of the process's arguments)")
	fs.StringVar(&c.PoolMode, "pool-mode", c.PoolMode, `"fixed" (pooled) or "none" (a new physical connection per acquire)`)
	fs.StringVar(&c.PoolValidate, "pool-validate", c.PoolValidate, `validation on borrow, a round trip paying -db-latency on every acquire: "off", "ping" or "query" (SELECT 1)`)
	fs.StringVar(&c.PGExecMode, "pg-exec-mode", c.PGExecMode, `how pgx sends statements to PostgreSQL: "cache_statement" (prepared, cached per connection), "cache_describe", "describe_exec", "exec" (unnamed, one round trip: for PgBouncer in transaction mode) or "simple_protocol"`)
	bindLatency(fs, &c.Latency)
	bindKnobs(fs, knob.Board, c) // the numeric knobs
	bindBehaviour(fs, &c.Behaviour)
	fs.StringVar(&c.AccessLog, "access-log", c.AccessLog, "JSON-lines access log that alp reads: a `file`, \"-\" for stdout, empty: off")
	fs.StringVar(&c.SQLTrace, "sql-trace", c.SQLTrace, "one JSON line per SQL statement: a `file`, \"-\" for stderr, empty: off")
}
