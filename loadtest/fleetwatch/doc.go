// Package fleetwatch reads a fleet of boards as one: several replicas
// behind HAProxy, on one PostgreSQL, with or without PgBouncer between.
//
//	f, err := fleetwatch.New(fleetwatch.Options{
//		Target:   contract.Board, // what one replica serves (any watch.Target)
//		Replicas: []fleetwatch.Replica{{Name: "r1", StatsURL: "http://127.0.0.1:6061/admin/stats"}, ...},
//		HAProxyURL:   "http://127.0.0.1:8404/metrics",                          // optional
//		PgBouncerDSN: "postgres://root@127.0.0.1:6432/pgbouncer?sslmode=disable", // optional
//		PostgresDSN:  "postgres://root@127.0.0.1:5432/test?sslmode=disable",      // optional
//		Database: "test", Role: "bbslab_fleet",
//	})
//	defer f.Close()
//	url, err := f.Serve()                                     // the fleet's stats document, on loopback
//	w, err := f.Target().Watcher(watch.Options{StatsURL: url}) // as for one board
//
// Each time its document is asked for, a Fleet reads every replica's
// stats JSON, HAProxy's Prometheus exporter (ReadHAProxy), PgBouncer's
// admin console (SHOW POOLS, SHOW STATS: PgBouncer) and PostgreSQL's
// pg_stat_activity, limits and sessions (Postgres), all at once, and
// serves them as one JSON document: each replica's stats, their sum (as
// one board's stats: Combine), and the three readings. Target turns the
// one-board target into the fleet's: the board's stats read from the sum
// (so the charts, the sweep table and the reports read the fleet as one
// board), the stats the target names in Each drawn for each replica, each
// replica's requests per second beside their sum and the proxy's count,
// and the proxy's, the pooler's and the database's panels. The watcher,
// the live dashboard and the experiment runner need nothing more: the
// fleet is one more stats URL.
//
// ForFleet builds the options from a fleet package loadtest/fleet
// started (its replicas, HAProxy, PgBouncer, role and database), with
// SharedCores set: the sum then gives the interference and steal of the
// cores the replicas share. StatOf maps one board's stat into the
// document (the sum, or a section such as haproxy), OwnStats lists the
// fleet's stats beyond one board's: the experiment runner watches a
// fleet run with both.
//
// The readers stand alone too: ParseHAProxy reads an exposition with
// prometheus/common/expfmt (already the watcher's parser); PgBouncer speaks
// the simple query protocol over pgx, the only one the console knows;
// Postgres counts backends by state for a database and role. docs/reading.md
// ("Reading a fleet") says what each figure means and how to read them
// together.
package fleetwatch
