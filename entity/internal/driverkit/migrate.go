package driverkit

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// A Migration is one schema file, applied once, in version order.
type Migration struct {
	Version int    // from the file name's NNN_ prefix
	Name    string // the file name
	SQL     string // the statements
}

// CreateMigrationsTable creates the table in which each driver records the
// versions it has applied.
const CreateMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`

// LoadMigrations reads dir/NNN_*.sql from fsys in version order; the
// drivers apply them (schema files live in package sql).
func LoadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, fmt.Errorf("migrations in %s: %w", dir, err)
	}
	var ms []Migration
	for _, name := range names {
		base := path.Base(name)
		prefix, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(prefix)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: name must start with a version number and _", name)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s have the same version", ms[i-1].Name, ms[i].Name)
		}
	}
	return ms, nil
}
