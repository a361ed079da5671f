//go:build unix

package fleet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"bbslab/internal/testenv"
)

// recipe is how docs/postgres.md's Debian recipe makes the lab's role:
// its CREATE ROLE statement, the role's name and password, and the
// database createdb gives it.
type recipe struct {
	createRole, role, password, db string
}

var (
	createRoleRe = regexp.MustCompile(`psql -c "(CREATE ROLE (\w+) [^"]*PASSWORD '([^']*)'[^"]*)"`)
	createdbRe   = regexp.MustCompile(`createdb -O (\w+) (\w+)`)
)

// debianRecipe reads the role's statements from docs/postgres.md's
// "Debian or Ubuntu" section, so that the page and this test cannot
// drift; every other recipe's CREATE ROLE must be the same statement.
func debianRecipe(t *testing.T) recipe {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "postgres.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r recipe
	var others []string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = line
		}
		if m := createRoleRe.FindStringSubmatch(line); m != nil {
			if section == "## Debian or Ubuntu (what CI does)" {
				r.createRole, r.role, r.password = m[1], m[2], m[3]
			} else {
				others = append(others, m[1])
			}
		}
		if m := createdbRe.FindStringSubmatch(line); m != nil && section == "## Debian or Ubuntu (what CI does)" {
			if m[1] != r.role {
				t.Fatalf("docs/postgres.md: createdb -O %s, but the recipe's role is %q", m[1], r.role)
			}
			r.db = m[2]
		}
	}
	if r.createRole == "" || r.db == "" {
		t.Fatalf("docs/postgres.md: no CREATE ROLE ... PASSWORD and createdb -O in the Debian recipe: %+v", r)
	}
	for _, o := range others {
		if o != r.createRole {
			t.Errorf("docs/postgres.md: %q differs from the Debian recipe's %q", o, r.createRole)
		}
	}
	return r
}

// asRole is admin's DSN with user and password replaced, on database db.
func asRole(t *testing.T, admin, user, password, db string) string {
	t.Helper()
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.User, u.Path = url.UserPassword(user, password), "/"+db
	return u.String()
}

// adminExec runs statements over admin, failing the test on an error.
func adminExec(t *testing.T, admin string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, admin)
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

// TestDocumentedRoleRunsFleet makes the lab's role as docs/postgres.md's
// Debian recipe does (under a name of the test's own, with a database of
// that name in place of test) and, connected as it, creates the fleet's
// role and database, logs in as that role, creates a table there as the
// board's migration does, and drops it all; with HAProxy installed, a
// whole fleet of one replica runs as it too.
func TestDocumentedRoleRunsFleet(t *testing.T) {
	admin := testenv.PostgresDSN(t)
	rc := debianRecipe(t)
	name := "bbslab_doctest_" + randomHex(4)
	stmt := strings.Replace(rc.createRole, "ROLE "+rc.role+" ", "ROLE "+name+" ", 1)
	adminExec(t, admin, stmt, "CREATE DATABASE "+name+" OWNER "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(ctx)
		if err := dropRole(ctx, c, name); err != nil {
			t.Error(err)
		}
	})
	dsn := asRole(t, admin, name, rc.password, name)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := CreateRole(ctx, dsn, 3)
	if err != nil {
		t.Fatalf("CreateRole as the documented role (%s): %v", stmt, err)
	}
	c, err := pgx.Connect(ctx, r.DSN(r.Host, r.Port))
	if err != nil {
		r.Drop(ctx)
		t.Fatalf("log in as the fleet's role: %v", err)
	}
	var user string
	var limit int
	err = c.QueryRow(ctx, `SELECT current_user, rolconnlimit FROM pg_roles WHERE rolname = current_user`).Scan(&user, &limit)
	if err == nil {
		_, err = c.Exec(ctx, `CREATE TABLE doctest (n int)`)
	}
	c.Close(ctx)
	if err != nil || user != r.Name || limit != 3 {
		t.Errorf("as the fleet's role: user %q, connection limit %d, err %v; want %s, 3, a table created", user, limit, err, r.Name)
	}
	if err := r.Drop(ctx); err != nil {
		t.Fatalf("Drop as the documented role: %v", err)
	}
	checkNothingLeft(t, admin, r.Name, nil)

	t.Run("fleet", func(t *testing.T) {
		need(t, "haproxy")
		s := boardSpec(t, dsn, 1, 2)
		s.ConnLimit = 4
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		f, err := Start(ctx, s)
		if err != nil { // Start stopped what it started
			t.Fatalf("Start as the documented role: %v", err)
		}
		resp, err := http.Get(f.URL + "/bbs?cmd=AllView")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %s", resp.Status)
			}
		}
		if err != nil {
			t.Errorf("GET the fleet's page: %v", err)
		}
		procs := f.procs
		if err := f.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		checkNothingLeft(t, admin, f.Role.Name, procs)
	})
}

// TestRoleLacksPrivilege connects as a role without CREATEROLE, then as one
// without CREATEDB: CreateRole's error names the attribute missing and
// the ALTER ROLE that grants it, keeps PostgreSQL's error, and leaves no
// role behind.
func TestRoleLacksPrivilege(t *testing.T) {
	admin := testenv.PostgresDSN(t)
	for _, tc := range []struct{ has, lacks, what string }{
		{"CREATEDB", "CREATEROLE", "create roles"},
		{"CREATEROLE", "CREATEDB", "create databases"},
	} {
		t.Run(tc.lacks, func(t *testing.T) {
			name := "bbslab_doctest_" + randomHex(4)
			adminExec(t, admin, fmt.Sprintf("CREATE ROLE %s LOGIN %s PASSWORD 'x'", name, tc.has))
			t.Cleanup(func() { adminExec(t, admin, "DROP ROLE IF EXISTS "+name) })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := CreateRole(ctx, asRole(t, admin, name, "x", "test"), 3)
			if err == nil {
				r.Drop(ctx)
				t.Fatalf("CreateRole as a role without %s succeeded", tc.lacks)
			}
			want := fmt.Sprintf("the role %s may not %s: run ALTER ROLE %s %s as a superuser (docs/postgres.md)", name, tc.what, `"`+name+`"`, tc.lacks)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q; want it to say %q", err, want)
			}
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42501" {
				t.Errorf("error %v does not wrap PostgreSQL's SQLSTATE 42501", err)
			}
			left, lerr := Leftovers(ctx, admin)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if role := roleIn(err.Error()); role == "" || slices.ContainsFunc(left, func(l string) bool { return strings.HasSuffix(l, " "+role) }) {
				t.Errorf("the fleet's role %q of the refused start: leftovers %v", role, left)
			}
		})
	}
}
