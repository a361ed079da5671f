// Package driverkit is what the store drivers, entity/sqlite and
// entity/postgres, share without cgo: the pool that holds a fixed-mode
// store's connections and changes its sizes while it runs (Pool), the
// database at a distance
// (Network, which applies an entity.Distance), the classification of driver
// errors (Classify), the SQL trace (Tracer), the pool's meter (Meter) and
// each connection's (ConnMeter), where acquires and statements are timed, the
// migrations' loader (LoadMigrations), the local ports of a store's
// connections (PortSet) and the time stamp of a new post (PostTime). A
// driver builds its Store from these and its own database calls.
//
// It is internal to entity so that only the drivers see it, and package
// entity exports the domain alone (docs/layout.md).
package driverkit
