package fleetwatch

import (
	"bbslab/loadtest/fleet"
	"bbslab/loadtest/watch"
)

// ForFleet returns the reader of f, whose replicas serve t's stats at
// statsURL(replica), and of PostgreSQL with adminDSN (not the fleet's role).
// SharedCores: package fleet holds a whole fleet to the same CPUs or none.
func ForFleet(f *fleet.Fleet, adminDSN string, t watch.Target, statsURL func(fleet.Replica) string) (*Fleet, error) {
	o := Options{Target: t, HAProxyURL: f.MetricsURL, SharedCores: true}
	for _, r := range f.Replicas {
		o.Replicas = append(o.Replicas, Replica{Name: r.Name, StatsURL: statsURL(r)})
	}
	if f.Role != nil {
		if adminDSN != "" {
			o.PostgresDSN, o.Database, o.Role = adminDSN, f.Role.Name, f.Role.Name
		}
		if f.PgBouncer != nil {
			o.PgBouncerDSN, o.PgBouncerDatabase = f.PgBouncer.AdminDSN, f.Role.Name
		}
	}
	return New(o)
}
