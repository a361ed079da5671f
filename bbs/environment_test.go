//go:build cgo

// These tests read the environment of real SQLite and PostgreSQL stores
// (entity/open), and SQLite needs cgo.

package bbs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/entity"
	"bbslab/entity/open"
)

// statsEnvironment reads /admin/stats of a server on st and returns its
// database and host objects.
func statsEnvironment(t *testing.T, st entity.Store, dbName string) (db map[string]any, host map[string]any) {
	t.Helper()
	s := New(Options{Store: st, DBName: dbName})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	resp, body := get(t, ts.URL+"/admin/stats")
	var stats struct {
		Database map[string]any `json:"database"`
		Host     map[string]any `json:"host"`
	}
	if err := json.Unmarshal([]byte(body), &stats); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %d %v: %s", resp.StatusCode, err, body)
	}
	return stats.Database, stats.Host
}

func TestStatsEnvironmentSQLite(t *testing.T) {
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, host := statsEnvironment(t, st, "sqlite")
	if db["kind"] != "sqlite" || db["server_version"] != st.(entity.Versioned).ServerVersion() || db["server_version"] == "" {
		t.Errorf("stats database = %v; want kind sqlite and the library's version", db)
	}
	if host["os"] != runtime.GOOS || host["go_version"] != runtime.Version() || host["logical_cpus"].(float64) < 1 {
		t.Errorf("stats host = %v; want this machine's facts", host)
	}
	if b, ok := host["build"].(map[string]any); !ok || b["version"] == "" {
		t.Errorf("stats host.build = %v; want a version", host["build"])
	}
}

func TestStatsEnvironmentPostgres(t *testing.T) {
	dsn := os.Getenv("BBS_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("BBS_TEST_POSTGRES_DSN not set: skipping the PostgreSQL stats test")
	}
	ctx := context.Background()
	schema := fmt.Sprintf("bbs_test_env_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	st, err := open.Store(ctx, entity.Options{Driver: "postgres", DSN: dsn, Schema: schema, Pool: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, _ := statsEnvironment(t, st, "postgres")
	if db["kind"] != "postgres" || db["server_version"] == "" || db["server_version"] == nil {
		t.Errorf("stats database = %v; want kind postgres and the server's version", db)
	}
}

// TestStatsDatabaseWithoutVersion: a store that cannot name its version
// (the fake) still gives the kind from Options.DBName.
func TestStatsDatabaseWithoutVersion(t *testing.T) {
	_, st, _ := newTest(t, Options{})
	db, _ := statsEnvironment(t, st, "sqlite")
	if db["kind"] != "sqlite" {
		t.Errorf("stats database = %v; want kind sqlite", db)
	}
	if _, ok := db["server_version"]; ok {
		t.Errorf("stats database = %v; want no server_version from a store that cannot tell", db)
	}
}
