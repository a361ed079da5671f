package doctor

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"bbslab/internal/pgsetup"
	"bbslab/loadtest/fleet"
)

// pgFacts is what one query reads of the server and the role.
type pgFacts struct {
	version, user, db, schema, dbOwner     string
	super, createRole, createDB, mayCreate bool
	maxConns, reserved, inUse              int
	tables                                 []pgTable
}

// pgTable is one of the board's tables that exists already.
type pgTable struct {
	name, owner string
	owns        bool // the role has its owner's privileges
}

// boardTables are the tables the PostgreSQL store creates (its migration)
// and resets (TRUNCATE, ALTER TABLE: the owner's privileges).
var boardTables = []string{"posts", "schema_migrations"}

// checkPostgres connects to c.DSN and reads what exercises 7 and 10 need
// of the server and the role: "postgres" (it answers), "pg tables" (the
// board may create or already owns its tables), "pg connections" (room for
// exercise 7's largest pool) and "pg fleet role" (exercise 10's fleet may
// create its role and database: tried once when TrialRole is set).
func (c Config) checkPostgres(ctx context.Context) []Check {
	pg := Check{Name: "postgres"}
	tables := Check{Name: "pg tables", Status: Missing, Fact: "not read: PostgreSQL does not answer"}
	conns, role := tables, tables
	conns.Name, role.Name = "pg connections", "pg fleet role"
	where := redact(c.DSN)
	f, err := readPG(ctx, c.DSN)
	if err != nil {
		pg.Status, pg.Fact = Missing, fmt.Sprintf("%s: %v", where, err)
		pg.Fix, pg.Help = "start PostgreSQL and set BBS_PG_DSN (docs/postgres.md)", pgsetup.Hint
		return []Check{pg, tables, conns, role}
	}
	attrs := "superuser"
	if !f.super {
		attrs = strings.TrimSpace(fmt.Sprintf("%s %s", pick(f.createRole, "CREATEROLE", "NOCREATEROLE"), pick(f.createDB, "CREATEDB", "NOCREATEDB")))
	}
	pg.Fact = fmt.Sprintf("%s: PostgreSQL %s, role %s (%s), database %s owned by %s", where, f.version, f.user, attrs, f.db, f.dbOwner)
	return []Check{pg, f.tablesCheck(), f.connsCheck(c.PoolConnections), c.roleCheck(ctx, f)}
}

func readPG(ctx context.Context, dsn string) (pgFacts, error) {
	var f pgFacts
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return f, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version'), current_user, current_database(),
		coalesce(current_schema(), 'public'), (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()),
		r.rolsuper, r.rolcreaterole, r.rolcreatedb, coalesce(has_schema_privilege(current_schema(), 'CREATE'), false),
		current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&f.version, &f.user, &f.db, &f.schema, &f.dbOwner,
		&f.super, &f.createRole, &f.createDB, &f.mayCreate, &f.maxConns, &f.reserved, &f.inUse)
	if err != nil {
		return f, fmt.Errorf("read the role's attributes: %w", err)
	}
	rows, err := conn.Query(ctx, `SELECT c.oid::regclass::text, pg_get_userbyid(c.relowner), pg_has_role(c.relowner, 'USAGE')
		FROM pg_class c WHERE c.oid = ANY (ARRAY[to_regclass($1), to_regclass($2)]) ORDER BY 1`, boardTables[0], boardTables[1])
	if err != nil {
		return f, fmt.Errorf("look for the board's tables: %w", err)
	}
	f.tables, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (pgTable, error) {
		var t pgTable
		return t, r.Scan(&t.name, &t.owner, &t.owns)
	})
	return f, err
}

