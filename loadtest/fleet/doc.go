// Package fleet starts several replicas of a server behind one address:
//
//	f, err := fleet.Start(ctx, fleet.Spec{
//		Replica:  []string{"./bbs", "-db", "postgres", "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}"},
//		DSNEnv:   "BBS_DSN",
//		Replicas: 2, Ready: "/readyz", Balance: "leastconn",
//		AdminDSN: "postgres://root@127.0.0.1:5432/test?sslmode=disable", ConnLimit: 20,
//		PgBouncer: &fleet.PgBouncerSpec{Mode: "transaction", PoolSize: 10},
//		WorkDir:  dir,
//	})
//	// load f.URL (HAProxy); read f.MetricsURL, f.Replicas[i].AdminURL, f.PgBouncer.AdminDSN
//	err = f.Stop()
//
// Start creates a PostgreSQL role of the lab's own with CONNECTION LIMIT
// and a database it owns (Role: the connection limit a lesson needs
// without changing the server's configuration), starts a real PgBouncer
// when asked (Debian's pgbouncer, session or transaction mode, its pool
// size a knob, its admin console open to a stats user), the replicas (each
// its own port and admin port, connecting as the role, directly or through
// PgBouncer), and a real HAProxy in front of them (Debian's haproxy,
// balancing leastconn or roundrobin, health checks on each replica's ready
// URL, its Prometheus exporter on a port of its own). Each process is
// checked ready before the next starts. Their configuration files are
// filled from the templates in templates/, and they and every log go into
// Spec.WorkDir; nothing of the machine's /etc or its services is touched.
// A process that exits while the fleet runs is reported (Exits, and
// Spec.OnExit at once), and Stop stops all in the reverse order and drops
// the role and its database, leaving nothing behind (Leftovers).
//
// The package knows no board: the replica's command, ready path and the
// environment variable that carries the database URL are the caller's.
// docs/scale-out.md is the layout, by hand and over several machines.
package fleet
