package doctor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/internal/testenv"
)

// pgExec runs statements over dsn, failing the test on an error.
func pgExec(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// onDB is dsn on database db, as user (with password) when user is set.
func onDB(t *testing.T, dsn, user, db string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		u.User = url.UserPassword(user, "x")
	}
	u.Path = "/" + db
	return u.String()
}

// TestRoleWithoutPrivileges connects as a role with no privileges to a
// database it does not own: exercise 7's tables and exercise 10's fleet
// role are missing and name the GRANT and ALTER ROLE that fix them. The
// test then runs those fixes as the admin and checks again: ready, the
// fleet's role tried and dropped. A board table owned by another role is
// missing in turn, with the ALTER TABLE that fixes it.
func TestRoleWithoutPrivileges(t *testing.T) {
	admin := testenv.PostgresDSN(t)
	b := make([]byte, 4)
	rand.Read(b)
	name := "bbslab_doctor_test_" + hex.EncodeToString(b)
	pgExec(t, admin, "CREATE ROLE "+name+" LOGIN PASSWORD 'x'", "CREATE DATABASE "+name)
	t.Cleanup(func() { pgExec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)", "DROP ROLE IF EXISTS "+name) })
	c := quick()
	c.DSN, c.TrialRole = onDB(t, admin, name, name), true
	ctx := context.Background()
	checks := c.checkPostgres(ctx)
	if ch := check(t, checks, "postgres"); ch.Status != OK || !strings.Contains(ch.Fact, "role "+name+" (NOCREATEROLE NOCREATEDB)") {
		t.Errorf("postgres: %+v", ch)
	}
	role := check(t, checks, "pg fleet role")
	alter := "ALTER ROLE " + name + " CREATEROLE CREATEDB"
	if role.Status != Missing || !strings.Contains(role.Fact, "may not create roles or databases") || !strings.Contains(role.Fix, alter) {
		t.Errorf("pg fleet role: %+v; want missing, naming CREATEROLE, CREATEDB and %q", role, alter)
	}
	tables := check(t, checks, "pg tables")
	grant := "GRANT CREATE ON SCHEMA public TO " + name + ";"
	if tables.Status != Missing || !strings.Contains(tables.Fix, grant) {
		t.Errorf("pg tables: %+v; want missing with %q", tables, grant)
	}
	l := judge(c.Exercises()[10], checks)
	if l.Ready || !strings.Contains(l.verdict(), alter) {
		t.Errorf("exercise 10: %s", l.verdict())
	}

	// The fixes as printed, run by the admin (in the role's database for the GRANT).
	pgExec(t, admin, alter)
	pgExec(t, onDB(t, admin, "", name), grant)
	checks = c.checkPostgres(ctx)
	for _, n := range []string{"postgres", "pg tables", "pg connections", "pg fleet role"} {
		if ch := check(t, checks, n); ch.Status != OK {
			t.Errorf("after the fixes, %s: %+v", n, ch)
		}
	}
	if ch := check(t, checks, "pg fleet role"); !strings.Contains(ch.Fact, "created and dropped a trial role") {
		t.Errorf("pg fleet role did not try: %+v", ch)
	}

	// A board table the role does not own: a reset could not truncate it.
	pgExec(t, onDB(t, admin, "", name), "CREATE TABLE posts (no bigint)")
	ch := check(t, c.checkPostgres(ctx), "pg tables")
	fix := "ALTER TABLE posts OWNER TO " + name + ";"
	if ch.Status != Missing || !strings.Contains(ch.Fix, fix) {
		t.Errorf("pg tables with posts not its own: %+v; want missing with %q", ch, fix)
	}
	pgExec(t, onDB(t, admin, "", name), fix)
	if ch := check(t, c.checkPostgres(ctx), "pg tables"); ch.Status != OK {
		t.Errorf("pg tables after %s: %+v", fix, ch)
	}
}

// TestPostgresUnreachable: no server gives the setup hint.
func TestPostgresUnreachable(t *testing.T) {
	checks := quick().checkPostgres(context.Background())
	if ch := check(t, checks, "postgres"); ch.Status != Missing || !strings.Contains(ch.Help, "docs/postgres.md") {
		t.Errorf("postgres: %+v; want missing with the hint", ch)
	}
	if ch := check(t, checks, "pg fleet role"); ch.Status != Missing {
		t.Errorf("pg fleet role without a server: %+v", ch)
	}
}