// tablesCheck: the board's migration creates its tables in the first
// schema of the search path and a reset truncates posts and restarts its
// identity, which needs the owner's privileges.
func (f pgFacts) tablesCheck() Check {
	ch := Check{Name: "pg tables"}
	var facts, fixes []string
	for _, t := range f.tables {
		facts = append(facts, fmt.Sprintf("%s owned by %s", t.name, t.owner))
		if !t.owns {
			fixes = append(fixes, fmt.Sprintf("ALTER TABLE %s OWNER TO %s;", t.name, ident(f.user)))
		}
	}
	if len(f.tables) < len(boardTables) {
		facts = append(facts, fmt.Sprintf("%s may create tables in schema %s: %s", f.user, f.schema, pick(f.mayCreate, "yes", "no")))
		if !f.mayCreate {
			fixes = append(fixes, fmt.Sprintf("GRANT CREATE ON SCHEMA %s TO %s;", ident(f.schema), ident(f.user)))
		}
	}
	ch.Fact = strings.Join(facts, ", ")
	if len(fixes) > 0 {
		ch.Status = Missing
		stmts := strings.Join(fixes, " ")
		ch.Fix = fmt.Sprintf("in database %s, as a superuser or the owner: %s (Debian: sudo -u postgres psql -d %s -c %q; docs/postgres.md)", f.db, stmts, f.db, stmts)
	}
	return ch
}

// connsCheck: exercise 7's largest board opens PoolConnections at once.
func (f pgFacts) connsCheck(need int) Check {
	free := f.maxConns - f.inUse
	if !f.super {
		free -= f.reserved
	}
	ch := Check{Name: "pg connections", Fact: fmt.Sprintf("max_connections %d, %d in use, %d reserved for superusers: %d free for %s, exercise 7 opens %d", f.maxConns, f.inUse, f.reserved, free, f.user, need)}
	if free < need {
		ch.Status = Missing
		ch.Fix = fmt.Sprintf("as a superuser: ALTER SYSTEM SET max_connections = %d; then restart PostgreSQL (or close other clients)", f.maxConns+need-free)
	}
	return ch
}

// roleCheck: exercise 10's fleet creates a role with a CONNECTION LIMIT
// and a database it owns (loadtest/fleet's CreateRole): a superuser or a
// role with CREATEROLE and CREATEDB may. With c.TrialRole it does so once
// and drops them, as the fleet will.
func (c Config) roleCheck(ctx context.Context, f pgFacts) Check {
	ch := Check{Name: "pg fleet role"}
	var lacks []string
	if !f.super && !f.createRole {
		lacks = append(lacks, "CREATEROLE")
	}
	if !f.super && !f.createDB {
		lacks = append(lacks, "CREATEDB")
	}
	if len(lacks) > 0 {
		ch.Status = Missing
		what := map[string]string{"CREATEROLE": "roles", "CREATEDB": "databases"}
		var not []string
		for _, a := range lacks {
			not = append(not, what[a])
		}
		ch.Fact = fmt.Sprintf("%s may not create %s", f.user, strings.Join(not, " or "))
		stmt := fmt.Sprintf("ALTER ROLE %s %s", ident(f.user), strings.Join(lacks, " "))
		ch.Fix = fmt.Sprintf("as a superuser: %s (Debian: sudo -u postgres psql -c %q; docs/postgres.md)", stmt, stmt)
		return ch
	}
	ch.Fact = fmt.Sprintf("%s may create roles and databases", f.user)
	if !c.TrialRole {
		return ch
	}
	r, err := fleet.CreateRole(ctx, c.DSN, 1)
	if err == nil {
		err = r.Drop(context.WithoutCancel(ctx))
	}
	if err != nil {
		ch.Status, ch.Fact = Missing, "a trial of the fleet's role failed: "+err.Error()
		ch.Fix = "see the error; docs/postgres.md and docs/scale-out.md"
		return ch
	}
	ch.Fact += fmt.Sprintf(": created and dropped a trial role and database %s", r.Name)
	return ch
}

// redact is dsn with its password hidden.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	return u.Redacted()
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// reserved are SQL's reserved words most likely as a role's or schema's
// name; such a name is quoted.
var reserved = []string{"all", "current_user", "default", "group", "grant", "none", "order", "session_user", "table", "user"}

// ident is name as SQL: bare when it can be, quoted otherwise.
func ident(name string) string {
	if plainIdent.MatchString(name) && !slices.Contains(reserved, name) {
		return name
	}
	return pgx.Identifier{name}.Sanitize()
}
