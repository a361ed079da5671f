package config

import (
	"flag"
	"fmt"
	"time"
)

// Distance puts the database at a distance from the board: each statement
// waits off the CPU while it holds its connection. It stands for the
// off-CPU time of the article's requests: its database (Cloudscape, through
// the embedded driver in WebLogic's own JVM) kept the execute threads off
// the CPU about 7 x as long as on it (graph 1: 5 threads busy at ~60 %
// CPU), where the board's in-process SQLite keeps them on it. It is
// embedded in Config, so its keys are top-level keys of the TOML file.
// Zero everywhere (the default) adds nothing.
type Distance struct {
	// DBLatency is added to every statement's round trip while the
	// connection is held.
	DBLatency Duration `toml:"db_latency"`
	// DBLatencyJitter spreads each statement's wait uniformly over
	// DBLatency ± DBLatencyJitter (never below 0), as toxiproxy's latency
	// toxic does.
	DBLatencyJitter Duration `toml:"db_latency_jitter"`
	// ConnectLatency is added to opening each physical connection: the TCP
	// handshake, authentication and backend start-up of a remote database.
	ConnectLatency Duration `toml:"connect_latency"`
}

// maxDistance bounds each distance knob.
const maxDistance = 10 * time.Second

// validate returns one error per bad distance knob.
func (d Distance) validate() []error {
	var errs []error
	for _, k := range []struct {
		key string
		v   Duration
	}{
		{"db_latency", d.DBLatency},
		{"db_latency_jitter", d.DBLatencyJitter},
		{"connect_latency", d.ConnectLatency},
	} {
		if k.v < 0 || time.Duration(k.v) > maxDistance {
			errs = append(errs, fmt.Errorf("%s = %v: must be 0s (none) up to %v", k.key, k.v, maxDistance))
		}
	}
	return errs
}

// bindDistance registers the distance knobs' flags.
func bindDistance(fs *flag.FlagSet, d *Distance) {
	fs.Var(&d.DBLatency, "db-latency", "time added to every SQL statement's round trip while its connection is held: the database at a distance (0: none)")
	fs.Var(&d.DBLatencyJitter, "db-latency-jitter", "spread of -db-latency: each wait is drawn uniformly from latency ± jitter")
	fs.Var(&d.ConnectLatency, "connect-latency", "time added to opening each physical database connection (0: none)")
}
