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
// and a database it owns, starts PgBouncer when asked, the replicas, and
// HAProxy in front of them, each ready before the next starts. Their
// configuration files and logs go into Spec.WorkDir; nothing of the
// machine's /etc or its services is touched. Stop stops all in the reverse
// order and drops the role and its database.
//
// The package knows no board: the replica's command, ready path and the
// environment variable that carries the database URL are the caller's.
// docs/scale-out.md is the layout, by hand and over several machines.
package fleet
