package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// RolePrefix starts the name of every role and database a fleet creates.
const RolePrefix = "bbslab_fleet_"

// A Role is the lab's own PostgreSQL role owning a database of its name: a
// connection limit without changing the server's configuration.
type Role struct {
	Name string
	// Password is random: it works whatever pg_hba.conf asks on loopback.
	Password  string
	ConnLimit int // -1 for none
	// Host and Port are PostgreSQL's, from the admin DSN.
	Host string
	Port int

	admin string // the DSN that created it, which drops it
}

// CreateRole creates a role (not a superuser, whom CONNECTION LIMIT does not
// hold) with connLimit (0 or less: none) and its database, over the admin
// DSN (a role with CREATEROLE and CREATEDB, as docs/postgres.md makes it).
func CreateRole(ctx context.Context, admin string, connLimit int) (*Role, error) {
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		return nil, errors.New("fleet: cannot parse the PostgreSQL admin DSN: want a URL such as postgres://root@127.0.0.1:5432/test?sslmode=disable")
	}
	if connLimit <= 0 {
		connLimit = -1
	}
	r := &Role{Name: RolePrefix + randomHex(6), Password: randomHex(16), ConnLimit: connLimit, Host: cfg.Host, Port: int(cfg.Port), admin: admin}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("fleet: connect to PostgreSQL to create the lab's role: %w", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	id := pgx.Identifier{r.Name}.Sanitize()
	// A password is a literal, not a parameter, in CREATE ROLE: it is hex.
	if _, err := c.Exec(ctx, fmt.Sprintf(`CREATE ROLE %s LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '%s' CONNECTION LIMIT %d`, id, r.Password, r.ConnLimit)); err != nil {
		return nil, fmt.Errorf("fleet: create role %s: %w", r.Name, denied(err, cfg.User, "create roles", "CREATEROLE"))
	}
	// CREATE DATABASE ... OWNER needs a non-superuser admin in the owner role.
	_, err = c.Exec(ctx, `GRANT `+id+` TO CURRENT_USER`)
	if err == nil {
		_, err = c.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s OWNER %s`, id, id))
	}
	if err != nil {
		err = fmt.Errorf("fleet: create database %s: %w", r.Name, denied(err, cfg.User, "create databases", "CREATEDB"))
		if _, derr := c.Exec(context.WithoutCancel(ctx), `DROP ROLE `+id); derr != nil {
			err = errors.Join(err, fmt.Errorf("fleet: drop role %s: %w", r.Name, derr))
		}
		return nil, err
	}
	return r, nil
}

// denied names the attribute a refused admin lacks and how to grant it.
func denied(err error, user, what, attr string) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		return err
	}
	return fmt.Errorf("the role %s may not %s: run ALTER ROLE %s %s as a superuser (docs/postgres.md): %w", user, what, pgx.Identifier{user}.Sanitize(), attr, err)
}

// DSN is the URL of the role's database as the role, at host:port (PostgreSQL's own, or PgBouncer's).
func (r *Role) DSN(host string, port int) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(r.Name, r.Password), Host: net.JoinHostPort(host, strconv.Itoa(port)), Path: "/" + r.Name, RawQuery: "sslmode=disable"}
	return u.String()
}

// Drop ends the role's sessions, drops its database and then the role.
func (r *Role) Drop(ctx context.Context) error {
	c, err := pgx.Connect(ctx, r.admin)
	if err != nil {
		return fmt.Errorf("fleet: connect to PostgreSQL to drop role %s: %w", r.Name, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	return dropRole(ctx, c, r.Name)
}

func dropRole(ctx context.Context, c *pgx.Conn, name string) error {
	id := pgx.Identifier{name}.Sanitize()
	// WITH (FORCE) ends the sessions on the database; those elsewhere end here.
	if _, err := c.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, name); err != nil {
		return fmt.Errorf("fleet: end the sessions of role %s: %w", name, err)
	}
	if _, err := c.Exec(ctx, `DROP DATABASE IF EXISTS `+id+` WITH (FORCE)`); err != nil {
		return fmt.Errorf("fleet: drop database %s: %w", name, err)
	}
	var err error
	for try := 0; try < 20; try++ { // a terminated session may linger a moment
		if _, err = c.Exec(ctx, `DROP ROLE IF EXISTS `+id); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("fleet: drop role %s: %w", name, err)
}

// Leftovers lists the roles and databases named with RolePrefix on admin's.
func Leftovers(ctx context.Context, admin string) ([]string, error) {
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, `SELECT 'role ' || rolname FROM pg_roles WHERE starts_with(rolname, $1)
		UNION ALL SELECT 'database ' || datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1`, RolePrefix)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// DropLeftovers drops and returns every role and database named with
// RolePrefix, a running fleet's too: call it only while none runs.
func DropLeftovers(ctx context.Context, admin string) ([]string, error) {
	left, err := Leftovers(ctx, admin)
	if err != nil || len(left) == 0 {
		return left, err
	}
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	seen := map[string]bool{}
	var errs []error
	for _, l := range left {
		var kind, name string
		fmt.Sscan(l, &kind, &name)
		if !seen[name] {
			seen[name] = true
			errs = append(errs, dropRole(ctx, c, name))
		}
	}
	return left, errors.Join(errs...)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
