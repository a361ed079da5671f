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
// Start creates a PostgreSQL role with CONNECTION LIMIT and its database,
// then PgBouncer when asked, the replicas and HAProxy, each ready before the
// next; their files and logs go into Spec.WorkDir, never the machine's /etc.
// Stop stops all in reverse order and drops the role. The package knows no
// board: the replica's command is the caller's (docs/scale-out.md).
package fleet
