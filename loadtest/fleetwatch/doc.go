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
// At each request a Fleet reads every source at once and serves one JSON
// document (Read); Target makes the tools read the fleet as one more stats
// URL. docs/reading.md ("Reading a fleet") says what each figure means.
package fleetwatch
